/**
 * A saved entity index as read, before anything changes it: each memory's entity ids stay in the
 * saved array and the postings are laid out once in flat arrays. Making a set per entity and an
 * array and map entry per memory (100k of them, most naming no entity) was a fifth of a 100k
 * store's cold open. `EntityIndex` answers from here until the maps it changes (`EntityMaps`)
 * are made: in slices after an open, or at once by its first change.
 */

import { NumberPositions } from '../../util/number-positions.js';
import { partSpent } from '../../util/slices.js';

export interface EntityMaps {
  postings: Array<Set<number>>;
  of: Map<number, number[]>;
}

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

  posting(id: number): Float64Array {
    return this.#nos.subarray(this.#starts[id]!, this.#starts[id + 1]!);
  }

  df(id: number): number {
    return this.#starts[id + 1]! - this.#starts[id]!;
  }

  /**
   * The maps `EntityIndex` changes, holding what this holds in the same orders, made a part at a
   * time: each `step` adds entities' sets, then memories' entries, until the clock reaches `until`
   * (at least 1,023 of them, or all that are left), and returns whether any are left. `maps` is
   * whole once a step returns false.
   */
  mapsBuilder(): { maps: EntityMaps; step(until: number): boolean } {
    const maps: EntityMaps = { postings: [], of: new Map() };
    const of = this.#of;
    let id = 0;
    let at = 0;
    const step = (until: number): boolean => {
      let k = 0;
      for (; id < this.#entityCount; id++, k++) {
        if (partSpent(k, until)) return true;
        maps.postings.push(new Set(this.posting(id)));
      }
      for (; at < of.length; at += 2 + of[at + 1]!, k++) {
        if (partSpent(k, until)) return true;
        maps.of.set(of[at]!, of.slice(at + 2, at + 2 + of[at + 1]!));
      }
      return false;
    };
    return { maps, step };
  }
}
