/**
 * The lexical index's state in flat arrays: one text field with minisearch's BM25 statistics
 * (7.2.0, pinned in package.json), which the index's scores reproduce to the bit. minisearch's own
 * `toJSON`/`loadJS` form, which version 1 saves hold, nests every posting list as an object keyed
 * by stringified document numbers, which `loadJS` turns back into maps one `parseInt` at a time:
 * most of a store's cold open then. Flat number arrays parse several times faster and are read in
 * place (`frozen-postings.ts`); a version 1 save is read through minisearch once and flattened.
 */
import type MiniSearch from 'minisearch';
import { NumberPositions } from '../../util/number-positions.js';

/** The parts of minisearch's state a version 1 save is flattened from (private fields in its typings). */
interface Internals {
  _index: Iterable<[string, Map<number, Map<number, number>>]>;
  _documentCount: number;
  _nextId: number;
  _documentIds: Map<number, number>;
  _fieldLength: Map<number, number[]>;
  _avgFieldLength: number[];
}

/** One text field: per document its short id, memory number and length; per term its postings. */
export interface FlatState {
  documentCount: number;
  nextId: number;
  averageFieldLength: number;
  /** `[shortId, no, fieldLength]` per document, in increasing short id order as this build saves them. */
  docs: ArrayLike<number>;
  /**
   * Each document's text, in `docs` order: only in what version 3 (and the JSON versions) saved,
   * where a save from another tokenizer version is rebuilt from them. The index keeps no text.
   */
  texts?: string[] | undefined;
  /** In increasing order as this build saves them (older saves may not be), so a term is found by halving. */
  terms: string[];
  /** Per term, in `terms` order: its posting count n, then n pairs `shortId, term frequency`. */
  postings: ArrayLike<number>;
}

/** minisearch's id of the one field, `text`. */
const FIELD = 0;


/** What `checkFlatState` found while checking a state. */
export interface CheckedState {
  /** Per term, in `terms` order, where its posting count stands in `postings`. */
  offsets: Float64Array;
  /** Whether `terms` increase strictly, as this build saves them: a term is then found by halving. */
  termsSorted: boolean;
  /** Whether every term's postings come in increasing short id order, as minisearch adds them. */
  sorted: boolean;
}

/**
 * Checks a `FlatState` read from bytes; throws on state that would make a broken index (postings
 * of unknown documents, lengths that disagree, a term twice), so the caller rebuilds instead.
 */
export function checkFlatState(state: FlatState): CheckedState {
  const { docs, texts, terms, postings } = state;
  const count = docs.length / 3;
  if (!Number.isInteger(count) || (texts !== undefined && texts.length !== count) || state.documentCount !== count) throw new Error(`${count} documents, ${texts?.length ?? 'no'} texts, documentCount ${state.documentCount}`);
  // nextId counts every document ever added; past 2^31 (a bitmap of 2 GB below) it is not a real store's.
  if (!(Number.isSafeInteger(state.nextId) && state.nextId >= count && state.nextId <= 2 ** 31) || !(typeof state.averageFieldLength === 'number' && Number.isFinite(state.averageFieldLength) && state.averageFieldLength >= 0)) throw new Error('nextId or averageFieldLength out of range');
  // Which short ids name a document, as a bitmap: a posting's check is then an array read, not a
  // Map lookup (1.2M postings at 100k memories).
  const known = new Uint8Array(state.nextId);
  // Numbers that only go up cannot repeat; only others need the table that finds a repeat.
  let ascending = true;
  let previousNo = -1;
  for (let i = 0; i < count; i++) {
    const shortId = docs[3 * i]!;
    const no = docs[3 * i + 1]!;
    const length = docs[3 * i + 2]!;
    // isIndex written out (an open runs this loop before it is compiled); `% 1` alone would take a string of digits.
    if (typeof shortId !== 'number' || typeof no !== 'number' || typeof length !== 'number' || !(shortId % 1 === 0 && shortId >= 0 && shortId < state.nextId && no % 1 === 0 && no >= 0 && no <= Number.MAX_SAFE_INTEGER && length % 1 === 0 && length >= 0 && length <= Number.MAX_SAFE_INTEGER) || (texts !== undefined && typeof texts[i] !== 'string')) throw new Error(`document ${i} is malformed`);
    if (known[shortId] === 1) throw new Error(`short id ${shortId} appears twice`);
    known[shortId] = 1;
    if (no <= previousNo) ascending = false;
    previousNo = no;
  }
  if (!ascending && NumberPositions.of(Float64Array.from({ length: count }, (_, i) => docs[3 * i + 1]!)) === null) throw new Error('a memory number appears twice');
  const offsets = new Float64Array(terms.length);
  // Strictly increasing terms cannot repeat; only a save that is not in order needs the set.
  let termsSorted = true;
  let seen: Set<string> | null = null;
  for (let t = 0; t < terms.length; t++) {
    const term = terms[t];
    if (typeof term !== 'string') throw new Error(`term ${t} is not a string`);
    if (termsSorted && t > 0 && !(terms[t - 1]! < term)) {
      termsSorted = false;
      seen = new Set(terms.slice(0, t));
    }
    if (seen !== null) {
      if (seen.has(term)) throw new Error(`the term ${JSON.stringify(term)} appears twice`);
      seen.add(term);
    }
  }
  // A binary save's numbers are u32 already, so only their bounds need checking, in a loop of its own.
  const read = postings instanceof Uint32Array ? checkU32Postings(postings, terms.length, known, offsets) : checkPostings(postings, terms.length, known, offsets);
  if (read.end < 0) throw new Error(`postings of ${JSON.stringify(terms[-read.end - 1])} are malformed`);
  if (read.end !== postings.length) throw new Error('postings run past the terms');
  return { offsets, termsSorted, sorted: read.sorted };
}

/** Where the postings end (−(t + 1) when term t's are malformed), and whether each term's come in increasing short id order. */
type PostingsRead = { end: number; sorted: boolean };

/**
 * Per term, its posting count and pairs `shortId, term frequency` of known documents with a
 * frequency > 0, each term's start written to `offsets`. A loop for typed arrays alone: an open
 * runs it once over 2.4M numbers (100k memories) before the engine has compiled much, and the
 * whole check took 17–18 ms in a Chromium worker with the loop shared with JSON saves, 12–14.5 ms
 * with this one.
 */
function checkU32Postings(postings: Uint32Array, termCount: number, known: Uint8Array, offsets: Float64Array): PostingsRead {
  const length = postings.length;
  let sorted = true;
  let at = 0;
  for (let t = 0; t < termCount; t++) {
    const n = postings[at]!;
    if (!(n > 0 && 2 * n <= length - at - 1)) return { end: -(t + 1), sorted };
    offsets[t] = at++;
    let previous = -1;
    for (const end = at + 2 * n; at < end; at += 2) {
      const shortId = postings[at]!;
      if (known[shortId] !== 1 || postings[at + 1] === 0) return { end: -(t + 1), sorted };
      if (shortId <= previous) sorted = false;
      previous = shortId;
    }
  }
  return { end: at, sorted };
}

/** `checkU32Postings` for numbers that may be anything (a JSON save's). */
function checkPostings(postings: ArrayLike<number>, termCount: number, known: Uint8Array, offsets: Float64Array): PostingsRead {
  let sorted = true;
  let at = 0;
  for (let t = 0; t < termCount; t++) {
    const n = postings[at]!;
    if (!isIndex(n, Number.MAX_SAFE_INTEGER) || !(n > 0 && n <= (postings.length - at - 1) / 2)) return { end: -(t + 1), sorted };
    offsets[t] = at++;
    let previous = -1;
    for (const end = at + 2 * n; at < end; at += 2) {
      const shortId = postings[at]!;
      const tf = postings[at + 1]!;
      if (known[shortId] !== 1 || !(Number.isInteger(shortId) && Number.isSafeInteger(tf)) || !(tf > 0)) return { end: -(t + 1), sorted };
      if (shortId <= previous) sorted = false;
      previous = shortId;
    }
  }
  return { end: at, sorted };
}

function isIndex(value: unknown, max: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= max;
}

/**
 * The flat state of a minisearch index (a version 1 save, minisearch's own JSON, after `loadJS`):
 * its postings as it holds them, which `checkFlatState` then checks as any save's.
 */
export function flatOf(search: MiniSearch<{ no: number; text: string }>): FlatState {
  const m = search as unknown as Internals;
  const docs: number[] = [];
  for (const [shortId, no] of m._documentIds) docs.push(shortId, no, m._fieldLength.get(shortId)?.[FIELD] ?? 0);
  const terms: string[] = [];
  const postings: number[] = [];
  for (const [term, fields] of m._index) {
    const freqs = fields.get(FIELD);
    if (freqs === undefined || freqs.size === 0) continue;
    terms.push(term);
    postings.push(freqs.size);
    freqs.forEach((tf, shortId) => postings.push(shortId, tf));
  }
  return { documentCount: m._documentCount, nextId: m._nextId, averageFieldLength: m._avgFieldLength[FIELD] ?? 0, docs, terms, postings };
}
