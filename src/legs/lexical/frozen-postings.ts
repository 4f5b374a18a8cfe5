/**
 * A loaded lexical index until minisearch's maps are filled: the saved flat arrays, read in place.
 * Filling the maps (1.2M postings in ~40k maps at 100k memories) was most of loading the index
 * and a quarter of a store's cold open; `Bm25Index` now does it in the background after the load,
 * and queries meanwhile are answered from here.
 */
import { shortIdsOf, type CheckedState, type FlatState } from './minisearch-state.js';
import type { FlatList, TermSource } from './term-scores.js';

/** One term's postings in a flat state, looked up by halving. */
export class FlatPostings implements FlatList {
  constructor(
    readonly data: ArrayLike<number>,
    readonly start: number,
    readonly size: number,
  ) {}

  has(shortId: number): boolean {
    return this.tfOf(shortId) > 0;
  }

  tfOf(shortId: number): number {
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.data[this.start + 2 * mid]!;
      if (at === shortId) return this.data[this.start + 2 * mid + 1]!;
      if (at < shortId) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }
}

export class FrozenPostings implements TermSource {
  readonly state: FlatState;
  readonly checked: CheckedState;
  #shortIds: Map<number, number> | null = null;
  /** Term → its index, only for a save whose terms are not in order (older builds'). */
  #termIndex: Map<string, number> | null = null;

  private constructor(state: FlatState, checked: CheckedState) {
    this.state = state;
    this.checked = checked;
  }

  /**
   * The state read in place, given what `checkFlatState` found in it; null when a term's postings
   * are out of short id order, which minisearch never writes but which a lookup by halving could
   * not read. Texts a version-3 save carried were checked there, and are dropped.
   */
  static of(state: FlatState, checked: CheckedState): FrozenPostings | null {
    const { texts: _texts, ...kept } = state;
    return checked.sorted ? new FrozenPostings(kept, checked) : null;
  }

  get documentCount(): number {
    return this.state.documentCount;
  }

  get averageLength(): number {
    return this.state.averageFieldLength;
  }

  /** `checkFlatState` refuses a posting of a document the state does not hold. */
  get lingering(): number {
    return 0;
  }

  get termCount(): number {
    return this.state.terms.length;
  }

  has(no: number): boolean {
    return (this.#shortIds ??= shortIdsOf(this.state.docs)).has(no);
  }

  postings(term: string): FlatPostings | undefined {
    const t = this.#find(term);
    if (t < 0) return undefined;
    const at = this.checked.offsets[t]!;
    return new FlatPostings(this.state.postings, at + 1, this.state.postings[at]!);
  }

  /** The term's index in `terms`, or −1. */
  #find(term: string): number {
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
