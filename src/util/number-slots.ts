import { denseLimit } from './number-positions.js';

const NONE = -1;

/**
 * Whole, non-negative numbers → slots (whole, non-negative too), as a `Map` would keep them: an
 * array indexed by number while the numbers are dense (a store's rows are numbered from 1 on), a
 * map once one runs far past the count held. The array is memory outside the JavaScript heap and
 * is filled without hashing: a map of 10k numbers was about a millisecond of a cold open and
 * ~0.5 MB of heap that the open's garbage collections trace (40 MB at a million).
 */
export class NumberSlots {
  #dense: Int32Array | null = new Int32Array(0);
  #map: Map<number, number> | null = null;
  #size = 0;

  get size(): number {
    return this.#map?.size ?? this.#size;
  }

  get(no: number): number | undefined {
    if (this.#map) return this.#map.get(no);
    // A typed array reads undefined at a negative, fractional or too large index.
    const slot = this.#dense![no];
    return slot === undefined || slot === NONE ? undefined : slot;
  }

  has(no: number): boolean {
    return this.get(no) !== undefined;
  }

  set(no: number, slot: number): void {
    if (!(no >= 0 && no % 1 === 0)) throw new RangeError(`NumberSlots.set: ${no} is not a whole number ≥ 0`);
    if (this.#map) {
      this.#map.set(no, slot);
      return;
    }
    let dense = this.#dense!;
    if (no >= dense.length) {
      if (no >= denseLimit(this.#size + 1)) {
        this.#toMap().set(no, slot);
        return;
      }
      const grown = new Int32Array(Math.max(no + 1, 2 * dense.length, 1024)).fill(NONE);
      grown.set(dense);
      this.#dense = dense = grown;
    }
    if (dense[no] === NONE) this.#size++;
    dense[no] = slot;
  }

  delete(no: number): boolean {
    if (this.#map) return this.#map.delete(no);
    const dense = this.#dense!;
    if (dense[no] === undefined || dense[no] === NONE) return false;
    dense[no] = NONE;
    this.#size--;
    return true;
  }

  /**
   * Numbers `nos` to slots 0, 1, … in order, on an empty table: what `set` per number does, in
   * two tight passes (an open adopts 100k numbers at once, before the engine has compiled `set`).
   * Throws a RangeError, leaving the table empty, unless the numbers are whole, ≥ 0 and strictly
   * increasing (so none repeats).
   */
  fillAscending(nos: Int32Array): void {
    if (this.size !== 0) throw new RangeError(`NumberSlots.fillAscending: the table holds ${this.size} numbers`);
    const count = nos.length;
    let previous = -1;
    for (let i = 0; i < count; i++) {
      const no = nos[i]!;
      if (!(no > previous)) throw new RangeError(`NumberSlots.fillAscending: ${no} at ${i} is not above ${previous}`);
      previous = no;
    }
    if (previous >= denseLimit(count)) {
      for (let i = 0; i < count; i++) this.set(nos[i]!, i);
      return;
    }
    const dense = new Int32Array(Math.max(previous + 1, 1024)).fill(NONE);
    for (let i = 0; i < count; i++) dense[nos[i]!] = i;
    this.#dense = dense;
    this.#map = null;
    this.#size = count;
  }

  /** Forgets every number; back to the array form. */
  clear(): void {
    this.#dense = new Int32Array(0);
    this.#map = null;
    this.#size = 0;
  }

  #toMap(): Map<number, number> {
    const map = new Map<number, number>();
    const dense = this.#dense!;
    for (let no = 0; no < dense.length; no++) if (dense[no] !== NONE) map.set(no, dense[no]!);
    this.#map = map;
    this.#dense = null;
    return map;
  }
}
