/**
 * A saved entity index as read, never changed: each memory's entity ids stay in the saved columns
 * and the postings are laid out once in flat arrays. Making a set per entity and an array and map
 * entry per memory (100k of them, most naming no entity) was a fifth of a 100k store's cold open,
 * and turning this into them at the first change after an open took ~30 ms of that write;
 * `EntityIndex` keeps its changes beside it instead.
 */

import { NumberPositions } from '../../util/number-positions.js';

/** A saved index's memories as columns: entry i is memory `nos[i]`, naming `counts[i]` entities, the next ones of `ids`. */
export interface EntityColumns {
  nos: Float64Array;
  counts: Uint32Array;
  ids: Uint32Array;
}

export class LoadedEntities {
  readonly count: number;
  /** The columns this was made from, as given (a save writes them again); nothing may change them. */
  readonly columns: EntityColumns;
  readonly #entityCount: number;
  readonly #nos: Float64Array;
  /** Entry i's entity ids are `#ids[#starts[i]]` up to `#starts[i + 1]`. */
  readonly #starts: Float64Array;
  readonly #ids: Uint32Array;
  /** Memory number → its entry. */
  readonly #at: NumberPositions;
  /** Entity id → its memories are `#postings[#postingStarts[id]]` up to `#postingStarts[id + 1]`, in entry order. */
  readonly #postingStarts: Int32Array;
  readonly #postings: Float64Array;

  /**
   * Checks `columns` against the `entityCount` entities they name (throws as `EntityIndex.load`
   * must on a malformed save) and lays out the postings. The checks are written out rather than
   * called per number: an open runs this once, mostly before the engine has compiled it.
   */
  constructor(entityCount: number, columns: EntityColumns) {
    const { nos, counts, ids } = columns;
    const count = nos.length;
    if (counts.length !== count) throw new Error(`${count} memories but ${counts.length} counts`);
    const starts = new Float64Array(count + 1);
    for (let i = 0; i < count; i++) {
      const no = nos[i]!;
      if (!Number.isSafeInteger(no) || no < 0) throw new Error(`malformed memory number at entry ${i}`);
      starts[i + 1] = starts[i]! + counts[i]!;
    }
    if (starts[count] !== ids.length) throw new Error(`the counts name ${starts[count]} entity ids, the save holds ${ids.length}`);
    const at = NumberPositions.of(nos);
    if (at === null) throw new Error('malformed entries: a memory appears twice');
    // Each entity's distinct memories: a memory that names an entity twice is one posting, as a set holds it.
    const sizes = new Int32Array(entityCount + 1);
    const lastEntry = new Int32Array(entityCount).fill(-1);
    for (let i = 0; i < count; i++) {
      for (let j = starts[i]!; j < starts[i + 1]!; j++) {
        const id = ids[j]!;
        if (id >= entityCount) throw new Error(`entity id ${id} out of range`);
        if (lastEntry[id] !== i) sizes[id + 1]!++;
        lastEntry[id] = i;
      }
    }
    const postingStarts = new Int32Array(entityCount + 1);
    for (let id = 0; id < entityCount; id++) postingStarts[id + 1] = postingStarts[id]! + sizes[id + 1]!;
    const postings = new Float64Array(postingStarts[entityCount]!);
    const filled = postingStarts.slice(0, entityCount);
    lastEntry.fill(-1);
    for (let i = 0; i < count; i++) {
      for (let j = starts[i]!; j < starts[i + 1]!; j++) {
        const id = ids[j]!;
        if (lastEntry[id] !== i) postings[filled[id]!++] = nos[i]!;
        lastEntry[id] = i;
      }
    }
    this.count = count;
    this.columns = { nos, counts, ids };
    this.#entityCount = entityCount;
    this.#nos = nos;
    this.#starts = starts;
    this.#ids = ids;
    this.#at = at;
    this.#postingStarts = postingStarts;
    this.#postings = postings;
  }

  entitiesOf(no: number): number[] | undefined {
    const i = this.#at.get(no);
    return i < 0 ? undefined : Array.from(this.#ids.subarray(this.#starts[i]!, this.#starts[i + 1]!));
  }

  /** The memories naming entity `id`, in saved order; none for an entity added since (an id past the saved ones). */
  posting(id: number): Float64Array {
    return id < this.#entityCount ? this.#postings.subarray(this.#postingStarts[id]!, this.#postingStarts[id + 1]!) : this.#postings.subarray(0, 0);
  }

  df(id: number): number {
    return id < this.#entityCount ? this.#postingStarts[id + 1]! - this.#postingStarts[id]! : 0;
  }

  has(no: number): boolean {
    return this.#at.get(no) >= 0;
  }

  /** Each memory's entry (its number and entity ids, as saved), in the saved order. */
  forEach(visit: (no: number, ids: Uint32Array) => void): void {
    for (let i = 0; i < this.count; i++) visit(this.#nos[i]!, this.#ids.subarray(this.#starts[i]!, this.#starts[i + 1]!));
  }
}
