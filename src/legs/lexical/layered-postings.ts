/**
 * The lexical index's postings in two layers: a base of flat arrays read in place (a save's, or
 * the last fold's), and minisearch's maps of the documents added since. A removal from the base
 * leaves its postings there and counts them out of each term's document frequency, so the base
 * is never rewritten but by a fold, which merges both layers into a new base (`mergeState`).
 *
 * Why two layers: minisearch keeps a map per term and per posting list, 73 MiB of heap at 100k
 * memories that every full collection traces, against ~15 MiB of arrays outside the heap. A
 * reopened store now answers, and takes writes, from its saved arrays without filling maps from
 * them; writes fill maps only until a fold, when the documents added since reach a quarter of
 * all, and at every save.
 *
 * Scores are the ones one minisearch index holding the same documents would give, to the bit:
 * document frequencies, the document count and minisearch's running average of field lengths
 * (kept here with its arithmetic, add by add and removal by removal) are the same numbers.
 */
import MiniSearch, { type Options } from 'minisearch';
import { NumberPositions } from '../../util/number-positions.js';
import { FrozenPostings } from './frozen-postings.js';
import { mergeState } from './merge-state.js';
import { FIELD, indexedWith, internals, removeWithoutText } from './minisearch-state.js';
import { DocTable, SplitList, type Postings, type TermSource } from './term-scores.js';
import { tokenize } from './tokenizer.js';

type Doc = { no: number; text: string };

/** Documents added since the base that start a fold, at least; fewer fold at a save. */
const FOLD_FLOOR = 8192;
/** …and as a share of every document held, so the folds' work stays in proportion to the adds. */
const FOLD_SHARE = 0.25;

export class LayeredPostings implements TermSource {
  /** Every document of both layers by short id, kept in step by each change. */
  readonly docs: DocTable;
  readonly #options: Options<Doc>;
  #base: FrozenPostings | null;
  /** Memory number → base short id, made by the first change after a load or fold that needs it. */
  #baseIds: NumberPositions | null = null;
  /** Per base term (by index), how many of its postings name documents removed since. */
  #gone: Int32Array | null = null;
  /** Base terms whose every posting names a removed document. */
  #goneTerms = 0;
  /** The documents added since the base, with short ids from the base's `nextId` on. */
  #added: MiniSearch<Doc>;
  #count: number;
  #average: number;

  private constructor(options: Options<Doc>, base: FrozenPostings | null, added: MiniSearch<Doc>, docs: DocTable, count: number, average: number) {
    this.#options = options;
    this.#base = base;
    this.#added = added;
    this.docs = docs;
    this.#count = count;
    this.#average = average;
  }

  static empty(options: Options<Doc>): LayeredPostings {
    return new LayeredPostings(options, null, new MiniSearch(options), new DocTable(), 0, 0);
  }

  /** A saved state read in place as the base. */
  static over(options: Options<Doc>, base: FrozenPostings): LayeredPostings {
    const { docs, nextId, documentCount, averageFieldLength } = base.state;
    return new LayeredPostings(options, base, addedAfter(options, nextId), DocTable.fromDocs(docs, nextId), documentCount, averageFieldLength);
  }

  /** minisearch's own index (an older save's), with no base under it until the first fold. */
  static of(options: Options<Doc>, search: MiniSearch<Doc>): LayeredPostings {
    return new LayeredPostings(options, null, search, DocTable.of(search), search.documentCount, internals(search)._avgFieldLength[FIELD] ?? 0);
  }

  get documentCount(): number {
    return this.#count;
  }

  get averageLength(): number {
    return this.#average;
  }

  get lingering(): number {
    return internals(this.#added)._dirtCount;
  }

  /** Distinct terms some held document holds. */
  get termCount(): number {
    const base = this.#base;
    let count = (base?.termCount ?? 0) - this.#goneTerms;
    for (const [term] of internals(this.#added)._index) {
      const t = base === null ? -1 : base.find(term);
      if (t < 0 || this.#liveAt(t) === 0) count++;
    }
    return count;
  }

  has(no: number): boolean {
    return this.#added.has(no) || this.#baseIdOf(no) >= 0;
  }

  postings(term: string): Postings | undefined {
    const upper = internals(this.#added)._index.get(term)?.get(FIELD);
    const base = this.#base;
    const t = base === null ? -1 : base.find(term);
    if (t < 0) return upper;
    const lower = base!.listAt(t, this.#gone?.[t] ?? 0);
    // Every base posting names a removed document: the term is the added layer's alone, and its dead list is not walked.
    if (lower.df === 0) return upper;
    return upper === undefined ? lower : new SplitList(lower, upper, base!.state.nextId);
  }

  /** Indexes `text` under `no`, which neither layer holds. */
  add(no: number, text: string): void {
    this.#added.add({ no, text });
    this.docs.added(this.#added, no);
    const length = this.docs.lengthOf(internals(this.#added)._idToShortId.get(no)!);
    // minisearch's running average, operation for operation (`addFieldLength`).
    this.#average = (this.#average * this.#count + length) / (this.#count + 1);
    this.#count += 1;
    if (this.#added.documentCount >= Math.max(FOLD_FLOOR, FOLD_SHARE * this.#count)) this.fold();
  }

  /**
   * Removes `no`, which one layer holds, given the text it was indexed with; false when it was
   * indexed with another text, and its postings were found by a sweep of every term instead.
   */
  remove(no: number, text: string): boolean {
    const terms = new Set(tokenize(text));
    let shortId = internals(this.#added)._idToShortId.get(no);
    let exact: boolean;
    if (shortId !== undefined) {
      exact = indexedWith(this.#added, no, terms);
      this.docs.removing(this.#added, no);
      if (exact) this.#added.remove({ no, text });
      else removeWithoutText(this.#added, no);
    } else {
      shortId = this.#baseIdOf(no);
      exact = this.#removeFromBase(shortId, terms);
      this.docs.forget(shortId);
    }
    const length = this.docs.lengthOf(shortId);
    // minisearch's `removeFieldLength`, operation for operation.
    this.#average = this.#count === 1 ? 0 : (this.#average * this.#count - length) / (this.#count - 1);
    this.#count -= 1;
    return exact;
  }

  /** Counts the base document `shortId` out of its terms' frequencies; false when `terms` were not its terms. */
  #removeFromBase(shortId: number, terms: ReadonlySet<string>): boolean {
    const base = this.#base!;
    const found = [...terms].map((term) => base.find(term));
    const exact = this.docs.lengthOf(shortId) === terms.size && found.every((t) => t >= 0 && base.listAt(t).has(shortId));
    const gone = (this.#gone ??= new Int32Array(base.termCount));
    const drop = (t: number): void => {
      gone[t] = gone[t]! + 1;
      if (gone[t] === base.sizeAt(t)) this.#goneTerms++;
    };
    if (exact) found.forEach(drop);
    else for (let t = 0; t < base.termCount; t++) if (base.listAt(t).has(shortId)) drop(t);
    return exact;
  }

  /** Base postings of the term at index `t` that name held documents. */
  #liveAt(t: number): number {
    return this.#base!.sizeAt(t) - (this.#gone?.[t] ?? 0);
  }

  /** The base short id of `no` while the base holds it, else −1. */
  #baseIdOf(no: number): number {
    const base = this.#base;
    if (base === null) return -1;
    this.#baseIds ??= baseIds(base.state.docs);
    const shortId = this.#baseIds.get(no);
    return shortId >= 0 && this.docs.holds(shortId) ? shortId : -1;
  }

  /** Both layers merged into a new base (the same one when nothing changed since), which it returns. */
  fold(): FrozenPostings {
    const added = internals(this.#added);
    if (this.#base !== null && added._nextId === this.#base.state.nextId && this.#gone === null) return this.#base;
    const { state, checked } = mergeState(this.#base, this.#added, this.docs, this.#count, this.#average);
    this.#base = FrozenPostings.of(state, checked)!;
    this.#added = addedAfter(this.#options, state.nextId);
    this.#baseIds = null;
    this.#gone = null;
    this.#goneTerms = 0;
    return this.#base;
  }
}

/** An empty minisearch index that hands out short ids from `nextId` on, after a base's. */
function addedAfter(options: Options<Doc>, nextId: number): MiniSearch<Doc> {
  const search = new MiniSearch(options);
  internals(search)._nextId = nextId;
  return search;
}

/** Memory number → short id of a flat state's documents (`[shortId, no, length]` each). */
function baseIds(docs: ArrayLike<number>): NumberPositions {
  const count = docs.length / 3;
  const nos = new Float64Array(count);
  const shortIds = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    shortIds[i] = docs[3 * i]!;
    nos[i] = docs[3 * i + 1]!;
  }
  // The load refused a state whose numbers repeat, and a fold writes each document once.
  return NumberPositions.of(nos, shortIds)!;
}
