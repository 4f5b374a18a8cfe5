/**
 * The lexical index's postings in two layers: a base of flat arrays read in place (a save's, or
 * the last fold's), and the lists of the documents added since (`added-postings.ts`). A removal
 * from the base leaves its postings there and counts them out of each term's document frequency,
 * so the base is never rewritten but by a fold, which merges both layers into a new base
 * (`mergeState`).
 *
 * Why two layers: one array per term that every add could grow in place would be a Map of
 * growing arrays over the whole store, which every full collection traces (minisearch's maps,
 * which this index was, took 73 MiB of heap at 100k memories); the base's arrays take ~15 MiB
 * outside the heap. A reopened store answers, and takes writes, from its saved arrays as they
 * are; writes fill the added lists until a fold, when the documents added since reach a quarter
 * of all, and at every save.
 *
 * Scores are the ones one minisearch index holding the same documents would give, to the bit:
 * document frequencies, the document count and minisearch's running average of field lengths
 * (kept here with its arithmetic, add by add and removal by removal) are the same numbers.
 */
import { NumberPositions } from '../../util/number-positions.js';
import { foldsChanges } from '../../util/saved-changes.js';
import { AddedPostings } from './added-postings.js';
import { FrozenPostings } from './frozen-postings.js';
import { mergeState } from './merge-state.js';
import type { CheckedState, FlatState } from './minisearch-state.js';
import { DocTable, SplitList, type Postings, type TermSource } from './term-scores.js';
import { tokenize } from './tokenizer.js';

/** Documents added since the base that start a fold, at least; fewer fold at a save. */
const FOLD_FLOOR = 8192;
/** …and as a share of every document held, so the folds' work stays in proportion to the adds. */
const FOLD_SHARE = 0.25;

/** What changed since the base, as a save writes it after the base's own bytes. */
export interface Changes {
  /** Documents held after every change, and minisearch's running average of their lengths. */
  count: number;
  average: number;
  /** Base short ids of the documents removed since. */
  removed: number[];
  /** Per base term that lost postings to them: its index and how many, pair by pair. */
  gone: number[];
  /** The documents added since, their short ids from the base's `nextId` on. */
  added: FlatState;
}

export class LayeredPostings implements TermSource {
  /** Every document of both layers by short id, kept in step by each change. */
  readonly docs: DocTable;
  #base: FrozenPostings | null;
  /** Memory number → base short id, made by the first change after a load or fold that needs it. */
  #baseIds: NumberPositions | null = null;
  /** Per base term (by index), how many of its postings name documents removed since. */
  #gone: Int32Array | null = null;
  /** Base terms whose every posting names a removed document. */
  #goneTerms = 0;
  /** The documents added since the base, with short ids from the base's `nextId` on. */
  #added: AddedPostings;
  #count: number;
  #average: number;

  private constructor(base: FrozenPostings | null, docs: DocTable, count: number, average: number) {
    this.#base = base;
    this.#added = new AddedPostings(base?.state.nextId ?? 0);
    this.docs = docs;
    this.#count = count;
    this.#average = average;
  }

  static empty(): LayeredPostings {
    return new LayeredPostings(null, new DocTable(), 0, 0);
  }

  /**
   * A saved state, checked by `checkFlatState` (which found `checked`), read in place as the base;
   * merged into short id order first when a term's postings are not in it, which older builds
   * could write and a lookup by halving cannot read.
   */
  static over(state: FlatState, checked: CheckedState): LayeredPostings {
    const { docs, nextId, documentCount, averageFieldLength } = state;
    const layered = new LayeredPostings(FrozenPostings.of(state, checked), DocTable.fromDocs(docs, nextId), documentCount, averageFieldLength);
    if (!checked.sorted) layered.#merge();
    return layered;
  }

  get documentCount(): number {
    return this.#count;
  }

  get averageLength(): number {
    return this.#average;
  }

  /** Distinct terms some held document holds. */
  get termCount(): number {
    const base = this.#base;
    let count = (base?.termCount ?? 0) - this.#goneTerms;
    for (const term of this.#added.terms()) {
      const t = base === null ? -1 : base.find(term);
      if (t < 0 || this.#liveAt(t) === 0) count++;
    }
    return count;
  }

  has(no: number): boolean {
    return this.#added.shortIdOf(no) !== undefined || this.#baseIdOf(no) >= 0;
  }

  postings(term: string): Postings | undefined {
    const upper = this.#added.postings(term);
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
    const length = this.#added.add(no, text, this.docs);
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
    const added = this.#added.shortIdOf(no);
    const shortId = added ?? this.#baseIdOf(no);
    const exact = added === undefined ? this.#removeFromBase(shortId, terms) : this.#added.remove(no, terms, this.docs);
    const length = this.docs.lengthOf(shortId);
    // minisearch's `removeFieldLength`, operation for operation.
    this.#average = this.#count === 1 ? 0 : (this.#average * this.#count - length) / (this.#count - 1);
    this.#count -= 1;
    return exact;
  }

  /** Counts the base document `shortId` out of its terms' frequencies and forgets it; false when `terms` were not its terms. */
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
    this.docs.forget(shortId);
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

  /**
   * What a save writes: the base, and the changes since it. The base is the bytes it was at the
   * last save, so a store writes only the pages of the changes (a fold moves every byte: 12.5 MB at
   * 100k memories for one new one); many changes (`foldsChanges`) are folded in first, since an
   * open rebuilds them.
   */
  forSave(): { base: FlatState; changes: Changes } {
    let removed = this.#removed();
    if (this.#base === null || foldsChanges(this.#added.documentCount + removed.length, this.#count)) {
      this.fold();
      removed = [];
    }
    const gone: number[] = [];
    this.#gone?.forEach((count, t) => {
      if (count > 0) gone.push(t, count);
    });
    return { base: this.#base!.state, changes: { count: this.#count, average: this.#average, removed, gone, added: this.#added.flat(this.docs) } };
  }

  /** Base short ids of the documents removed since the base. */
  #removed(): number[] {
    const docs = this.#base?.state.docs ?? [];
    const removed: number[] = [];
    for (let i = 0; i < docs.length; i += 3) if (!this.docs.holds(docs[i]!)) removed.push(docs[i]!);
    return removed;
  }

  /**
   * Applies `changes` (what `forSave` wrote after this base; `decodeChanges` checked that its
   * short ids, term indexes and counts are integers) to an index just read over its base;
   * throws when they do not fit it: removed documents the base does not hold, lost postings a
   * term does not have, added documents under numbers still held, counts that do not add up.
   */
  restore(changes: Changes, checked: CheckedState): void {
    const base = this.#base;
    if (base === null || this.#count !== base.documentCount || this.#added.documentCount > 0) throw new Error('changes apply to an index just read over its base');
    const { removed, gone, added, count, average } = changes;
    for (const shortId of removed) {
      if (!(shortId < base.state.nextId && this.docs.holds(shortId))) throw new Error(`removed document ${shortId} is not a document of the base`);
      this.docs.forget(shortId);
    }
    if (gone.length % 2 !== 0) throw new Error('lost postings come in pairs');
    if (gone.length > 0) {
      const lost = new Int32Array(base.termCount);
      for (let i = 0; i < gone.length; i += 2) {
        const t = gone[i]!;
        const n = gone[i + 1]!;
        if (!(t < base.termCount && lost[t] === 0 && n > 0 && n <= base.sizeAt(t))) throw new Error(`term ${t} cannot have lost ${n} postings`);
        lost[t] = n;
        if (n === base.sizeAt(t)) this.#goneTerms++;
      }
      this.#gone = lost;
    }
    for (let i = 1; i < added.docs.length; i += 3) if (this.has(added.docs[i]!)) throw new Error(`added memory ${added.docs[i]} is already held`);
    this.#added = AddedPostings.restore(base.state.nextId, added, checked, this.docs);
    if (count !== base.documentCount - removed.length + added.documentCount || !(Number.isFinite(average) && average >= 0)) throw new Error(`${count} documents of average length ${average} do not add up`);
    this.#count = count;
    this.#average = average;
  }

  /**
   * Folds the changes since the base in when a save would (`forSave`), without writing anything:
   * for a store that does not save, once its writes went quiet. Whether it folded.
   */
  compact(): boolean {
    // Base documents removed since: the base's count less those of its documents still held.
    const removed = this.#base === null ? 0 : this.#base.documentCount - (this.#count - this.#added.documentCount);
    const changes = this.#added.documentCount + removed;
    if (changes === 0 || (this.#base !== null && !foldsChanges(changes, this.#count))) return false;
    this.fold();
    return true;
  }

  /** Both layers merged into a new base (the same one when nothing changed since), which it returns. */
  fold(): FrozenPostings {
    if (this.#base !== null && this.#added.nextId === this.#base.state.nextId && this.#gone === null) return this.#base;
    return this.#merge();
  }

  #merge(): FrozenPostings {
    const { state, checked } = mergeState(this.#base, this.#added, this.docs, this.#count, this.#average);
    this.#base = FrozenPostings.of(state, checked);
    this.#added = new AddedPostings(state.nextId);
    this.#baseIds = null;
    this.#gone = null;
    this.#goneTerms = 0;
    return this.#base;
  }
}

/**
 * Memory number → short id of a flat state's documents (`[shortId, no, length]` each). Short ids
 * 0, 1, 2… of numbers that run on one by one (a store filled in one go) need no table: making
 * it was ~10 ms of the first write after a 100k store's open.
 */
function baseIds(docs: ArrayLike<number>): NumberPositions {
  const count = docs.length / 3;
  const first = count > 0 ? docs[1]! : 0;
  let run = true;
  for (let i = 0; run && i < count; i++) run = docs[3 * i] === i && docs[3 * i + 1] === first + i;
  if (run) return NumberPositions.run(first, count);
  const nos = new Float64Array(count);
  const shortIds = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    shortIds[i] = docs[3 * i]!;
    nos[i] = docs[3 * i + 1]!;
  }
  // The load refused a state whose numbers repeat, and a fold writes each document once.
  return NumberPositions.of(nos, shortIds)!;
}
