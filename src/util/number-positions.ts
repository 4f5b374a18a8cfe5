/**
 * Numbers past this many times their count (plus a floor) are too sparse for an array indexed by
 * number: a store whose row numbers ran far ahead of its size keeps maps instead.
 */
const SPARSE_FACTOR = 8;
const DENSE_FLOOR = 1024;

/** Numbers below this are dense enough, for `count` of them, for arrays indexed by number. */
export function denseLimit(count: number): number {
  return Math.max(DENSE_FLOOR, SPARSE_FACTOR * count);
}

/**
 * Where each of a set of whole, non-negative numbers stands: an array indexed by number while they
 * are dense, else a map; or, for numbers that run on one by one from their first position, nothing
 * but the first (a store's rows usually do, and an open then makes no table).
 */
export class NumberPositions {
  /** Null for a run. */
  readonly #at: Int32Array | Map<number, number> | null;
  /** A run's first number. */
  readonly #first: number;
  /** The largest number held, −1 when none. */
  readonly last: number;

  private constructor(at: Int32Array | Map<number, number> | null, last: number, first = 0) {
    this.#at = at;
    this.last = last;
    this.#first = first;
  }

  /** The first number when the numbers run on one by one from it (made by `run`), else null. */
  get runFrom(): number | null {
    return this.#at === null && this.last >= 0 ? this.#first : null;
  }

  /** `count` numbers from `first` on, each at its offset from `first`. */
  static run(first: number, count: number): NumberPositions {
    return new NumberPositions(null, count > 0 ? first + count - 1 : -1, first);
  }

  /** The positions `positions[i]` (else `i`) of the numbers `nos[i]`; null when a number repeats. */
  static of(nos: ArrayLike<number>, positions?: ArrayLike<number>): NumberPositions | null {
    const count = nos.length;
    let last = -1;
    for (let i = 0; i < count; i++) if (nos[i]! > last) last = nos[i]!;
    const at = last < denseLimit(count) ? new Int32Array(last + 1).fill(-1) : new Map<number, number>();
    for (let i = 0; i < count; i++) {
      const no = nos[i]!;
      const position = positions === undefined ? i : positions[i]!;
      if (at instanceof Map) {
        if (at.has(no)) return null;
        at.set(no, position);
      } else {
        if (at[no] !== -1) return null;
        at[no] = position;
      }
    }
    return new NumberPositions(at, last);
  }

  /** The position of `no`, or −1. */
  get(no: number): number {
    const at = this.#at;
    if (at === null) return Number.isInteger(no) && no >= this.#first && no <= this.last ? no - this.#first : -1;
    return at instanceof Map ? (at.get(no) ?? -1) : Number.isInteger(no) && no >= 0 && no < at.length ? at[no]! : -1;
  }
}
