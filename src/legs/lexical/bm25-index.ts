/**
 * The lexical leg: BM25 over memory text, with the identifier-aware tokenizer.
 *
 * Scoring is minisearch's BM25+ (`k1`, `b`, `d`), to the bit, summed over matching query terms
 * and multiplied by the number of distinct query terms matched, so covering more of the query
 * wins. Exact terms only: fuzzy and prefix matching are off because a near-miss identifier
 * (`ADR-070` for `ADR-007`, `#4812` for `#4821`) is a wrong answer, not a close one; the vector
 * leg covers paraphrase.
 *
 * The index keeps no text: SQLite does. Removal is exact all the same, because the caller hands
 * `remove` the text the memory was indexed with (the store reads it before deleting the row). A
 * stored copy was the texts' size again in memory and in every saved index (14 MB of 100k
 * memories' text, ~25 MiB of heap).
 *
 * The postings are a base of flat arrays read in place and the lists of what was added since
 * (`layered-postings.ts`): a loaded index answers and takes changes at once. minisearch itself,
 * which this index was built on, now only reads version 1 saves (its own JSON).
 */
import MiniSearch, { type AsPlainObject } from 'minisearch';
import { HybridMindError, invalid, messageOf, show } from '../../errors.js';
import { checkNonNegativeInt } from '../../util/int-checks.js';
import { isParted, joinParts, type PartedBytes } from '../../util/parted-bytes.js';
import { silentLogger, type Logger } from '../../logger.js';
import type { Accept, LexicalHit, LexicalIndex } from '../types.js';
import { decodeChanges, encodeChanges, encodeFlat, isBinary, readFlatParts, readHeader, readState, type BinaryHeader, type ReadState } from './flat-binary.js';
import { LayeredPostings, type Changes } from './layered-postings.js';
import { checkFlatState, flatOf, type FlatState } from './minisearch-state.js';
import { isCompound, queryTerms, TOKENIZER_VERSION } from './tokenizer.js';

export interface Bm25IndexOptions {
  /** Term-frequency saturation: higher lets repeats keep adding score. Default 1.2. */
  k1?: number | undefined;
  /** Length normalisation in [0, 1]: 0 ignores length, 1 fully penalises long texts. Default 0.7. */
  b?: number | undefined;
  /** BM25+ floor: what any match adds however long the text. Default 0.5. */
  d?: number | undefined;
  /**
   * Query-term weight of whole identifiers (`adr-007`, `#4821`, `v1.2.3`) relative to words and
   * parts, so a query naming an identifier prefers memories naming exactly it. Default 2.
   */
  identifierBoost?: number | undefined;
  /** Receives the index's warnings (a removal handed another text than was indexed). Default: dropped. */
  logger?: Logger | undefined;
}

type Params = Required<Omit<Bm25IndexOptions, 'logger'>>;

export const BM25_DEFAULTS: Readonly<Params> = Object.freeze({ k1: 1.2, b: 0.7, d: 0.5, identifierBoost: 2 });

const FORMAT = 'hybridmind.bm25';
/** A base and the changes since it (`LayeredPostings.forSave`). */
const FORMAT_VERSION = 5;
/** The state alone; still read, never written. */
const STATE_VERSION = 4;
/** Version 3 also held every text; still read, never written. */
const WITH_TEXTS_VERSION = 3;
/** Version 2 held the flat state as JSON, version 1 minisearch's own JSON (`index`); both still read, never written. */
const FLAT_JSON_VERSION = 2;
const NESTED_VERSION = 1;

interface Doc {
  no: number;
  text: string;
}

export class Bm25Index implements LexicalIndex {
  readonly #params: Params;
  readonly #logger: Logger;
  #postings: LayeredPostings;

  /**
   * @example
   * const lexical = new Bm25Index();
   * lexical.add(1, 'Decided in ADR-007 to keep SQLite');
   * lexical.search('ADR-007', 10); // [{ no: 1, score: …, matched: ['adr-007', 'adr', '007'] }]
   */
  constructor(options: Bm25IndexOptions = {}) {
    this.#params = resolveParams(options, 'Bm25Index');
    this.#logger = options.logger ?? silentLogger;
    this.#postings = LayeredPostings.empty();
  }

  /** Number of memories indexed. */
  get size(): number {
    return this.#postings.documentCount;
  }

  /** Distinct terms in the index (for stats; drops as soon as a memory holding a unique term is removed). */
  get termCount(): number {
    return this.#postings.termCount;
  }

  /** Indexes `text` under `no`, which must not be indexed yet: a new text replaces the old through `remove` first. */
  add(no: number, text: string): void {
    checkNo(no, 'Bm25Index.add');
    if (typeof text !== 'string') throw invalid('Bm25Index.add', 'text must be a string', text);
    if (this.has(no)) throw invalid('Bm25Index.add', `memory ${no} is already indexed; remove it with its text first`, no);
    this.#postings.add(no, text);
  }

  /**
   * Removes `no` and its postings, given the text it was indexed with (this index keeps none);
   * false if it was not indexed. Given another text (the store's file changed behind its back),
   * the postings still go, by a lookup in every term instead of only the text's.
   */
  remove(no: number, text: string): boolean {
    checkNo(no, 'Bm25Index.remove');
    if (typeof text !== 'string') throw invalid('Bm25Index.remove', 'text must be the text the memory was indexed with', text);
    if (!this.has(no)) return false;
    if (!this.#postings.remove(no, text)) {
      this.#logger('warn', `lexical index: memory ${no} was indexed with another text than the store holds now; removed by a sweep of every term`);
    }
    return true;
  }

  has(no: number): boolean {
    return this.#postings.has(no);
  }

  /**
   * Top `k` memories by BM25, best first (ties by ascending `no`); `accept` filters before the cut.
   *
   * @example
   * lexical.search('Order #4821', 5, (no) => !archived.has(no));
   */
  search(query: string, k: number, accept?: Accept): LexicalHit[] {
    if (typeof query !== 'string') throw invalid('Bm25Index.search', 'query must be a string', query);
    checkNonNegativeInt('Bm25Index.search', 'k', k);
    if (k === 0) return [];
    const boost = this.#params.identifierBoost;
    const bm25 = { k: this.#params.k1, b: this.#params.b, d: this.#params.d };
    const terms = queryTerms(query);
    const hits: LexicalHit[] = [];
    // Summed per term as minisearch's OR would (score sum × matched query terms): its OR merge
    // keeps each document's matched terms in an array it scans per term, quadratic in the terms a
    // long query shares with a long memory.
    const postings = this.#postings;
    postings.docs.top(postings, terms, (term) => (isCompound(term) ? boost : 1), bm25, k, accept, (size, scores, nos, shortIdOf, holds) => {
      for (let i = 0; i < size; i++) {
        const shortId = shortIdOf(nos[i]!);
        hits.push({ no: nos[i]!, score: scores[i]!, matched: terms.filter((_, t) => holds(t, shortId)) });
      }
    });
    return hits.sort((x, y) => y.score - x.score || x.no - y.no);
  }

  clear(): void {
    this.#postings = LayeredPostings.empty();
  }

  /** Folds many changes since the last fold into the flat base, as a save would (`LayeredPostings.compact`); whether it folded. */
  compact(): boolean {
    return this.#postings.compact();
  }

  /**
   * A versioned header and the postings in flat arrays (see `flat-binary.ts` and
   * `minisearch-state.ts`): the base as it was last saved (folded first when the changes since
   * are many), then the changes since it, so saving again after a few writes changes only the
   * bytes at the end.
   */
  save(): Uint8Array {
    const { base, changes } = this.#postings.forSave();
    const { terms, docs, postings, documentCount, nextId, averageFieldLength } = base;
    const counts = { documentCount, nextId, averageFieldLength };
    return encodeFlat({ format: FORMAT, version: FORMAT_VERSION, tokenizer: TOKENIZER_VERSION, params: this.#params, ...counts }, { ...counts, terms, docs, postings }, encodeChanges(changes));
  }

  /**
   * Restores a {@link Bm25Index.save} snapshot with its saved BM25 parameters (versions 1 to 3,
   * which also hold the texts, are still read). A snapshot from another tokenizer version is
   * rebuilt from its texts where it has them; without them it is `UNSUPPORTED`, and the store
   * rebuilds the index from its own rows. The bytes may come in parts (a store's saved value):
   * a save in the current layout is then read straight into the index's arrays. Throws `CORRUPT`
   * on malformed bytes and `UNSUPPORTED` on a snapshot format this version does not know.
   *
   * @example
   * const restored = Bm25Index.load(lexical.save());
   */
  static load(bytes: Uint8Array | PartedBytes, options: { logger?: Logger | undefined } = {}): Bm25Index {
    const method = 'Bm25Index.load';
    if (!(bytes instanceof Uint8Array)) {
      if (!isParted(bytes)) throw invalid(method, 'bytes must be a Uint8Array or parts of one', bytes);
      const read = readFlatParts(bytes, (header) => header['format'] === FORMAT && (header['version'] === FORMAT_VERSION || header['version'] === STATE_VERSION));
      if (read) return Bm25Index.#fromEnvelope(read.header, () => read.state, options);
      const joined = joinParts(bytes);
      if (joined === null) throw corrupt('the saved parts do not make a whole snapshot');
      bytes = joined;
    }
    const binary = isBinary(bytes);
    let parsed: unknown;
    let body = 0;
    try {
      if (binary) ({ header: parsed, body } = readHeader(bytes));
      else parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (cause) {
      throw corrupt(binary ? `the header is malformed: ${messageOf(cause)}` : `expected UTF-8 JSON or a binary snapshot, received ${bytes.byteLength} bytes that are neither`, cause);
    }
    if (!isRecord(parsed) || parsed['format'] !== FORMAT) {
      throw corrupt(`expected a ${FORMAT} snapshot, received format ${show(isRecord(parsed) ? parsed['format'] : parsed)}`);
    }
    const whole = bytes;
    return Bm25Index.#fromEnvelope(parsed, binary ? (withTexts) => readState(whole, parsed as BinaryHeader, body, withTexts) : null, options);
  }

  /** A parsed snapshot header (or JSON envelope) to an index; `binary` reads a binary save's state, null for a JSON one. */
  static #fromEnvelope(envelope: Record<string, unknown>, binary: ((withTexts: boolean) => ReadState) | null, options: { logger?: Logger | undefined }): Bm25Index {
    const method = 'Bm25Index.load';
    const version = envelope['version'];
    if (binary ? version !== FORMAT_VERSION && version !== STATE_VERSION && version !== WITH_TEXTS_VERSION : version !== FLAT_JSON_VERSION && version !== NESTED_VERSION) {
      throw new HybridMindError('UNSUPPORTED', method, `snapshot format version ${show(version)}, this build reads ${NESTED_VERSION} and ${FLAT_JSON_VERSION} (JSON), ${WITH_TEXTS_VERSION} to ${FORMAT_VERSION}`);
    }
    let params: Params;
    try {
      params = resolveParams(isRecord(envelope['params']) ? envelope['params'] : {}, method);
    } catch (cause) {
      throw corrupt(`invalid params ${show(envelope['params'])}`, cause);
    }
    const index = new Bm25Index({ ...params, ...(options.logger ? { logger: options.logger } : {}) });
    if (version === NESTED_VERSION) return index.#loadNested(envelope['index'], envelope['tokenizer']);
    let flat: FlatState;
    let changes: Changes | null = null;
    try {
      if (binary) {
        const { rest, ...state } = binary(version === WITH_TEXTS_VERSION);
        if (version === FORMAT_VERSION) changes = decodeChanges(rest);
        else if (rest.length > 0) throw new Error(`${rest.length} bytes follow the last section`);
        flat = { ...state, documentCount: envelope['documentCount'] as number, nextId: envelope['nextId'] as number, averageFieldLength: envelope['averageFieldLength'] as number };
      } else {
        flat = checkFlatJson(envelope['state']);
      }
    } catch (cause) {
      throw corrupt(`the index state is malformed: ${messageOf(cause)}`, cause);
    }
    if (envelope['tokenizer'] !== TOKENIZER_VERSION && flat.texts === undefined) {
      throw new HybridMindError('UNSUPPORTED', method, `the index was saved by tokenizer version ${show(envelope['tokenizer'])} and this build tokenizes with version ${TOKENIZER_VERSION}; it must be rebuilt from the memories' texts`);
    }
    try {
      if (envelope['tokenizer'] !== TOKENIZER_VERSION) {
        flat.texts!.forEach((text, i) => index.add(flat.docs[3 * i + 1]!, text));
        return index;
      }
      const checked = checkFlatState(flat);
      if (changes !== null && !checked.sorted) throw new Error('a base saved with changes must be in short id order');
      index.#postings = LayeredPostings.over(flat, checked);
      if (changes !== null) index.#postings.restore(changes, checkFlatState(changes.added));
    } catch (cause) {
      throw corrupt(`the index state is malformed: ${messageOf(cause)}`, cause);
    }
    return index;
  }

  /** Version 1: minisearch's own JSON. */
  #loadNested(nested: unknown, tokenizer: unknown): Bm25Index {
    const js = checkPlainIndex(nested);
    if (tokenizer !== TOKENIZER_VERSION) {
      for (const [shortId, no] of Object.entries(js.documentIds)) {
        this.add(no as number, (js.storedFields[shortId] as Doc).text);
      }
      return this;
    }
    let flat: FlatState;
    try {
      flat = flatOf(MiniSearch.loadJS<Doc>(js, { idField: 'no', fields: ['text'] }));
    } catch (cause) {
      throw corrupt('minisearch could not read the index', cause);
    }
    try {
      this.#postings = LayeredPostings.over(flat, checkFlatState(flat));
    } catch (cause) {
      throw corrupt(`the index state is malformed: ${messageOf(cause)}`, cause);
    }
    return this;
  }
}

function resolveParams(options: Bm25IndexOptions, method: string): Params {
  const params = {
    k1: options.k1 ?? BM25_DEFAULTS.k1,
    b: options.b ?? BM25_DEFAULTS.b,
    d: options.d ?? BM25_DEFAULTS.d,
    identifierBoost: options.identifierBoost ?? BM25_DEFAULTS.identifierBoost,
  };
  if (!isFiniteAtLeast(params.k1, 0)) throw invalid(method, 'k1 must be a finite number >= 0', params.k1);
  if (!isFiniteAtLeast(params.b, 0) || params.b > 1) throw invalid(method, 'b must be a number in [0, 1]', params.b);
  if (!isFiniteAtLeast(params.d, 0)) throw invalid(method, 'd must be a finite number >= 0', params.d);
  if (!isFiniteAtLeast(params.identifierBoost, 0) || params.identifierBoost === 0) {
    throw invalid(method, 'identifierBoost must be a finite number > 0', params.identifierBoost);
  }
  return params;
}

/** Version 2: the flat state as JSON arrays. */
function checkFlatJson(state: unknown): FlatState {
  if (!isRecord(state) || !Array.isArray(state['docs']) || !Array.isArray(state['texts']) || !Array.isArray(state['terms']) || !Array.isArray(state['postings'])) {
    throw new Error('state lacks docs, texts, terms or postings');
  }
  return state as unknown as FlatState;
}

function isFiniteAtLeast(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min;
}

function checkNo(no: unknown, method: string): void {
  checkNonNegativeInt(method, 'no', no);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function corrupt(message: string, cause?: unknown): HybridMindError {
  return new HybridMindError('CORRUPT', 'Bm25Index.load', message, cause === undefined ? undefined : { cause });
}

/** minisearch trusts its input; check what it would otherwise turn into a silently broken index. */
function checkPlainIndex(js: unknown): AsPlainObject {
  if (!isRecord(js)) throw corrupt(`index must be an object, received ${show(js)}`);
  const { documentIds, storedFields, fieldIds, fieldLength, averageFieldLength, index } = js;
  if (!isRecord(documentIds) || !isRecord(storedFields) || !isRecord(fieldLength)) {
    throw corrupt('index lacks documentIds, storedFields or fieldLength tables');
  }
  if (!isRecord(fieldIds) || fieldIds['text'] !== 0 || Object.keys(fieldIds).length !== 1) {
    throw corrupt(`index fields must be { text: 0 }, received ${show(fieldIds)}`);
  }
  if (!Array.isArray(averageFieldLength) || !Array.isArray(index)) {
    throw corrupt('index lacks averageFieldLength or the term list');
  }
  const ids = Object.entries(documentIds);
  if (js['documentCount'] !== ids.length || !isFiniteAtLeast(js['nextId'], ids.length)) {
    throw corrupt(`documentCount ${show(js['documentCount'])} and nextId ${show(js['nextId'])} disagree with ${ids.length} documents`);
  }
  for (const [shortId, no] of ids) {
    const stored = storedFields[shortId];
    if (!Number.isSafeInteger(no) || (no as number) < 0) throw corrupt(`document ${shortId} has no ${show(no)}`);
    if (!isRecord(stored) || typeof stored['text'] !== 'string') throw corrupt(`document ${show(no)} has no stored text`);
    if (!Array.isArray(fieldLength[shortId])) throw corrupt(`document ${show(no)} has no field length`);
  }
  for (const entry of index) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !isRecord(entry[1])) {
      throw corrupt(`index entry ${show(entry)} is not [term, postings]`);
    }
  }
  return js as unknown as AsPlainObject;
}
