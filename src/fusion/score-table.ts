/** What `sortFused` reads: a Map of memory number to score, or a {@link ScoreTable}. */
export interface ScoreEntries {
  readonly size: number;
  forEach(visit: (score: number, no: number) => void): void;
}

const INITIAL_SLOTS = 1024;

/**
 * Per-memory sums for one fusion at a time: open addressing over typed arrays that the next
 * fusion reuses. A hybrid recall fuses twice (where the walks start, then the answer), adding a
 * few hundred scores each time; through a `Map` that was ~35 + ~105 µs in a scratch loop of a 10k
 * recall's lists (its entries' garbage included), this ~13 + ~30 µs.
 *
 * Entries are visited in the order their numbers were first added, as a Map's are. Numbers are
 * integers (SQLite rowids, Postgres bigserials up to 2⁵³).
 */
export class ScoreTable implements ScoreEntries {
  #keys = new Float64Array(INITIAL_SLOTS);
  #values = new Float64Array(INITIAL_SLOTS);
  /** A slot is taken when its stamp is the current `#epoch`: emptying the table is one increment. */
  #stamps = new Uint32Array(INITIAL_SLOTS);
  #epoch = 1;
  /** Slot of each entry in the order it was added. */
  #order = new Int32Array(INITIAL_SLOTS >> 1);
  #mask = INITIAL_SLOTS - 1;
  /** 32 − log2(slots): a hash's top bits pick the slot. */
  #shift = Math.clz32(INITIAL_SLOTS) + 1;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Empties the table, with room for `expected` entries at a load of at most one half. */
  reset(expected: number): void {
    let slots = this.#keys.length;
    while (slots < 2 * expected) slots *= 2;
    if (slots !== this.#keys.length) {
      this.#keys = new Float64Array(slots);
      this.#values = new Float64Array(slots);
      this.#stamps = new Uint32Array(slots);
      this.#order = new Int32Array(slots >> 1);
      this.#mask = slots - 1;
      this.#shift = Math.clz32(slots) + 1;
      this.#epoch = 1;
    } else if (++this.#epoch === 2 ** 32) {
      this.#stamps.fill(0);
      this.#epoch = 1;
    }
    this.#size = 0;
  }

  /** Adds `value` to the sum of `no` (0 before its first add). */
  add(no: number, value: number): void {
    const keys = this.#keys;
    const stamps = this.#stamps;
    const epoch = this.#epoch;
    const mask = this.#mask;
    // Fibonacci hashing of the low 32 bits, with the high ones mixed in: the product's top bits
    // spread nearby numbers (a batch's rowids) apart.
    const low = no | 0;
    let slot = Math.imul(low ^ Math.imul((no - low) / 4294967296, 0x85ebca6b), 0x9e3779b1) >>> this.#shift;
    while (stamps[slot] === epoch) {
      if (keys[slot] === no) {
        this.#values[slot] = this.#values[slot]! + value;
        return;
      }
      slot = (slot + 1) & mask;
    }
    if (this.#size === this.#order.length) throw new RangeError(`ScoreTable.add: more than ${this.#order.length} entries; reset() with the expected count first`);
    stamps[slot] = epoch;
    keys[slot] = no;
    // 0 + value, as a sum started from 0 is: −0 becomes 0.
    this.#values[slot] = 0 + value;
    this.#order[this.#size++] = slot;
  }

  forEach(visit: (score: number, no: number) => void): void {
    const keys = this.#keys;
    const values = this.#values;
    const order = this.#order;
    for (let i = 0; i < this.#size; i++) {
      const slot = order[i]!;
      visit(values[slot]!, keys[slot]!);
    }
  }
}
