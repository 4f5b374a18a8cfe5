import type { CatalogEntry } from './catalog-entry.js';
import type { SavedCatalog } from './saved-catalog.js';

/**
 * The memories a loaded catalog held when the store opened, answered from the saved columns
 * (`SavedCatalog`). A memory changed or forgotten since is marked gone here; the catalog keeps
 * its new entry in its own maps. An entry is made the first time it is asked for and kept, so a
 * recall's note on it (the speaker) stays; the id → number map is made on the first lookup by id.
 */
export class CatalogBase {
  readonly #saved: SavedCatalog;
  /** Number → row: an array while numbers are dense (`dense`), else a map. */
  readonly #rowOf: Int32Array | Map<number, number>;
  readonly #gone: Uint8Array;
  readonly #made: Array<CatalogEntry | undefined>;
  #ids: Map<string, number> | null = null;
  #live: number;
  /** The largest number the saved catalog holds (−1 when it holds none). */
  readonly maxNo: number;

  /** `dense(maxNo)`: whether numbers up to `maxNo` are few enough for an array indexed by number. */
  constructor(saved: SavedCatalog, dense: (maxNo: number) => boolean) {
    this.#saved = saved;
    this.#gone = new Uint8Array(saved.count);
    this.#made = new Array<CatalogEntry | undefined>(saved.count);
    this.#live = saved.count;
    let maxNo = -1;
    for (let row = 0; row < saved.count; row++) maxNo = Math.max(maxNo, saved.no(row));
    this.maxNo = maxNo;
    if (dense(maxNo)) {
      const rowOf = new Int32Array(maxNo + 1).fill(-1);
      for (let row = 0; row < saved.count; row++) rowOf[saved.no(row)] = row;
      this.#rowOf = rowOf;
    } else {
      const rowOf = new Map<number, number>();
      for (let row = 0; row < saved.count; row++) rowOf.set(saved.no(row), row);
      this.#rowOf = rowOf;
    }
  }

  get size(): number {
    return this.#live;
  }

  /** The row holding `no`, or −1 when the saved catalog has none or it is gone. */
  #row(no: number): number {
    const row = this.#rowOf instanceof Map ? (this.#rowOf.get(no) ?? -1) : no >= 0 && no < this.#rowOf.length ? this.#rowOf[no]! : -1;
    return row >= 0 && this.#gone[row] === 0 ? row : -1;
  }

  #entry(row: number): CatalogEntry {
    return (this.#made[row] ??= this.#saved.entry(row));
  }

  get(no: number): CatalogEntry | undefined {
    const row = this.#row(no);
    return row < 0 ? undefined : this.#entry(row);
  }

  noOf(id: string): number | undefined {
    if (!this.#ids) {
      const ids = new Map<string, number>();
      for (let row = 0; row < this.#saved.count; row++) ids.set(this.#saved.id(row), row);
      this.#ids = ids;
    }
    const row = this.#ids.get(id);
    return row === undefined || this.#gone[row] === 1 ? undefined : this.#saved.no(row);
  }

  /** Marks `no` gone (forgotten, or replaced by a new entry); false when it was not here. */
  drop(no: number): boolean {
    const row = this.#row(no);
    if (row < 0) return false;
    this.#gone[row] = 1;
    // Never read again (a gone row stays gone); let the entry be collected.
    this.#made[row] = undefined;
    this.#live--;
    return true;
  }

  *nos(): IterableIterator<number> {
    for (let row = 0; row < this.#saved.count; row++) if (this.#gone[row] === 0) yield this.#saved.no(row);
  }

  /** Entries already made are handed out as they are; the rest are made for the caller and not kept. */
  *values(): IterableIterator<CatalogEntry> {
    for (let row = 0; row < this.#saved.count; row++) if (this.#gone[row] === 0) yield this.#made[row] ?? this.#saved.entry(row);
  }

  /** Writes each memory's validity into columns indexed by number (each below their length). */
  fillValidity(live: Uint8Array, createdAt: Float64Array, validFrom: Float64Array, validTo: Float64Array): void {
    const saved = this.#saved;
    for (let row = 0; row < saved.count; row++) {
      if (this.#gone[row] === 1) continue;
      const no = saved.no(row);
      live[no] = 1;
      createdAt[no] = saved.createdAt(row);
      validFrom[no] = saved.validFrom(row);
      validTo[no] = saved.validToOrInfinity(row);
    }
  }
}
