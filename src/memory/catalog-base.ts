import { partSpent } from '../util/slices.js';
import { entryMatches, type CatalogEntry, type EntryFilter } from './catalog-entry.js';
import { CREATED_AT, VALID_FROM, VALID_TO, type CatalogWriter, type SavedCatalog } from './saved-catalog.js';
import type { ValidityWindow } from './validity-window.js';

/** A saved row's state: still answered from here, forgotten, or replaced by an entry the catalog keeps in its maps. */
const LIVE = 0;
const FORGOTTEN = 1;
const REPLACED = 2;

/**
 * The memories a loaded catalog held when the store opened, answered from the saved columns
 * (`SavedCatalog`). A memory changed or forgotten since is marked here; the catalog keeps a
 * changed memory's new entry in its own maps. An entry is made the first time it is asked for and
 * kept, so a recall's note on it (the speaker) stays; the id → number map is made in slices after
 * an open (`fillIds`); a lookup by id before then asks the store, or without one makes the rest at once.
 */
export class CatalogBase {
  readonly #saved: SavedCatalog;
  /** Per row, LIVE, FORGOTTEN or REPLACED. */
  readonly #state: Uint8Array;
  readonly #made: Array<CatalogEntry | undefined>;
  #ids: Map<string, number> | null = null;
  /** Rows whose id is in `#ids`: it is made a part at a time (`fillIds`). */
  #idsFilled = 0;
  #live: number;
  /** The store's number for an id (SQLite's index on it), asked while the id map is not whole. */
  readonly #lookup: ((id: string) => number | undefined) | null;

  constructor(saved: SavedCatalog, lookup: ((id: string) => number | undefined) | null = null) {
    this.#saved = saved;
    this.#lookup = lookup;
    this.#state = new Uint8Array(saved.count);
    this.#made = new Array<CatalogEntry | undefined>(saved.count);
    this.#live = saved.count;
  }

  /** The largest number the saved catalog holds (−1 when it holds none). */
  get maxNo(): number {
    return this.#saved.rows.last;
  }

  get size(): number {
    return this.#live;
  }

  /** The row that held `no` when the store opened, or −1. */
  #rowOfNo(no: number): number {
    return this.#saved.rows.get(no);
  }

  /** The row holding `no` and still answered from here, or −1. */
  #row(no: number): number {
    const row = this.#rowOfNo(no);
    return row >= 0 && this.#state[row] === LIVE ? row : -1;
  }

  #entry(row: number): CatalogEntry {
    return (this.#made[row] ??= this.#saved.entry(row));
  }

  has(no: number): boolean {
    return this.#row(no) >= 0;
  }

  get(no: number): CatalogEntry | undefined {
    const row = this.#row(no);
    return row < 0 ? undefined : this.#entry(row);
  }

  /**
   * Adds rows to the id → number map until the clock reaches `until` (at least 1,023 rows, or all
   * that are left); false once the map is whole. After an open it is filled in the background, so
   * the first write seldom waits for it.
   */
  fillIds(until: number): boolean {
    const ids = (this.#ids ??= new Map());
    for (let k = 0; this.#idsFilled < this.#saved.count; this.#idsFilled++, k++) {
      if (partSpent(k, until)) return true;
      ids.set(this.#saved.id(this.#idsFilled), this.#idsFilled);
    }
    return false;
  }

  noOf(id: string): number | undefined {
    if (this.#lookup !== null && this.#idsFilled < this.#saved.count) {
      // One id asked of the store rather than the rest of the map made at once (~50 ms at 100k
      // memories, the first `edges(id)` after an open); the background fill still makes it. A
      // number answered from here is the saved row's, whose id cannot have changed.
      const no = this.#lookup(id);
      return no !== undefined && this.has(no) ? no : undefined;
    }
    this.fillIds(Infinity);
    const row = this.#ids!.get(id);
    return row === undefined || this.#state[row] !== LIVE ? undefined : this.#saved.no(row);
  }

  /** `no` has a new entry in the catalog's maps, in its place; false when it was not answered from here. */
  replace(no: number): boolean {
    return this.#leave(no, REPLACED);
  }

  /**
   * `no` was forgotten; false when it was not answered from here. A memory that had been replaced
   * is marked forgotten too, so one stored again under its number comes after the saved ones, as
   * it would in a map.
   */
  forget(no: number): boolean {
    const row = this.#rowOfNo(no);
    if (row >= 0 && this.#state[row] === REPLACED) this.#state[row] = FORGOTTEN;
    return this.#leave(no, FORGOTTEN);
  }

  #leave(no: number, state: number): boolean {
    const row = this.#row(no);
    if (row < 0) return false;
    this.#state[row] = state;
    // Never read from here again; let the entry be collected.
    this.#made[row] = undefined;
    this.#live--;
    return true;
  }

  /** Whether `no`'s entry in the catalog's maps stands in a saved row's place (see `values`). */
  replaced(no: number): boolean {
    const row = this.#rowOfNo(no);
    return row >= 0 && this.#state[row] === REPLACED;
  }

  *nos(): IterableIterator<number> {
    for (let row = 0; row < this.#saved.count; row++) if (this.#state[row] === LIVE) yield this.#saved.no(row);
  }

  /** Every memory to `writer` in the order `values` lists them: saved rows copied as they were saved, a replaced one as its new entry. */
  writeTo(writer: CatalogWriter, replacement: (no: number) => CatalogEntry | undefined): void {
    let run = 0;
    for (let row = 0; row < this.#saved.count; row++) {
      if (this.#state[row] === LIVE) continue;
      this.#saved.copyRows(run, row, writer);
      run = row + 1;
      const entry = this.#state[row] === REPLACED ? replacement(this.#saved.no(row)) : undefined;
      if (entry) writer.entry(entry);
    }
    this.#saved.copyRows(run, this.#saved.count, writer);
  }

  /**
   * Hands `take` the number of every memory `filter` matches, in the order `values` lists them: a
   * saved row matched on its saved fields (no entry made), a replaced one by its new entry.
   */
  eachMatching(filter: EntryFilter, replacement: (no: number) => CatalogEntry | undefined, take: (no: number) => void): void {
    for (let row = 0; row < this.#saved.count; row++) {
      const state = this.#state[row];
      if (state === LIVE) {
        if (this.#saved.matches(row, filter)) take(this.#saved.no(row));
      } else if (state === REPLACED) {
        const entry = replacement(this.#saved.no(row));
        if (entry && entryMatches(entry, filter)) take(entry.no);
      }
    }
  }

  /**
   * In saved order, with a replaced memory's new entry (from `replacement`) in its place, as a
   * map keeps a changed key where it was. Entries already made are handed out as they are; the
   * rest are made for the caller and not kept.
   */
  *values(replacement: (no: number) => CatalogEntry | undefined): IterableIterator<CatalogEntry> {
    for (let row = 0; row < this.#saved.count; row++) {
      const state = this.#state[row];
      if (state === LIVE) yield this.#made[row] ?? this.#saved.entry(row);
      else if (state === REPLACED) {
        const entry = replacement(this.#saved.no(row));
        if (entry) yield entry;
      }
    }
  }

  /** The window of every memory saved, forgotten and replaced ones too (see `ValidityWindow`): a copy the caller may widen. */
  window(): ValidityWindow {
    return { ...this.#saved.window };
  }

  /**
   * Writes each memory's validity into columns indexed by number (each below their length;
   * validTo NaN for "still true"). Saved numbers that run on one by one, every row still answered
   * from here, are copied column by column: a loop over 10k rows was a few ms of a cold open.
   */
  fillValidity(live: Uint8Array, createdAt: Float64Array, validFrom: Float64Array, validTo: Float64Array): void {
    const saved = this.#saved;
    // The first row's number when each row's is one more than the last's (the usual store, nothing forgotten).
    const first = saved.rows.runFrom;
    if (first !== null && this.#live === saved.count) {
      live.fill(1, first, first + saved.count);
      createdAt.set(saved.column(CREATED_AT), first);
      validFrom.set(saved.column(VALID_FROM), first);
      validTo.set(saved.column(VALID_TO), first);
      return;
    }
    const to = saved.column(VALID_TO);
    for (let row = 0; row < saved.count; row++) {
      if (this.#state[row] !== LIVE) continue;
      const no = saved.no(row);
      live[no] = 1;
      createdAt[no] = saved.createdAt(row);
      validFrom[no] = saved.validFrom(row);
      validTo[no] = to[row]!;
    }
  }
}
