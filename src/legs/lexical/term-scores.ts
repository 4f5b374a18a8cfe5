/**
 * BM25+ scores of one exact term, read straight from minisearch's index (7.2.0, pinned in
 * package.json). The arithmetic is its own, operation for operation, so every score is the one its
 * `search` returns for that single term; what is skipped is the result object `search` builds per
 * matching document (id lookup, stored-field copy, match map) and the sort of them all, which were
 * half of the lexical leg's time and most of the graph leg's at 100k memories.
 * test/lexical-term-scores.test.ts compares every score with minisearch's own `search`, so an
 * upgrade that changes these internals fails there rather than in a ranking.
 */
import type MiniSearch from 'minisearch';

/** The parts of minisearch's state the scores read (private fields in its typings). */
interface Internals {
  _index: { get(term: string): Map<number, Map<number, number>> | undefined };
  _fieldIds: Record<string, number>;
  _fieldLength: Map<number, number[]>;
  _avgFieldLength: number[];
  _documentCount: number;
  _documentIds: Map<number, unknown>;
}

export interface Bm25Params {
  k: number;
  b: number;
  d: number;
}

/** Calls `visit(id, score)` for every document whose `field` holds `term`, in posting order. */
export function forEachTermScore<T>(index: MiniSearch<T>, field: string, term: string, boost: number, bm25: Bm25Params, visit: (id: number, score: number) => void): void {
  const mini = index as unknown as Internals;
  const fieldId = mini._fieldIds[field]!;
  const freqs = mini._index.get(term)?.get(fieldId);
  if (freqs === undefined) return;
  const { k, b, d } = bm25;
  const total = mini._documentCount;
  const avgFieldLength = mini._avgFieldLength[fieldId]!;
  let matching = freqs.size;
  for (const [docId, termFreq] of freqs) {
    const id = mini._documentIds.get(docId);
    // A discarded document still in the postings: minisearch skips it and stops counting it.
    if (id === undefined) {
      matching -= 1;
      continue;
    }
    const fieldLength = mini._fieldLength.get(docId)![fieldId]!;
    const invDocFreq = Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
    const raw = invDocFreq * (d + (termFreq * (k + 1)) / (termFreq + k * (1 - b + (b * fieldLength) / avgFieldLength)));
    // minisearch weighs by term weight · term boost · field boost · document boost, here 1 · boost · 1 · 1.
    visit(id as number, 1 * boost * 1 * 1 * raw);
  }
}
