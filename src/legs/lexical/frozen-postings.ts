/**
 * The lexical index's saved base: the flat arrays of a save or of the last fold, read in place.
 * Filling minisearch's maps from them (1.2M postings in ~40k maps at 100k memories) was most of
 * loading the index and a quarter of a store's cold open, and the maps took 73 MiB of heap where
 * the arrays take ~15 MiB outside it (100k memories).
 */
import type { CheckedState, FlatState } from './minisearch-state.js';
import type { FlatList, TermSource } from './term-scores.js';

/** One term's postings in a flat state, looked up by halving. */
export class FlatPostings implements FlatList {
  constructor(
    readonly data: ArrayLike<number>,
    readonly start: number,
    readonly size: number,
    readonly df = size,
  ) {}

  has(shortId: number): boolean {
    return this.pairAt(shortId) >= 0;
  }

  tfOf(shortId: number): number {
    const at = this.pairAt(shortId);
    return at < 0 ? 0 : this.data[at + 1]!;
  }

  /** Where in `data` the pair of `shortId` starts, or −1. */
  pairAt(shortId: number): number {
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.data[this.start + 2 * mid]!;
      if (at === shortId) return this.start + 2 * mid;
      if (at < shortId) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

export class FrozenPostings implements TermSource {
  readonly state: FlatState;
  readonly checked: CheckedState;
  /** Term → its index, only for a save whose terms are not in order (older builds'). */
  #termIndex: Map<string, number> | null = null;

  private constructor(state: FlatState, checked: CheckedState) {
    this.state = state;
    this.checked = checked;
  }

  /**
   * The state read in place, given what `checkFlatState` found in it. Texts a version-3 save
   * carried were checked there, and are dropped. Lookups by halving need every term's postings in
   * short id order (`checked.sorted`), which older builds did not always write: such a state is
   * only for merging into one that is (`LayeredPostings.over` does at once).
   */
  static of(state: FlatState, checked: CheckedState): FrozenPostings {
    const { texts: _texts, ...kept } = state;
    return new FrozenPostings(kept, checked);
  }

  get documentCount(): number {
    return this.state.documentCount;
  }

  get averageLength(): number {
    return this.state.averageFieldLength;
  }

  get termCount(): number {
    return this.state.terms.length;
  }

  postings(term: string): FlatPostings | undefined {
    const t = this.find(term);
    return t < 0 ? undefined : this.listAt(t);
  }

  /** The postings of the term at index `t` of `terms`, `gone` of which name documents removed since. */
  listAt(t: number, gone = 0): FlatPostings {
    const at = this.checked.offsets[t]!;
    const size = this.state.postings[at]!;
    return new FlatPostings(this.state.postings, at + 1, size, size - gone);
  }

  /** How many postings the term at index `t` has. */
  sizeAt(t: number): number {
    return this.state.postings[this.checked.offsets[t]!]!;
  }

  /** The indexes of `terms` in increasing term order. */
  termOrder(): number[] {
    const { terms } = this.state;
    const order = Array.from(terms, (_, t) => t);
    return this.checked.termsSorted ? order : order.sort((x, y) => (terms[x]! < terms[y]! ? -1 : 1));
  }

  /** The term's index in `terms`, or −1. */
  find(term: string): number {
    const { terms } = this.state;
    if (!this.checked.termsSorted) {
      this.#termIndex ??= new Map(terms.map((t, i) => [t, i]));
      return this.#termIndex.get(term) ?? -1;
    }
    let lo = 0;
    let hi = terms.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = terms[mid]!;
      if (at === term) return mid;
      if (at < term) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}
