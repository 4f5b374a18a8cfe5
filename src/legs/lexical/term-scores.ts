/**
 * BM25+ scores of exact terms, read straight from the postings (minisearch's index, 7.2.0, pinned
 * in package.json, or the flat arrays a loaded index keeps until its first change) and the
 * `DocTable` beside them. The arithmetic is minisearch's own, operation for operation, so every
 * score is the one its `search` returns for that single term; what is skipped is the result
 * object `search` builds per matching document (id lookup, stored-field copy, match map) and the
 * sort of them all, which were half of the lexical leg's time and most of the graph leg's at 100k
 * memories. test/lexical-term-scores.test.ts compares every score with minisearch's own `search`,
 * so an upgrade that changes these internals fails there rather than in a ranking.
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
  _idToShortId: Map<unknown, number>;
}

export interface Bm25Params {
  k: number;
  b: number;
  d: number;
}

/** One term's postings in flat arrays: `size` pairs `shortId, term frequency` from `start`, short ids increasing. */
export interface FlatList {
  readonly data: ArrayLike<number>;
  readonly start: number;
  readonly size: number;
  has(shortId: number): boolean;
}

/** One term's postings, short id → term frequency in increasing short id order. */
export type Postings = Map<number, number> | FlatList;

/** Where the scores read one text field's statistics and postings from. */
export interface TermSource {
  readonly documentCount: number;
  readonly averageLength: number;
  postings(term: string): Postings | undefined;
}

/** Field `field` of a minisearch index, read in place. */
export function minisearchSource<T>(index: MiniSearch<T>, field: string): TermSource {
  const mini = index as unknown as Internals;
  const fieldId = mini._fieldIds[field]!;
  return {
    get documentCount() {
      return mini._documentCount;
    },
    get averageLength() {
      return mini._avgFieldLength[fieldId]!;
    },
    postings: (term) => mini._index.get(term)?.get(fieldId),
  };
}

const NONE = -1;

/**
 * minisearch's per-document maps (short id → memory number, short id → field length) as arrays
 * by short id, kept in step by the index that owns the minisearch instance: a posting's two map
 * lookups become two array reads (1.2M postings at 100k memories). minisearch hands out short ids
 * in sequence and never reuses one, so the arrays are as long as the documents ever added.
 */
export class DocTable {
  #nos = new Float64Array(0);
  #lengths = new Float64Array(0);
  /** Scratch of `sum`, by short id: zero between calls. */
  #sums = new Float64Array(0);
  #counts = new Uint32Array(0);
  #touched = new Int32Array(0);

  /** The table of every document `index` holds now, for field `field`. */
  static of<T>(index: MiniSearch<T>, field: string): DocTable {
    const table = new DocTable();
    const mini = index as unknown as Internals;
    for (const [shortId, id] of mini._documentIds) table.#put(shortId, id as number, mini._fieldLength.get(shortId)![mini._fieldIds[field]!]!);
    return table;
  }

  /** The table of the documents of a flat state (`[shortId, no, fieldLength]` each). */
  static fromDocs(docs: ArrayLike<number>): DocTable {
    const table = new DocTable();
    for (let i = 0; i < docs.length; i += 3) table.#put(docs[i]!, docs[i + 1]!, docs[i + 2]!);
    return table;
  }

  /** Records the document minisearch just added under `id`. */
  added<T>(index: MiniSearch<T>, field: string, id: number): void {
    const mini = index as unknown as Internals;
    const shortId = mini._idToShortId.get(id)!;
    this.#put(shortId, id, mini._fieldLength.get(shortId)![mini._fieldIds[field]!]!);
  }

  /** Forgets the document minisearch is about to remove under `id` (call before removing it). */
  removing<T>(index: MiniSearch<T>, id: number): void {
    const shortId = (index as unknown as Internals)._idToShortId.get(id);
    if (shortId !== undefined && shortId < this.#nos.length) this.#nos[shortId] = NONE;
  }

  #put(shortId: number, id: number, length: number): void {
    if (shortId >= this.#nos.length) {
      const capacity = Math.max(shortId + 1, 2 * this.#nos.length, 1024);
      const nos = new Float64Array(capacity).fill(NONE);
      nos.set(this.#nos);
      const lengths = new Float64Array(capacity);
      lengths.set(this.#lengths);
      this.#nos = nos;
      this.#lengths = lengths;
    }
    this.#nos[shortId] = id;
    this.#lengths[shortId] = length;
  }

  /**
   * Sums each document's scores over `terms` (in their order, as minisearch's OR adds them), then
   * hands `use` every document that matched, by short id, with the sum, how many of the terms it
   * holds and a test of which (by the term's position in `terms`). The sums live in arrays by
   * short id, not in a map of objects: the map was half of a search's time.
   */
  sum(source: TermSource, terms: readonly string[], boostOf: (term: string) => number, bm25: Bm25Params, use: (matched: Int32Array, count: number, sums: Float64Array, counts: Uint32Array, holds: (term: number, shortId: number) => boolean) => void): void {
    const lists = terms.map((term) => source.postings(term));
    const capacity = this.#nos.length;
    if (this.#sums.length !== capacity) {
      this.#sums = new Float64Array(capacity);
      this.#counts = new Uint32Array(capacity);
      this.#touched = new Int32Array(capacity);
    }
    const sums = this.#sums;
    const counts = this.#counts;
    const touched = this.#touched;
    let n = 0;
    try {
      terms.forEach((term, i) => (n = this.#scoreTerm(source, lists[i], boostOf(term), bm25, n)));
      use(touched, n, sums, counts, (term, shortId) => lists[term]?.has(shortId) ?? false);
    } finally {
      for (let i = 0; i < n; i++) {
        sums[touched[i]!] = 0;
        counts[touched[i]!] = 0;
      }
    }
  }

  /** The memory number under `shortId` (a short id `sum` handed out). */
  noOf(shortId: number): number {
    return this.#nos[shortId]!;
  }

  /**
   * Adds each document's score for one term (`freqs`, its postings) to the sums, in posting order;
   * `n` documents were touched before, the count after is returned. The sums are added in place:
   * a callback per posting took each score as a boxed number, a fifth of a recall's garbage at 10k.
   */
  #scoreTerm(source: TermSource, freqs: Postings | undefined, boost: number, bm25: Bm25Params, n: number): number {
    if (freqs === undefined) return n;
    const { k, b, d } = bm25;
    const total = source.documentCount;
    const avgFieldLength = source.averageLength;
    const nos = this.#nos;
    const lengths = this.#lengths;
    const sums = this.#sums;
    const counts = this.#counts;
    const touched = this.#touched;
    let matching = freqs.size;
    // minisearch takes the log for every posting; it changes only when `matching` does.
    let invDocFreq = Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
    const score = (docId: number, termFreq: number): void => {
      const id = docId < nos.length ? nos[docId]! : NONE;
      // A discarded document still in the postings: minisearch skips it and stops counting it.
      if (id === NONE) {
        matching -= 1;
        invDocFreq = Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
        return;
      }
      const fieldLength = lengths[docId]!;
      const raw = invDocFreq * (d + (termFreq * (k + 1)) / (termFreq + k * (1 - b + (b * fieldLength) / avgFieldLength)));
      const c = counts[docId]!;
      if (c === 0) touched[n++] = docId;
      counts[docId] = c + 1;
      // minisearch weighs by term weight · term boost · field boost · document boost, here 1 · boost · 1 · 1.
      sums[docId] = sums[docId]! + 1 * boost * 1 * 1 * raw;
    };
    if (freqs instanceof Map) {
      // forEach, not for…of: the iterator made a [key, value] array per posting.
      freqs.forEach((termFreq, docId) => score(docId, termFreq));
    } else {
      const { data, start, size } = freqs;
      for (let i = start, end = start + 2 * size; i < end; i += 2) score(data[i]!, data[i + 1]!);
    }
    return n;
  }
}
