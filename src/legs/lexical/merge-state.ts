/**
 * A lexical index's saved base and the lists of the documents added since, merged into one flat
 * state: what a save writes and what the index then reads in place as its new base.
 */
import type { AddedPostings } from './added-postings.js';
import type { FrozenPostings } from './frozen-postings.js';
import type { CheckedState, FlatState } from './minisearch-state.js';
import type { DocTable } from './term-scores.js';

/**
 * `base` (which may be null) and `added`, leaving out every posting and document `docs` no longer
 * holds; terms in increasing order, each term's postings in increasing short id order, and short
 * ids as they were (a document keeps its short id for its life, so `docs` stays right).
 * `documentCount` and `averageFieldLength` are the index's own.
 */
export function mergeState(base: FrozenPostings | null, added: AddedPostings, docs: DocTable, documentCount: number, averageFieldLength: number): { state: FlatState; checked: CheckedState } {
  const upper = [...added.lists()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const lowerOrder = base === null ? [] : base.termOrder();
  const lowerTerms = base === null ? [] : base.state.terms;
  let room = base === null ? 0 : base.state.postings.length;
  for (const [, pairs] of upper) room += 1 + pairs.length;
  const postings = new Uint32Array(room);
  const terms: string[] = [];
  const offsets: number[] = [];
  let at = 0;
  const keep = (data: ArrayLike<number>, from: number, end: number): void => {
    for (let p = from; p < end; p += 2) {
      if (!docs.holds(data[p]!)) continue;
      postings[at++] = data[p]!;
      postings[at++] = data[p + 1]!;
    }
  };
  for (let i = 0, j = 0; i < lowerOrder.length || j < upper.length; ) {
    const lowerTerm = i < lowerOrder.length ? lowerTerms[lowerOrder[i]!]! : null;
    const upperTerm = j < upper.length ? upper[j]![0] : null;
    const term = upperTerm === null || (lowerTerm !== null && lowerTerm <= upperTerm) ? lowerTerm! : upperTerm;
    const start = at++;
    if (lowerTerm === term) {
      const { data, start: from, size } = base!.listAt(lowerOrder[i++]!);
      keep(data, from, from + 2 * size);
    }
    if (upperTerm === term) {
      const pairs = upper[j++]![1];
      keep(pairs, 0, pairs.length);
    }
    const count = (at - start - 1) / 2;
    if (count === 0) {
      at = start;
      continue;
    }
    postings[start] = count;
    sortPairs(postings, start + 1, count);
    terms.push(term);
    offsets.push(start);
  }
  const out = new Float64Array(3 * documentCount);
  let d = 0;
  const put = (shortId: number, no: number, length: number): void => {
    if (d === out.length) throw new Error(`the lexical index holds more documents than its count, ${documentCount}`);
    out[d++] = shortId;
    out[d++] = no;
    out[d++] = length;
  };
  const baseDocs = base === null ? [] : base.state.docs;
  for (let i = 0; i < baseDocs.length; i += 3) if (docs.holds(baseDocs[i]!)) put(baseDocs[i]!, baseDocs[i + 1]!, baseDocs[i + 2]!);
  for (const [no, shortId] of added.documents()) put(shortId, no, docs.lengthOf(shortId));
  if (d !== out.length) throw new Error(`the lexical index holds ${d / 3} documents, its count says ${documentCount}`);
  return {
    state: { documentCount, nextId: added.nextId, averageFieldLength, docs: out, terms, postings: postings.slice(0, at) },
    checked: { offsets: Float64Array.from(offsets), termsSorted: true, sorted: true },
  };
}

/**
 * Puts `count` pairs `shortId, tf` from `start` in increasing short id order. They come in order
 * but from an index loaded from a save out of order (which older builds could write).
 */
function sortPairs(postings: Uint32Array, start: number, count: number): void {
  let sorted = true;
  for (let p = start + 2, end = start + 2 * count; sorted && p < end; p += 2) sorted = postings[p - 2]! < postings[p]!;
  if (sorted) return;
  const pairs = Array.from({ length: count }, (_, i) => [postings[start + 2 * i]!, postings[start + 2 * i + 1]!] as const).sort((x, y) => x[0] - y[0]);
  pairs.forEach(([shortId, tf], i) => {
    postings[start + 2 * i] = shortId;
    postings[start + 2 * i + 1] = tf;
  });
}
