import type { SqlDriver } from './driver.js';
import { HybridMindError, show } from '../errors.js';

/**
 * Migrations, applied in order inside one transaction. Index i brings the schema from version i
 * to i + 1. Never edit a released step: append a new one.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE memories (
     no INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     text TEXT NOT NULL,
     kind TEXT,
     domain TEXT,
     metadata TEXT NOT NULL DEFAULT '{}',
     created_at INTEGER NOT NULL,
     valid_from INTEGER NOT NULL,
     valid_to INTEGER
   );
   CREATE TABLE vectors (
     no INTEGER PRIMARY KEY REFERENCES memories(no) ON DELETE CASCADE,
     vector BLOB NOT NULL
   );
   CREATE TABLE edges (
     no INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     src INTEGER NOT NULL REFERENCES memories(no) ON DELETE CASCADE,
     dst INTEGER NOT NULL REFERENCES memories(no) ON DELETE CASCADE,
     type TEXT NOT NULL,
     weight REAL NOT NULL,
     metadata TEXT NOT NULL DEFAULT '{}',
     valid_from INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     closes_valid_to INTEGER NOT NULL DEFAULT 0,
     prior_valid_to INTEGER
   );
   CREATE INDEX edges_src ON edges(src);
   CREATE INDEX edges_dst ON edges(dst);`,
  // Saved approximate-nearest-neighbour indexes (HNSW): derived data, safe to drop, never exported as truth.
  `CREATE TABLE ann_index (
     name TEXT PRIMARY KEY,
     bytes BLOB NOT NULL,
     updated_at INTEGER NOT NULL
   );`,
  // The model's own vector when the stored one was averaged with its neighbours (an option).
  `ALTER TABLE vectors ADD COLUMN raw BLOB;`,
  // Saved in-memory indexes (the lexical leg's), stamped with the store generation they were built
  // at: derived data, loaded on open only while the stamp still matches, emptied on import.
  `CREATE TABLE derived_index (
     name TEXT PRIMARY KEY,
     stamp TEXT NOT NULL,
     bytes BLOB NOT NULL
   );`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The one schema-version rule, for every door a database comes through (open, a snapshot's
 * manifest and store.db, the Durable Object import, Postgres): the version is an integer of at
 * least `min` (as a number or as the text `meta` keeps), and one newer than `supported` is
 * UNSUPPORTED, to be read by a newer library rather than guessed at. `what` names the database;
 * `corrupt` makes the door's own CORRUPT error (a snapshot's says it is one).
 */
export function checkSchemaVersion(
  method: string,
  value: unknown,
  what: string,
  { min = 1, supported = SCHEMA_VERSION, corrupt = (message: string) => new HybridMindError('CORRUPT', method, message) } = {},
): number {
  const version = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < min) throw corrupt(`${what} has no readable schema version, found ${show(value ?? null)}`);
  if (version > supported) {
    throw new HybridMindError('UNSUPPORTED', method, `${what} has schema version ${version}; this library reads up to ${supported}: upgrade hybridmind to read it`);
  }
  return version;
}

/**
 * The version lives in `meta` rather than `PRAGMA user_version` because Durable Object SQLite
 * does not allow that pragma; `meta` is not one of the numbered steps, so a store of any version
 * can be read first. 0: no `meta` yet (a new store). Reading it writes nothing, so a store at the
 * current version opens without a write.
 */
function currentVersion(db: SqlDriver): number {
  if (!hasTable(db, 'meta')) return 0;
  const row = db.all<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")[0];
  return row ? checkSchemaVersion('HybridMemory.open', row.value, 'the store', { min: 0 }) : 0;
}

/** Whether the database has a table of that name (a read of `sqlite_master`, which Durable Object SQLite allows). */
export function hasTable(db: SqlDriver, name: string): boolean {
  return db.all("SELECT 1 AS present FROM sqlite_master WHERE type = 'table' AND name = ?", [name]).length > 0;
}

/**
 * Brings a database to the current schema; refuses one written by a newer library. `meta` is
 * created in the same transaction as the steps, so a new store's schema is one commit: on OPFS a
 * second one, `meta` on its own, took ~10 ms of a new store's first connect (bench/NOTES.md).
 */
export function migrate(db: SqlDriver): void {
  const from = currentVersion(db);
  if (from === SCHEMA_VERSION) return;
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
    for (let v = from; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
    db.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", [String(SCHEMA_VERSION)]);
  });
}
