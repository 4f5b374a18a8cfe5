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

/** Where each of a set of whole, non-negative numbers stands: an array indexed by number while they are dense, else a map. */
export class NumberPositions {
  readonly #at: Int32Array | Map<number, number>;
  /** The largest number held, −1 when none. */
  readonly last: number;

  private constructor(at: Int32Array | Map<number, number>, last: number) {
    this.#at = at;
    this.last = last;
  }

  /** The positions `positionOf(i)` of the numbers `numberAt(i)`, i below `count`; null when a number repeats. */
  static of(count: number, numberAt: (i: number) => number, positionOf: (i: number) => number = (i) => i): NumberPositions | null {
    let last = -1;
    for (let i = 0; i < count; i++) last = Math.max(last, numberAt(i));
    const at = last < denseLimit(count) ? new Int32Array(last + 1).fill(-1) : new Map<number, number>();
    for (let i = 0; i < count; i++) {
      const no = numberAt(i);
      if (at instanceof Map) {
        if (at.has(no)) return null;
        at.set(no, positionOf(i));
      } else {
        if (at[no] !== -1) return null;
        at[no] = positionOf(i);
      }
    }
    return new NumberPositions(at, last);
  }

  /** The position of `no`, or −1. */
  get(no: number): number {
    const at = this.#at;
    return at instanceof Map ? (at.get(no) ?? -1) : Number.isInteger(no) && no >= 0 && no < at.length ? at[no]! : -1;
  }
}
