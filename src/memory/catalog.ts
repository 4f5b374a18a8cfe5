import { notFound } from '../errors.js';
import { recordedBy, statusAt, type Temporal } from '../legs/time/temporal.js';
import type { MemoryRow } from '../storage/repository.js';
import { denseLimit } from '../util/number-positions.js';
import { CatalogBase } from './catalog-base.js';
import { entryMatches, entryOf, type CatalogEntry, type EntryFilter } from './catalog-entry.js';
import { CatalogWriter, type SavedCatalog } from './saved-catalog.js';
import { emptyWindow, widen, type ValidityWindow } from './validity-window.js';

/**
 * When each memory was recorded and is valid, in columns indexed by number, so the check every
 * leg makes on each candidate (hundreds a recall) is a few array reads instead of a map lookup
 * and an entry object that the vector scan has just pushed out of the cache.
 */
class ValidityColumns {
  readonly live: Uint8Array;
  readonly createdAt: Float64Array;
  readonly validFrom: Float64Array;
  /** NaN for "still true", as the saved catalog keeps it, so an open copies that column as it is. */
  readonly validTo: Float64Array;

  constructor(capacity: number) {
    this.live = new Uint8Array(capacity);
    this.createdAt = new Float64Array(capacity);
    this.validFrom = new Float64Array(capacity);
    this.validTo = new Float64Array(capacity);
  }

  get capacity(): number {
    return this.live.length;
  }

  grown(capacity: number): ValidityColumns {
    const next = new ValidityColumns(capacity);
    next.live.set(this.live);
    next.createdAt.set(this.createdAt);
    next.validFrom.set(this.validFrom);
    next.validTo.set(this.validTo);
    return next;
  }

  put(e: CatalogEntry): void {
    this.live[e.no] = 1;
    this.createdAt[e.no] = e.createdAt;
    this.validFrom[e.no] = e.validFrom;
    this.validTo[e.no] = e.validTo ?? Number.NaN;
  }
}

/**
 * The id ↔ number map plus the per-memory fields that recall filters on without a query. After
 * an open that loaded the saved catalog, the memories it held are answered from it (`#base`);
 * the maps hold what was added or changed since.
 */
export class Catalog {
  readonly #byNo = new Map<number, CatalogEntry>();
  readonly #byId = new Map<string, number>();
  #base: CatalogBase | null = null;
  /** Built by the first `acceptor` call, then kept in step; null while numbers are too sparse for it. */
  #columns: ValidityColumns | null = null;
  /** The numbers were found too sparse for columns, and nothing changed since: recalls need not look again. */
  #sparse = false;
  /** Measured by the first `acceptsEvery` call, then widened by every entry added. */
  #window: ValidityWindow | null = null;

  get size(): number {
    return this.#byNo.size + (this.#base?.size ?? 0);
  }

  /** Starts over from a saved catalog, read in place; `lookup` finds an id's number in the store (see `CatalogBase.noOf`). */
  adopt(saved: SavedCatalog, lookup: ((id: string) => number | undefined) | null = null): void {
    this.clear();
    this.#base = new CatalogBase(saved, lookup);
  }

  set(row: Omit<MemoryRow, 'text'>): CatalogEntry {
    return this.add(entryOf(row));
  }

  /** Holds `entry` as it is (one read from the saved catalog, or made by `entryOf`). */
  add(entry: CatalogEntry): CatalogEntry {
    this.#base?.replace(entry.no);
    const before = this.#byNo.get(entry.no);
    if (before && this.#byId.get(before.id) === entry.no) this.#byId.delete(before.id);
    this.#byNo.set(entry.no, entry);
    this.#byId.set(entry.id, entry.no);
    this.#sparse = false;
    if (this.#columns) this.#putColumns(entry);
    if (this.#window) widen(this.#window, entry.createdAt, entry.validFrom, entry.validTo ?? Number.NaN);
    return entry;
  }

  delete(no: number): void {
    const entry = this.#byNo.get(no);
    const saved = this.#base?.forget(no) ?? false;
    if (entry) {
      this.#byNo.delete(no);
      this.#byId.delete(entry.id);
    } else if (!saved) return;
    this.#sparse = false;
    if (this.#columns && no < this.#columns.capacity) this.#columns.live[no] = 0;
  }

  /**
   * Whether a memory may be returned at `reference`: it exists, was recorded by then when
   * `asOf`, and is current then unless `includeHistorical`. The same test as reading the entry
   * (`recordedBy`, `statusAt`), from the columns when the numbers are dense enough.
   */
  acceptor(reference: number, asOf: boolean, includeHistorical: boolean): (no: number) => boolean {
    const c = this.#columnsIfDense();
    if (c === null) {
      return (no) => {
        const e = this.get(no);
        return e !== undefined && (!asOf || recordedBy(e, reference)) && (includeHistorical || statusAt(e, reference) === 'current');
      };
    }
    const { live, createdAt, validFrom, validTo } = c;
    const n = live.length;
    // recordedBy and statusAt over the columns (validTo is NaN where the entry has null, so "not ended by then" is !(≤)).
    return (no) => no < n && live[no] === 1 && (!asOf || createdAt[no]! <= reference) && (includeHistorical || (validFrom[no]! <= reference && !(validTo[no]! <= reference)));
  }

  /**
   * What the time leg reads of each of its ~300 candidates, from the columns when the numbers are
   * dense (as `acceptor`): one object refilled per call, valid until the next, instead of a map
   * lookup and an entry object per memory. Otherwise, and for a number the columns do not hold
   * (so an unknown one still throws), the entry itself.
   */
  temporalReader(): (no: number) => Temporal {
    const c = this.#columnsIfDense();
    if (c === null) return (no) => this.entry(no);
    const { live, createdAt, validFrom, validTo } = c;
    const n = live.length;
    const read: Temporal = { createdAt: 0, validFrom: 0, validTo: null };
    return (no) => {
      if (!(no < n && live[no] === 1)) return this.entry(no);
      read.createdAt = createdAt[no]!;
      read.validFrom = validFrom[no]!;
      const to = validTo[no]!;
      read.validTo = Number.isNaN(to) ? null : to;
      return read;
    };
  }

  /**
   * Whether `acceptor(reference, asOf, includeHistorical)` accepts every memory held, so a leg
   * may skip the test: hnswlib calls a JavaScript filter through embind for every node its walk
   * visits, ~0.1 ms of a ~2 ms hybrid recall at 100k memories. False when unsure.
   */
  acceptsEvery(reference: number, asOf: boolean, includeHistorical: boolean): boolean {
    const w = (this.#window ??= this.#measureWindow());
    return (!asOf || w.recorded <= reference) && (includeHistorical || (w.from <= reference && w.to > reference));
  }

  /** A loaded catalog's memories by the window it was saved with (a changed one's old values only widen it), the rest one by one. */
  #measureWindow(): ValidityWindow {
    const w = this.#base?.window() ?? emptyWindow();
    for (const e of this.#byNo.values()) widen(w, e.createdAt, e.validFrom, e.validTo ?? Number.NaN);
    return w;
  }

  /**
   * Numbers below this are dense enough for the columns; a store whose row numbers ran far ahead
   * of its size, or a catalog of a few candidates (the Postgres engine's, per recall), keeps only
   * the maps.
   */
  #limit(): number {
    return denseLimit(this.size);
  }

  /** Whether the columns can hold `no`: an index into them, below the limit. */
  #fits(no: number): boolean {
    return Number.isSafeInteger(no) && no >= 0 && no < this.#limit();
  }

  #columnsIfDense(): ValidityColumns | null {
    if (this.#columns || this.#sparse) return this.#columns;
    const base = this.#base;
    if (base && base.maxNo >= 0 && !this.#fits(base.maxNo)) {
      this.#sparse = true;
      return null;
    }
    let last = Math.max(0, base?.maxNo ?? 0);
    for (const no of this.#byNo.keys()) {
      if (!this.#fits(no)) {
        this.#sparse = true;
        return null;
      }
      if (no > last) last = no;
    }
    const columns = new ValidityColumns(last + 1);
    base?.fillValidity(columns.live, columns.createdAt, columns.validFrom, columns.validTo);
    for (const e of this.#byNo.values()) columns.put(e);
    this.#columns = columns;
    return columns;
  }

  #putColumns(entry: CatalogEntry): void {
    if (!this.#fits(entry.no)) {
      this.#columns = null;
      return;
    }
    let c = this.#columns!;
    if (entry.no >= c.capacity) c = this.#columns = c.grown(Math.max(entry.no + 1, Math.min(2 * c.capacity, this.#limit())));
    c.put(entry);
  }

  /** How many memories are current at `reference` (as `statusAt` says), read from the columns when the numbers are dense: no entry is made. */
  countCurrent(reference: number): number {
    if (this.acceptsEvery(reference, false, false)) return this.size;
    const current = this.acceptor(reference, false, false);
    let count = 0;
    // Over the columns where they are dense: the generator of `nos()` took ~10 ms of a `stats()` at 100k memories.
    const columns = this.#columnsIfDense();
    if (columns) for (let no = 0; no < columns.live.length; no++) count += current(no) ? 1 : 0;
    else for (const no of this.nos()) if (current(no)) count++;
    return count;
  }

  get(no: number): CatalogEntry | undefined {
    return this.#byNo.get(no) ?? this.#base?.get(no);
  }

  /** Whether `no` is a memory held (`get` without making a loaded memory's entry). */
  has(no: number): boolean {
    return this.#byNo.has(no) || (this.#base?.has(no) ?? false);
  }

  /** For callers that hold a number the engine produced, so it must exist. */
  entry(no: number): CatalogEntry {
    const entry = this.get(no);
    if (!entry) throw new Error(`catalog has no memory number ${no}`);
    return entry;
  }

  noOf(id: string): number | undefined {
    return this.#byId.get(id) ?? this.#base?.noOf(id);
  }

  /** The number of memory `id` (an id already checked); NOT_FOUND from `method` when the store has none. */
  requireNo(method: string, id: string): number {
    const no = this.noOf(id);
    if (no === undefined) throw notFound(method, 'memory', id);
    return no;
  }

  /** A part of a loaded catalog's id map (see `CatalogBase.fillIds`); false once none is left. */
  fillIds(until: number): boolean {
    return this.#base?.fillIds(until) ?? false;
  }

  /**
   * In storage order, as one map keeps it: a changed memory where it was, new ones after. With a
   * loaded catalog, its memories first (a changed one's new entry in its place), then the rest.
   */
  *values(): IterableIterator<CatalogEntry> {
    const base = this.#base;
    if (!base) {
      yield* this.#byNo.values();
      return;
    }
    yield* base.values((no) => this.#byNo.get(no));
    for (const e of this.#byNo.values()) if (!base.replaced(e.no)) yield e;
  }

  /**
   * The numbers of the memories `filter` matches, in the order `values` lists them, from `offset`
   * on and at most `limit`, and how many match in all. A loaded memory is matched on its saved
   * fields, so a page of a large store makes no entry.
   */
  page(filter: EntryFilter, offset: number, limit: number): { nos: number[]; total: number } {
    const nos: number[] = [];
    let total = 0;
    const take = (no: number) => {
      if (total >= offset && nos.length < limit) nos.push(no);
      total++;
    };
    const base = this.#base;
    base?.eachMatching(filter, (no) => this.#byNo.get(no), take);
    for (const e of this.#byNo.values()) if (!base?.replaced(e.no) && entryMatches(e, filter)) take(e.no);
    return { nos, total };
  }

  /** The bytes `encodeCatalog(values())` writes, with a loaded catalog's unchanged rows copied as they were saved instead of made into entries. */
  save(): Uint8Array {
    const writer = new CatalogWriter();
    const base = this.#base;
    base?.writeTo(writer, (no) => this.#byNo.get(no));
    for (const e of this.#byNo.values()) if (!base?.replaced(e.no)) writer.entry(e);
    return writer.bytes();
  }

  *nos(): IterableIterator<number> {
    if (this.#base) yield* this.#base.nos();
    yield* this.#byNo.keys();
  }

  clear(): void {
    this.#base = null;
    this.#byNo.clear();
    this.#byId.clear();
    this.#columns = null;
    this.#sparse = false;
    this.#window = null;
  }
}
