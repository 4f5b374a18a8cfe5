/**
 * A saved entity index as read, never changed: each memory's entity ids stay in the saved array
 * and the postings are laid out once in flat arrays. Making a set per entity and an array and map
 * entry per memory (100k of them, most naming no entity) was a fifth of a 100k store's cold open,
 * and turning this into them at the first change after an open took ~30 ms of that write;
 * `EntityIndex` keeps its changes beside it instead.
 */

import { NumberPositions } from '../../util/number-positions.js';

export class LoadedEntities {
  /** `[no, count, ids…]` per memory, in the order they were last added (the saved array, checked). */
  readonly #of: readonly number[];
  readonly count: number;
  readonly #entityCount: number;
  /** Memory number → where its entry starts in `#of`. */
  readonly #at: NumberPositions;
  /** Entity id → its memories are `#nos[#starts[id]]` up to `#starts[id + 1]`, in the order they were added. */
  readonly #starts: Int32Array;
  readonly #nos: Float64Array;

  /**
   * Checks `of` against the `keys` it names (throws as `EntityIndex.load` must on a malformed save)
   * and lays out the postings. The checks are written out rather than called per number: an open
   * runs this once, mostly before the engine has compiled it, where each call costs.
   */
  constructor(keys: ReadonlyMap<string, number>, of: unknown[]) {
    const entityCount = keys.size;
    // First pass: check each entry, count memories and each entity's distinct memories.
    const sizes = new Int32Array(entityCount + 1);
    const lastEntry = new Int32Array(entityCount).fill(-1);
    const entryNos: number[] = [];
    const entryStarts: number[] = [];
    for (let i = 0; i < of.length; ) {
      const no = of[i];
      const n = of[i + 1];
      // `x >>> 0 === x` holds for whole numbers from 0 below 2^32 only (never for a string or NaN).
      if (!Number.isSafeInteger(no) || (no as number) < 0 || (n as number) >>> 0 !== n || (n as number) > of.length - i - 2) throw new Error(`malformed entry at ${i}`);
      const end = i + 2 + (n as number);
      for (let j = i + 2; j < end; j++) {
        const id = of[j] as number;
        if (id >>> 0 !== id || id >= entityCount) throw new Error(`entity id ${String(id)} out of range`);
        // A memory that names an entity twice is one posting, as a set holds it.
        if (lastEntry[id] !== i) sizes[id + 1]!++;
        lastEntry[id] = i;
      }
      entryNos.push(no as number);
      entryStarts.push(i);
      i = end;
    }
    const count = entryNos.length;
    const at = NumberPositions.of(entryNos, entryStarts);
    if (at === null) throw new Error('malformed entries: a memory appears twice');
    const starts = new Int32Array(entityCount + 1);
    for (let id = 0; id < entityCount; id++) starts[id + 1] = starts[id]! + sizes[id + 1]!;
    const nos = new Float64Array(starts[entityCount]!);
    const filled = starts.slice(0, entityCount);
    lastEntry.fill(-1);
    for (let i = 0; i < of.length; ) {
      const no = of[i] as number;
      const end = i + 2 + (of[i + 1] as number);
      for (let j = i + 2; j < end; j++) {
        const id = of[j] as number;
        if (lastEntry[id] !== i) nos[filled[id]!++] = no;
        lastEntry[id] = i;
      }
      i = end;
    }
    this.#entityCount = entityCount;
    this.#of = of as number[];
    this.count = count;
    this.#at = at;
    this.#starts = starts;
    this.#nos = nos;
  }

  entitiesOf(no: number): number[] | undefined {
    const i = this.#at.get(no);
    return i < 0 ? undefined : this.#of.slice(i + 2, i + 2 + this.#of[i + 1]!);
  }

  /** The memories naming entity `id`, in saved order; none for an entity added since (an id past the saved ones). */
  posting(id: number): Float64Array {
    return id < this.#entityCount ? this.#nos.subarray(this.#starts[id]!, this.#starts[id + 1]!) : this.#nos.subarray(0, 0);
  }

  df(id: number): number {
    return id < this.#entityCount ? this.#starts[id + 1]! - this.#starts[id]! : 0;
  }

  /** Each memory's entry (its number and entity ids, as saved), in the saved order. */
  forEach(visit: (no: number, ids: number[]) => void): void {
    const of = this.#of;
    for (let at = 0; at < of.length; at += 2 + of[at + 1]!) visit(of[at]!, of.slice(at + 2, at + 2 + of[at + 1]!));
  }
}
