/**
 * A SQLite database from outside (a snapshot's store.db, `open({ storage: { bytes } })`) is
 * checked before anything runs on it: a planted trigger would run on the next write, a view or an
 * extra table could stand in for ours, and SQLite enforces neither column types nor this
 * library's row rules. Every such door calls `adoptForeignDatabase`, so they cannot drift apart.
 */
import { messageOf, type HybridMindError } from '../errors.js';
import type { SqlDriver } from '../storage/driver.js';
import { Repository } from '../storage/repository.js';
import { migrate } from '../storage/schema.js';
import { rowProblem, type RowsToCheck } from './rows.js';

/**
 * Derived tables a database may carry but is never trusted for: `ann_index` holds HNSW bytes that
 * would go to hnswlib's parser, which does not defend against crafted input; `derived_index` holds
 * saved lexical and entity indexes and int8 vector codes that could disagree with the checked rows. They are emptied
 * and the store rebuilds them from the (checked) rows.
 */
export const DERIVED_TABLES: readonly string[] = ['ann_index', 'derived_index'];

export type Fail = (message: string, cause?: unknown) => HybridMindError;

/** The rows the row rules read, in one synchronous pass. */
export function readRows(repo: Repository): RowsToCheck {
  const dim = repo.getMeta('dim');
  return {
    memories: repo.allMemories(),
    edges: repo.allEdges(),
    // Raw blobs, not `allVectors()`: a crafted database may hold blobs no Float32Array can view.
    vectors: repo.db.all<{ no: number; vector: Uint8Array }>('SELECT no, vector FROM vectors ORDER BY no').map((r) => ({ no: Number(r.no), bytes: r.vector })),
    dim: dim === null ? null : Number(dim),
  };
}

/**
 * Checks `driver`'s database (integrity, foreign keys, schema objects, then — after migrating it
 * to the current schema — the exact schema and every row), empties the derived tables and returns
 * it as a repository with its rows as `read` gives them. `beforeMigrate` adds a door's own checks
 * (a snapshot's schema version against its manifest). Every refusal is `fail(message)`.
 */
export async function adoptForeignDatabase<T extends RowsToCheck>(
  driver: SqlDriver,
  fail: Fail,
  read: (repo: Repository) => T,
  beforeMigrate: () => void = () => {},
): Promise<{ repository: Repository; rows: T }> {
  checkIntegrity(driver, fail);
  const orphans = driver.all<{ table: string; rowid: number; parent: string }>('PRAGMA foreign_key_check');
  if (orphans.length > 0) {
    const first = orphans[0]!;
    throw fail(`${orphans.length} rows point at missing rows (foreign_key_check), e.g. ${first.table} row ${first.rowid} → ${first.parent}`);
  }
  const reference = await referenceSchema();
  const known = new Set(reference.map((e) => e.name));
  // Before anything writes (migrating does): a trigger planted here would run on that write.
  for (const e of objectsOf(driver)) {
    if ((e.type !== 'table' && e.type !== 'index') || !known.has(e.name)) throw fail(`does not have the hybridmind schema: unexpected ${e.type} ${JSON.stringify(e.name)}`);
  }
  beforeMigrate();
  let repository: Repository;
  try {
    repository = new Repository(driver);
  } catch (cause) {
    throw fail(`cannot be brought to the current schema: ${messageOf(cause)}`, cause);
  }
  if (JSON.stringify(objectsOf(driver)) !== JSON.stringify(reference)) throw fail('does not have the hybridmind schema (tables, indexes, views or triggers differ)');
  for (const table of DERIVED_TABLES) driver.exec(`DELETE FROM ${table}`);
  const rows = read(repository);
  const problem = rowProblem(rows);
  if (problem) throw fail(problem);
  return { repository, rows };
}

function checkIntegrity(driver: SqlDriver, fail: Fail): void {
  let problems: string[];
  try {
    problems = driver.all<{ integrity_check: string }>('PRAGMA integrity_check(10)').map((r) => String(r.integrity_check));
  } catch (cause) {
    // Damage to a table's root page makes the check itself fail rather than report.
    problems = [messageOf(cause)];
  }
  if (problems.length !== 1 || problems[0] !== 'ok') throw fail(`fails SQLite's integrity_check: ${problems.join('; ').slice(0, 300)}`);
}

interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

function objectsOf(db: SqlDriver): SchemaObject[] {
  return db.all<SchemaObject & Record<string, string | null>>('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name');
}

let reference: Promise<SchemaObject[]> | undefined;

/** The schema this library creates, read back from a fresh database (SQLite-WASM loaded on first use). */
function referenceSchema(): Promise<SchemaObject[]> {
  reference ??= import('../storage/sqlite-wasm.js').then((m) => m.SqliteWasmDriver.open()).then((db) => {
    try {
      migrate(db);
      return objectsOf(db);
    } finally {
      db.close();
    }
  });
  return reference;
}
