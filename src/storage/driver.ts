/**
 * The storage seam. HybridMind speaks SQLite's dialect to whatever database holds the truth:
 * SQLite-WASM in a browser, a worker, Deno or Node; Cloudflare Durable Object SQLite at the edge.
 * A driver only runs statements and transactions; the schema and every query live in the
 * repository, so all backends share them.
 */
import type { PartedBytes } from '../util/parted-bytes.js';

export type SqlValue = string | number | null | Uint8Array;
export type SqlRow = Record<string, SqlValue>;

export interface SqlDriver {
  /** Short name shown in `stats().storage`, e.g. `sqlite-wasm:memory`. */
  readonly name: string;
  /** Runs a statement (or several, without parameters) and discards rows. */
  exec(sql: string, params?: readonly SqlValue[]): void;
  /** Runs one statement and returns its rows as objects; blobs come back as `Uint8Array`. */
  all<T extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): T[];
  /**
   * Runs `fn` inside one transaction: committed if it returns, rolled back if it throws.
   * Calls nested inside an open transaction join it.
   */
  transaction<T>(fn: () => T): T;
  /**
   * `all` for one statement, each row handed to `visit` as its values in column order, with blobs
   * as views of the engine's own memory: valid only during that call, so copy what you keep. Bulk
   * reads move large blobs this way without a buffer per value (each buffer is external memory
   * that makes the JS engine collect). Optional: without it, `all` serves.
   */
  visitRows?(sql: string, params: readonly SqlValue[], visit: (values: readonly SqlValue[]) => void): void;
  /**
   * `visitRows` for a statement of one parameter, run once per key in turn, each row handed to
   * `visit` with its key; keys are int32 (row numbers). A few lookups by primary key this way skip
   * what one statement over a set of keys costs (the set bound as JSON, an ephemeral index, the
   * binding's per-call work): ten texts of a 10k store through SQLite-WASM took ~53 µs in one
   * statement and ~22–29 µs as ten lookups through its raw exports. Optional: without it, callers
   * ask in one statement.
   */
  visitByKey?(sql: string, keys: readonly number[], visit: (key: number, values: readonly SqlValue[]) => void): void;
  /** The whole database as bytes, if the backend can (used by snapshots). */
  serialize?(): Uint8Array;
  /**
   * Where values derived from the rows are kept when not in the database's `derived_index` table
   * (files beside it, read faster than its pager reads a blob); the driver closes it on `close`.
   */
  readonly derived?: DerivedStore | undefined;
  close(): void;
}

/**
 * `visitRows` where the driver has it, else `all` with each row's values in column order: for
 * bulk reads that copy what they keep, so blobs never become a buffer each where they need not.
 */
export function eachRow(db: SqlDriver, sql: string, params: readonly SqlValue[], visit: (values: readonly SqlValue[]) => void): void {
  if (db.visitRows) db.visitRows(sql, params, visit);
  else for (const row of db.all(sql, params)) visit(Object.values(row));
}

/** Where a store keeps the values it derives from its rows: see `derived-store.ts`. */
export interface DerivedStore {
  /** The stamp `name` was last written with, or null when there is none. */
  stampOf(name: string): string | null;
  /** The value of `name` when it was written with `stamp`, else null. */
  read(name: string, stamp: string): PartedBytes | null;
  /** Replaces the value of `name`; a reader sees the old value, the new one, or none. */
  write(name: string, stamp: string, bytes: Uint8Array): void;
  /**
   * Forgets every value, before the rows they were derived from are replaced. Only a store
   * outside the database needs it: the replace's own transaction empties `derived_index`.
   */
  clear?(): void;
  /** Releases what the store holds open; the driver calls it when it closes. */
  close?(): void;
  /**
   * Values decoded from this store's bytes ahead of an open, by name, for the stamp they were
   * read with (the browser worker decodes some while SQLite-WASM starts): the open takes each
   * once, when that stamp is the store's, instead of reading and decoding it again. Opaque here;
   * whoever decoded one knows its type. A write or clear drops what it would make stale.
   */
  readonly early?: { take(name: string, stamp: string): unknown } | undefined;
}
