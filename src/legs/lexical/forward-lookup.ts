/**
 * Term frequencies looked up in one term's postings for short ids that only increase: each lookup
 * starts where the last one ended and gallops forward, instead of halving the whole list again.
 * The MaxScore walk (`DocTable.top`) looks every document it meets up in the lists it has not
 * walked; at 1M memories one of them held 300k postings, and 49k fresh binary searches over it
 * (each step a cache miss) were ~14 ms of a query.
 */

/** One list's pairs `shortId, term frequency` from `start`, short ids increasing: what a `FlatList` holds. */
export interface Pairs {
  readonly data: ArrayLike<number>;
  readonly start: number;
  readonly size: number;
}

export class ForwardLookup {
  readonly #lower: FlatCursor;
  readonly #upper: FlatCursor | null;
  readonly #from: number;

  /** Over one flat list, or a split list's two parts: `lower` below short id `from`, `upper` from it on. */
  constructor(lower: Pairs, upper: Pairs | null = null, from = Infinity) {
    this.#lower = new FlatCursor(lower);
    this.#upper = upper === null ? null : new FlatCursor(upper);
    this.#from = from;
  }

  /** The term frequency of `shortId` (0 when the list does not name it); `shortId` above every one asked before. */
  tfOf(shortId: number): number {
    return shortId < this.#from ? this.#lower.tfOf(shortId) : this.#upper!.tfOf(shortId);
  }
}

class FlatCursor {
  /** Every pair before this one names a smaller short id than any asked for from now on. */
  #at = 0;

  constructor(readonly list: Pairs) {}

  tfOf(shortId: number): number {
    const { data, start, size } = this.list;
    let lo = this.#at;
    // Gallop: each probe that is still below moves `lo` past it and doubles the next step, so a
    // gap of g pairs costs about 2·log2(g) reads, all ahead of the last position.
    let hi = lo;
    for (let step = 1; hi < size && data[start + 2 * hi]! < shortId; step *= 2) {
      lo = hi + 1;
      hi = lo + step;
    }
    // The first pair at or above `shortId` is in [lo, min(hi, size)], `hi` itself when none before it.
    let end = Math.min(hi, size);
    while (lo < end) {
      const mid = (lo + end) >>> 1;
      if (data[start + 2 * mid]! < shortId) lo = mid + 1;
      else end = mid;
    }
    this.#at = lo;
    return lo < size && data[start + 2 * lo] === shortId ? data[start + 2 * lo + 1]! : 0;
  }
}
