/** The flat index's two loops outside the kernel: the plain-JavaScript scan and the top-k cut. */
import { heapPush } from '../../util/top-heap.js';
import type { Accept, Scored } from '../types.js';

/** The fallback scan; four partial sums break the add dependency chain, as in the wasm kernel. */
export function dotJs(query: Float32Array, vectors: Float32Array, n: number, dim: number, out: Float32Array, first = 0): void {
  const dim4 = dim & ~3;
  for (let i = 0, base = first * dim; i < n; i++, base += dim) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j < dim4; j += 4) {
      const b = base + j;
      s0 += query[j]! * vectors[b]!;
      s1 += query[j + 1]! * vectors[b + 1]!;
      s2 += query[j + 2]! * vectors[b + 2]!;
      s3 += query[j + 3]! * vectors[b + 3]!;
    }
    for (; j < dim; j++) s0 += query[j]! * vectors[base + j]!;
    out[i] = s0 + s1 + s2 + s3;
  }
}

/**
 * Best `k` of the first `n` scores with a binary min-heap whose root is the worst kept candidate
 * (lowest score; on equal scores the larger `no`), so the order is total and results deterministic.
 */
export function selectTop(scores: Float32Array, nos: Int32Array, n: number, k: number, accept: Accept | undefined): Scored[] {
  const hs = new Float64Array(k);
  const hn = new Int32Array(k);
  let size = 0;
  for (let slot = 0; slot < n; slot++) {
    let score = scores[slot]!;
    if (score !== score) score = -Infinity; // NaN would break the heap order
    const no = nos[slot]!;
    if (size === k && !(score > hs[0]! || (score === hs[0]! && no < hn[0]!))) continue;
    if (accept !== undefined && !accept(no)) continue;
    size = heapPush(hs, hn, size, k, score, no);
  }
  // Popped worst first into the back, so the heap's own order (score, then no) sorts them: a
  // comparator sort of the 100 a hybrid recall asks for cost more than the heap's pops.
  const out = new Array<Scored>(size);
  for (let end = size - 1; end >= 0; end--) {
    out[end] = { no: hn[0]!, score: hs[0]! };
    if (end > 0) heapPush(hs, hn, end, end, hs[end]!, hn[end]!);
  }
  return out;
}
