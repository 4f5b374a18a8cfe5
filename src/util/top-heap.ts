/**
 * Adds `(score, no)` to a binary min-heap of at most `k` entries held in `hs`/`hn`, whose root is
 * the worst kept entry (lowest score; on equal scores the larger `no`), and returns the new size.
 * When the heap is full the newcomer replaces the root: the caller has checked that it is better.
 */
export function heapPush(hs: Float64Array, hn: Int32Array, size: number, k: number, score: number, no: number): number {
  let i: number;
  if (size < k) {
    // Sift up from the new leaf while the parent is better than the newcomer.
    i = size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const ps = hs[p]!;
      if (!(ps > score || (ps === score && hn[p]! < no))) break;
      hs[i] = ps;
      hn[i] = hn[p]!;
      i = p;
    }
  } else {
    // Replace the root and sift down while a child is worse than the newcomer.
    i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= size) break;
      const r = c + 1;
      if (r < size && (hs[r]! < hs[c]! || (hs[r] === hs[c] && hn[r]! > hn[c]!))) c = r;
      const cs = hs[c]!;
      if (!(cs < score || (cs === score && hn[c]! > no))) break;
      hs[i] = cs;
      hn[i] = hn[c]!;
      i = c;
    }
  }
  hs[i] = score;
  hn[i] = no;
  return size;
}
