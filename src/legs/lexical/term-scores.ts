/**
 * BM25+ scores of exact terms, read straight from the postings (a saved base's flat arrays, the
 * lists of what was added since, or both: `layered-postings.ts`) and the `DocTable` beside them.
 * The arithmetic is minisearch's own (7.2.0, pinned in package.json), operation for operation, so
 * every score is the one its `search` returns for that single term over the same documents; what
 * is skipped is the result object `search` builds per matching document (id lookup, stored-field
 * copy, match map) and the sort of them all, which were half of the lexical leg's time and most
 * of the graph leg's at 100k memories. test/lexical-term-scores.test.ts compares every score with
 * minisearch's own `search`, so a difference fails there rather than in a ranking.
 */
import type { Accept } from '../types.js';
import { heapPush } from '../../util/top-heap.js';
import { ForwardLookup } from './forward-lookup.js';

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
  /** The documents it names that are still held: `size` less those removed since the arrays were saved. */
  readonly df: number;
  has(shortId: number): boolean;
  /** The term frequency of `shortId`, 0 when it is not in the list. */
  tfOf(shortId: number): number;
}

/**
 * One term's postings in a saved base, whose short ids are below `from`, and in the lists of the
 * documents added since, whose short ids are `from` and up.
 */
export class SplitList {
  constructor(
    readonly lower: FlatList,
    readonly upper: FlatList,
    readonly from: number,
  ) {}

  get size(): number {
    return this.lower.size + this.upper.size;
  }

  get df(): number {
    return this.lower.df + this.upper.df;
  }

  has(shortId: number): boolean {
    return shortId < this.from ? this.lower.has(shortId) : this.upper.has(shortId);
  }

  tfOf(shortId: number): number {
    return shortId < this.from ? this.lower.tfOf(shortId) : this.upper.tfOf(shortId);
  }
}

/** One term's postings, short id → term frequency in increasing short id order. */
export type Postings = FlatList | SplitList;

/**
 * Where the scores read one text field's statistics and postings from. A list may name documents
 * removed since it was written (a saved base's do): its `df` leaves them out, and the walk skips
 * the short ids the `DocTable` no longer holds.
 */
export interface TermSource {
  readonly documentCount: number;
  readonly averageLength: number;
  postings(term: string): Postings | undefined;
}

const NONE = -1;
/** Postings below which a list is walked whatever else: skipping it saves less than planning to. */
const MIN_SKIPPED = 2048;

/**
 * Per short id, the memory number and field length, kept in step by the index that hands the short
 * ids out. Short ids are handed out in sequence and never reused, so the arrays are as long as the
 * documents ever added. What a walk reads for every posting, whether the document is held and its
 * length, lies in arrays of a byte and four bytes per document, so that at 1M memories they stay
 * in the cache where one array of all four numbers (32 MB) did not: a walk of 95k documents spent
 * ~9 of its ~12 ms waiting for those reads.
 */
export class DocTable {
  /** Memory number per short id, NONE where none is held. */
  #nos = new Float64Array(0);
  /** 1 where a document is held: what a walk asks of every posting. */
  #held = new Uint8Array(0);
  #lengths = new Uint32Array(0);
  /** Terms matched per document met by the MaxScore walk; zero between calls of `top`. */
  #counts = new Int32Array(0);
  #touched = new Int32Array(0);

  /**
   * The table of the documents of a flat state (`[shortId, no, fieldLength]` each, short ids below
   * `nextId`), made at its size at once and filled in one loop: an open runs this before the
   * engine has compiled it, where a call per document costs.
   */
  static fromDocs(docs: ArrayLike<number>, nextId: number): DocTable {
    const table = new DocTable();
    table.#grow(nextId);
    const nos = table.#nos;
    const held = table.#held;
    const lengths = table.#lengths;
    for (let i = 0; i < docs.length; i += 3) {
      nos[docs[i]!] = docs[i + 1]!;
      held[docs[i]!] = 1;
      lengths[docs[i]!] = docs[i + 2]!;
    }
    return table;
  }

  /** Forgets the document under `shortId`, whose postings may stay behind (a saved base's do). */
  forget(shortId: number): void {
    if (shortId >= this.#touched.length) return;
    this.#nos[shortId] = NONE;
    this.#held[shortId] = 0;
  }

  /** Whether a document is held under `shortId`. */
  holds(shortId: number): boolean {
    return shortId < this.#touched.length && this.#held[shortId] === 1;
  }

  /** The field length of the document under `shortId`. */
  lengthOf(shortId: number): number {
    return this.#lengths[shortId]!;
  }

  /** Records the document `no` of `length` distinct terms under `shortId`. */
  put(shortId: number, no: number, length: number): void {
    const capacity = this.#touched.length;
    if (shortId >= capacity) this.#grow(Math.max(shortId + 1, 2 * capacity, 1024));
    this.#nos[shortId] = no;
    this.#held[shortId] = 1;
    this.#lengths[shortId] = length;
  }

  /** Room for short ids below `capacity`, the new ones holding no document. */
  #grow(capacity: number): void {
    const before = this.#touched.length;
    if (capacity <= before) return;
    const nos = new Float64Array(capacity).fill(NONE, before);
    nos.set(this.#nos);
    this.#nos = nos;
    const held = new Uint8Array(capacity);
    held.set(this.#held);
    this.#held = held;
    const lengths = new Uint32Array(capacity);
    lengths.set(this.#lengths);
    this.#lengths = lengths;
    this.#counts = new Int32Array(capacity);
    this.#touched = new Int32Array(capacity);
  }

  /**
   * The best `k` documents by their summed score times the number of `terms` they hold (ties by
   * smaller memory number), asking `accept` only about those that would make the cut, and handed
   * to `use` as a heap (`scores`, `nos`; unordered) with each one's short id.
   *
   * Terms are taken from the highest possible score down, each document scored in full over every
   * term the first time it is met; once what documents not met yet could score at most is below
   * the `k`-th score kept, the remaining lists are not walked. A common term among rare ones (a
   * tenth of the store) is then only looked up for the rare ones' documents, instead of summed
   * over its whole list (MaxScore, Turtle and Flood 1995). When that would not pay, every list is
   * walked at once (`#merged`), and one term's list alone (`#single`). Every path adds a
   * document's terms in the terms' order with minisearch's arithmetic, so each gives the others'
   * answer to the last bit.
   */
  top(source: TermSource, terms: readonly string[], boostOf: (term: string) => number, bm25: Bm25Params, k: number, accept: Accept | undefined, use: (size: number, scores: Float64Array, nos: Int32Array, shortIdOf: (no: number) => number, holds: (term: number, shortId: number) => boolean) => void): void {
    const lists = terms.map((term) => source.postings(term));
    const holds = holdsIn(lists);
    // No more than the postings can name, whatever `k` a caller asks for.
    const keep = Math.min(k, lists.reduce((sum, list) => sum + (list?.size ?? 0), 0));
    const scores = new Float64Array(keep);
    const nos = new Int32Array(keep);
    const shortIds = new Map<number, number>();
    const shortIdOf = (no: number): number => shortIds.get(no)!;
    let size = 0;
    const offer = (score: number, no: number, shortId: number): void => {
      if (size === keep && !(score > scores[0]! || (score === scores[0]! && no < nos[0]!))) return;
      if (accept && !accept(no)) return;
      size = heapPush(scores, nos, size, keep, score, no);
      shortIds.set(no, shortId);
    };
    if (keep === 0) return use(0, scores, nos, shortIdOf, holds);
    const floor = () => (size === keep ? scores[0]! : -Infinity);
    const walked = lists.filter((list) => list !== undefined).length;
    if (walked === 1) {
      const t = lists.findIndex((list) => list !== undefined);
      this.#single(source, lists[t]!, boostOf(terms[t]!), bm25, floor, offer);
    } else if (walked > 1 && !this.#pruned(source, terms, lists, boostOf, bm25, floor, offer)) {
      size = 0;
      shortIds.clear();
      this.#merged(source, terms, lists, boostOf, bm25, floor, offer);
    }
    use(size, scores, nos, shortIdOf, holds);
  }

  /**
   * `top` for one term: each document's score is its one term's, so the walk offers a document
   * only when it reaches the heap's cut. Summed into the table and read back whole, a common
   * term's list (109k postings of a 1M store) took ~20 ms. The score is the sum's to the bit:
   * 0 + boost · raw, times one matched term.
   */
  #single(source: TermSource, list: Postings, boost: number, bm25: Bm25Params, floor: () => number, offer: (score: number, no: number, shortId: number) => void): void {
    const idf = invDocFreqOf(source.documentCount, list.df);
    for (const part of partsOf(list)) this.#singleWalk(part, idf, boost, bm25, source.averageLength, floor, offer);
  }

  #singleWalk(list: FlatList, idf: number, boost: number, bm25: Bm25Params, avgFieldLength: number, floor: () => number, offer: (score: number, no: number, shortId: number) => void): void {
    const { k: k1, b, d } = bm25;
    const held = this.#held;
    const lengths = this.#lengths;
    const { data, start, size } = list;
    let bar = floor();
    for (let i = start, end = start + 2 * size; i < end; i += 2) {
      const docId = data[i]!;
      // Removed from a saved base (past the table's end reads undefined, not 1).
      if (held[docId] !== 1) continue;
      const score = 1 * boost * 1 * 1 * termScore(idf, data[i + 1]!, lengths[docId]!, avgFieldLength, k1, b, d);
      // Below the cut it cannot enter; equal to it, `offer` decides by number.
      if (score < bar) continue;
      offer(score, this.#nos[docId]!, docId);
      bar = floor();
    }
  }

  /**
   * One list of `#pruned`'s walk: each document not met before is scored in full, its other terms'
   * frequencies from `others` (null for a term walked already or absent); `n` documents were met
   * before, the count after is returned.
   */
  #prunedWalk(part: FlatList, walking: number, others: ReadonlyArray<ForwardLookup | null>, boosts: readonly number[], idfs: readonly number[], bm25: Bm25Params, avgFieldLength: number, n: number, offer: (score: number, no: number, shortId: number) => void): number {
    const { k: k1, b, d } = bm25;
    const held = this.#held;
    const lengths = this.#lengths;
    const counts = this.#counts;
    const touched = this.#touched;
    const { data, start, size } = part;
    for (let i = start, end = start + 2 * size; i < end; i += 2) {
      const docId = data[i]!;
      // Removed from a saved base, or met in a list walked before.
      if (held[docId] !== 1 || counts[docId] !== 0) continue;
      const fieldLength = lengths[docId]!;
      let sum = 0;
      let count = 0;
      for (let t = 0; t < others.length; t++) {
        const tf = t === walking ? data[i + 1]! : (others[t]?.tfOf(docId) ?? 0);
        if (tf === 0) continue;
        sum = sum + 1 * boosts[t]! * 1 * 1 * termScore(idfs[t]!, tf, fieldLength, avgFieldLength, k1, b, d);
        count++;
      }
      counts[docId] = count;
      touched[n++] = docId;
      offer(sum * count, this.#nos[docId]!, docId);
    }
    return n;
  }

  /** `top`'s walk from the highest-scoring term down; false, having offered nothing, when it would not pay. */
  #pruned(source: TermSource, terms: readonly string[], lists: Array<Postings | undefined>, boostOf: (term: string) => number, bm25: Bm25Params, floor: () => number, offer: (score: number, no: number, shortId: number) => void): boolean {
    const { k: k1, d } = bm25;
    const total = source.documentCount;
    const avgFieldLength = source.averageLength;
    const boosts = terms.map(boostOf);
    const idfs = lists.map((list) => (list === undefined ? 0 : invDocFreqOf(total, list.df)));
    // A term adds at most idf · (d + k1 + 1) · boost: its frequency part tends to k1 + 1 from below. The
    // margin covers rounding, so a bound is never below a score it stands for.
    const bound = (t: number) => idfs[t]! * (d + k1 + 1) * boosts[t]! * (1 + 1e-9);
    const order = terms.map((_, t) => t).filter((t) => lists[t] !== undefined).sort((x, y) => bound(y) - bound(x));
    // Each document met is looked up in the lists not walked yet, which costs about what walking a
    // posting does: worth it only when the last list, the one most likely skipped, outweighs those
    // lookups. Otherwise the full walk is as fast or faster: without this check the lexical leg at
    // 100k memories, where most lists are short, was a fifth slower than the full walk.
    const sizeOf = (t: number) => lists[t]!.size;
    const last = sizeOf(order[order.length - 1]!);
    const before = order.slice(0, -1).reduce((sum, t) => sum + sizeOf(t), 0);
    if (last < MIN_SKIPPED || last < (order.length - 1) * before) return false;
    const rest = new Float64Array(order.length + 1);
    for (let j = order.length - 1; j >= 0; j--) rest[j] = rest[j + 1]! + bound(order[j]!);
    const done = new Uint8Array(terms.length);
    const counts = this.#counts;
    const touched = this.#touched;
    let n = 0;
    try {
      for (let j = 0; j < order.length; j++) {
        // A document met in none of the lists walked so far holds only the remaining terms.
        if (rest[j]! * (order.length - j) < floor()) break;
        const walking = order[j]!;
        // The walk meets short ids in increasing order (a split list's lower part first), so the
        // lists it looks them up in are read forward.
        const others = lists.map((list, t) => (t === walking || done[t] === 1 || list === undefined ? null : forwardLookup(list)));
        for (const part of partsOf(lists[walking]!)) n = this.#prunedWalk(part, walking, others, boosts, idfs, bm25, avgFieldLength, n, offer);
        done[walking] = 1;
      }
      return true;
    } finally {
      for (let i = 0; i < n; i++) counts[touched[i]!] = 0;
    }
  }

  /**
   * `top`'s walk of every list at once, document by document in increasing short id order: each
   * document's score is summed over its terms in the terms' order, as minisearch's OR adds them,
   * times how many it holds, and offered only when it reaches the heap's cut. Summed term by term
   * instead, each posting added to its document's running sum in the table, which was then read
   * back whole and cleared; here a document's sum stays a local, and the table is only read.
   */
  #merged(source: TermSource, terms: readonly string[], lists: ReadonlyArray<Postings | undefined>, boostOf: (term: string) => number, bm25: Bm25Params, floor: () => number, offer: (score: number, no: number, shortId: number) => void): void {
    const { k: k1, b, d } = bm25;
    const avgFieldLength = source.averageLength;
    const boosts = terms.map(boostOf);
    const idfs = lists.map((list) => (list === undefined ? 0 : invDocFreqOf(source.documentCount, list.df)));
    // One cursor per term, a repeated term too: it counts, and adds, once per time it is asked.
    const cursors = lists.map((list) => (list === undefined ? null : new PairCursor(list)));
    const held = this.#held;
    const lengths = this.#lengths;
    let bar = floor();
    for (;;) {
      let docId = Infinity;
      for (const cursor of cursors) if (cursor !== null && cursor.shortId < docId) docId = cursor.shortId;
      if (docId === Infinity) return;
      // Removed from a saved base: its postings stay until a fold, and `df` never counted it.
      const live = held[docId] === 1;
      const fieldLength = live ? lengths[docId]! : 0;
      let sum = 0;
      let count = 0;
      for (let t = 0; t < cursors.length; t++) {
        const cursor = cursors[t]!;
        if (cursor === null || cursor.shortId !== docId) continue;
        if (live) {
          // minisearch weighs by term weight · term boost · field boost · document boost, here 1 · boost · 1 · 1.
          sum = sum + 1 * boosts[t]! * 1 * 1 * termScore(idfs[t]!, cursor.termFreq, fieldLength, avgFieldLength, k1, b, d);
          count++;
        }
        cursor.next();
      }
      if (!live) continue;
      const score = sum * count;
      // Below the cut it cannot enter; equal to it, `offer` decides by number.
      if (score < bar) continue;
      offer(score, this.#nos[docId]!, docId);
      bar = floor();
    }
  }

  /** The memory number under `shortId`. */
  noOf(shortId: number): number {
    return this.#nos[shortId]!;
  }
}

/** A list's flat parts in increasing short id order: a split list's lower part, then its upper. */
export function partsOf(list: Postings): readonly FlatList[] {
  return list instanceof SplitList ? [list.lower, list.upper] : [list];
}

/** One term's postings read pair by pair in increasing short id order, a split list's lower part first. */
class PairCursor {
  shortId = Infinity;
  termFreq = 0;
  readonly #parts: readonly FlatList[];
  #part = 0;
  #at: number;
  #end: number;

  constructor(list: Postings) {
    this.#parts = partsOf(list);
    this.#at = this.#parts[0]!.start;
    this.#end = this.#at + 2 * this.#parts[0]!.size;
    this.#read();
  }

  /** Moves to the next pair; `shortId` is Infinity past the last. */
  next(): void {
    this.#at += 2;
    this.#read();
  }

  #read(): void {
    while (this.#at === this.#end && this.#part < this.#parts.length - 1) {
      const next = this.#parts[++this.#part]!;
      this.#at = next.start;
      this.#end = next.start + 2 * next.size;
    }
    if (this.#at < this.#end) {
      const { data } = this.#parts[this.#part]!;
      this.shortId = data[this.#at]!;
      this.termFreq = data[this.#at + 1]!;
    } else {
      this.shortId = Infinity;
    }
  }
}

/** A term's inverse document frequency, minisearch's expression operation for operation. */
function invDocFreqOf(total: number, matching: number): number {
  return Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
}

/** Whether the document `shortId` holds the term at position `term` of `lists`. */
function holdsIn(lists: ReadonlyArray<Postings | undefined>): (term: number, shortId: number) => boolean {
  return (term, shortId) => lists[term]?.has(shortId) ?? false;
}

/** One term's BM25+ score in one document, minisearch's expression operation for operation. */
function termScore(invDocFreq: number, termFreq: number, fieldLength: number, avgFieldLength: number, k: number, b: number, d: number): number {
  return invDocFreq * (d + (termFreq * (k + 1)) / (termFreq + k * (1 - b + (b * fieldLength) / avgFieldLength)));
}

function forwardLookup(list: Postings): ForwardLookup {
  return list instanceof SplitList ? new ForwardLookup(list.lower, list.upper, list.from) : new ForwardLookup(list);
}
