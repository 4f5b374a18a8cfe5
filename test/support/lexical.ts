import type { FrozenPostings } from '../../src/legs/lexical/frozen-postings.js';
import { LayeredPostings } from '../../src/legs/lexical/layered-postings.js';
import { DocTable, partsOf, type Bm25Params, type TermSource } from '../../src/legs/lexical/term-scores.js';

/**
 * `texts` indexed under their positions as memory numbers, then `removed` removed with their
 * texts: the lists of an index that has not folded yet (fewer than 8,192 texts), or its layers.
 */
export function layeredOf(texts: readonly string[], removed: Iterable<number> = []): LayeredPostings {
  const layered = LayeredPostings.empty();
  texts.forEach((text, no) => layered.add(no, text));
  for (const no of new Set(removed)) if (no < texts.length) layered.remove(no, texts[no]!);
  return layered;
}

/** The same folded into the flat state a save writes, read in place with its document table, as a loaded index reads them. */
export function frozenOf(texts: readonly string[], removed: Iterable<number> = []): { frozen: FrozenPostings; table: DocTable } {
  const frozen = layeredOf(texts, removed).fold();
  return { frozen, table: DocTable.fromDocs(frozen.state.docs, frozen.state.nextId) };
}

/**
 * The reference the lexical leg's walks are checked against: every document holding any of
 * `terms`, by memory number, with its score as minisearch's OR gives it (each term's BM25+ added
 * in the terms' order, times how many of them the document holds), summed term by term over
 * every posting with minisearch's arithmetic, operation for operation.
 */
export function walkScores(table: DocTable, source: TermSource, terms: readonly string[], boostOf: (term: string) => number, bm25: Bm25Params): Map<number, number> {
  const sums = new Map<number, { sum: number; count: number }>();
  for (const term of terms) {
    const list = source.postings(term);
    if (list === undefined) continue;
    const idf = Math.log(1 + (source.documentCount - list.df + 0.5) / (list.df + 0.5));
    for (const part of partsOf(list)) {
      for (let i = part.start; i < part.start + 2 * part.size; i += 2) {
        const shortId = part.data[i]!;
        if (!table.holds(shortId)) continue;
        const tf = part.data[i + 1]!;
        const { k, b, d } = bm25;
        const raw = idf * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * table.lengthOf(shortId)) / source.averageLength)));
        const entry = sums.get(shortId) ?? { sum: 0, count: 0 };
        entry.sum = entry.sum + 1 * boostOf(term) * 1 * 1 * raw;
        entry.count++;
        sums.set(shortId, entry);
      }
    }
  }
  return new Map([...sums].map(([shortId, { sum, count }]) => [table.noOf(shortId), sum * count]));
}
