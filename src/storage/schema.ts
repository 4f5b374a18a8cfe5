import type { SqlDriver } from './driver.js';
import { HybridMindError } from '../errors.js';

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
 * The version lives in `meta` rather than `PRAGMA user_version` because Durable Object SQLite
 * does not allow that pragma; `meta` is created outside the numbered steps so it can be read first.
 */
function currentVersion(db: SqlDriver): number {
  db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
  const row = db.all<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")[0];
  return row ? Number(row.value) : 0;
}

/** Brings a database to the current schema; refuses one written by a newer library. */
export function migrate(db: SqlDriver): void {
  const from = currentVersion(db);
  if (!Number.isInteger(from) || from < 0) {
    throw new HybridMindError('CORRUPT', 'HybridMemory.open', `the store's schema version is unreadable, received ${JSON.stringify(from)}`);
  }
  if (from > SCHEMA_VERSION) {
    throw new HybridMindError(
      'UNSUPPORTED',
      'HybridMemory.open',
      `the store has schema version ${from}, this library reads up to ${SCHEMA_VERSION}; upgrade hybridmind`,
    );
  }
  if (from === SCHEMA_VERSION) return;
  db.transaction(() => {
    for (let v = from; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
    db.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", [String(SCHEMA_VERSION)]);
  });
}
