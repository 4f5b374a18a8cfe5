/**
 * store.db, the snapshot's truth, opened from bytes in its own in-memory SQLite and checked
 * before anything is derived from it: SQLite's own integrity and foreign-key checks, the schema
 * version, the exact schema (no extra tables, views or triggers), and every row's types — SQLite
 * does not enforce column types, and a crafted file could otherwise crash the index rebuild.
 */
import { HybridMindError } from '../errors.js';
import { MAX_ID_LENGTH } from '../memory/validate.js';
import type { SqlDriver } from '../storage/driver.js';
import { Repository } from '../storage/repository.js';
import { migrate, SCHEMA_VERSION } from '../storage/schema.js';
import { readContent, type StoreContent } from './content.js';
import { corrupt, type SnapshotManifest } from './format.js';

/**
 * Derived tables a snapshot may carry but is never trusted for: `ann_index` holds HNSW bytes
 * that would go to hnswlib's parser, which does not defend against crafted input. They are
 * emptied on import and the store rebuilds them from the (checked) vectors.
 */
const UNTRUSTED_TABLES = ['ann_index'];

/** Loaded on first use, so bundles that never read a snapshot's database (Cloudflare Workers) never load SQLite-WASM. */
const sqliteWasm = async () => (await import('../storage/sqlite-wasm.js')).SqliteWasmDriver;

export interface OpenedStore {
  repository: Repository;
  content: StoreContent;
}

/** Opens and checks store.db; the caller owns (and must close) the returned repository's driver. */
export async function openStoreDb(method: string, bytes: Uint8Array, manifest: SnapshotManifest): Promise<OpenedStore> {
  let driver: SqlDriver;
  try {
    driver = await (await sqliteWasm()).open({ bytes });
  } catch (cause) {
    throw asCorrupt(method, cause);
  }
  try {
    checkIntegrity(method, driver);
    const orphans = driver.all<{ table: string; rowid: number; parent: string }>('PRAGMA foreign_key_check');
    if (orphans.length > 0) {
      const first = orphans[0]!;
      throw corrupt(method, `store.db has ${orphans.length} rows pointing at missing rows (foreign_key_check), e.g. ${first.table} row ${first.rowid} → ${first.parent}`);
    }
    checkSchemaVersion(method, driver, manifest);
    const repository = new Repository(driver);
    const schema = schemaOf(driver);
    if (schema !== (await referenceSchema())) throw corrupt(method, 'store.db does not have the hybridmind schema (tables, indexes, views or triggers differ)');
    for (const table of UNTRUSTED_TABLES) {
      if (driver.all("SELECT 1 AS present FROM sqlite_master WHERE type = 'table' AND name = ?", [table]).length > 0) driver.exec(`DELETE FROM ${table}`);
    }
    const content = readContent(repository);
    checkRows(method, content);
    checkAgainstManifest(method, content, manifest);
    return { repository, content };
  } catch (error) {
    driver.close();
    throw asCorrupt(method, error);
  }
}

function checkIntegrity(method: string, driver: SqlDriver): void {
  let problems: string[];
  try {
    problems = driver.all<{ integrity_check: string }>('PRAGMA integrity_check(10)').map((r) => String(r.integrity_check));
  } catch (cause) {
    // Damage to a table's root page makes the check itself fail rather than report.
    problems = [cause instanceof Error ? cause.message : String(cause)];
  }
  if (problems.length !== 1 || problems[0] !== 'ok') throw corrupt(method, `store.db fails SQLite's integrity_check: ${problems.join('; ').slice(0, 300)}`);
}

function checkSchemaVersion(method: string, driver: SqlDriver, manifest: SnapshotManifest): void {
  const row = driver.all<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")[0];
  const version = Number(row?.value);
  if (!Number.isSafeInteger(version) || version < 1) throw corrupt(method, `store.db has no readable schema version, found ${JSON.stringify(row?.value ?? null)}`);
  if (version > SCHEMA_VERSION) {
    throw new HybridMindError('UNSUPPORTED', method, `the snapshot's database has schema version ${version}; this library reads up to ${SCHEMA_VERSION} — upgrade hybridmind to import it`);
  }
  if (version !== manifest.schemaVersion) throw corrupt(method, `store.db has schema version ${version}, the manifest says ${manifest.schemaVersion}`);
}

let reference: Promise<string> | undefined;

/** The schema this library creates, read back from a fresh database. */
function referenceSchema(): Promise<string> {
  reference ??= sqliteWasm().then((Driver) => Driver.open()).then((db) => {
    try {
      migrate(db);
      return schemaOf(db);
    } finally {
      db.close();
    }
  });
  return reference;
}

function schemaOf(db: SqlDriver): string {
  return JSON.stringify(db.all('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name'));
}

const isInt = (v: unknown): boolean => Number.isSafeInteger(v);
const isLabel = (v: unknown): boolean => v === null || typeof v === 'string';

function isJsonObject(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

export function checkRows(method: string, content: StoreContent): void {
  for (const m of content.memories) {
    const ok = isInt(m.no) && typeof m.id === 'string' && m.id.length > 0 && m.id.length <= MAX_ID_LENGTH && typeof m.text === 'string'
      && isLabel(m.kind) && isLabel(m.domain) && isJsonObject(m.metadata) && isInt(m.created_at) && isInt(m.valid_from)
      && (m.valid_to === null || isInt(m.valid_to));
    if (!ok) throw corrupt(method, `store.db memory row ${String(m.no)} has a field of the wrong type`);
  }
  for (const e of content.edges) {
    const ok = isInt(e.no) && typeof e.id === 'string' && e.id.length > 0 && isInt(e.src) && isInt(e.dst) && typeof e.type === 'string' && e.type.length > 0
      && typeof e.weight === 'number' && Number.isFinite(e.weight) && e.weight > 0 && isJsonObject(e.metadata) && isInt(e.valid_from) && isInt(e.created_at)
      && (e.closes_valid_to === 0 || e.closes_valid_to === 1) && (e.prior_valid_to === null || isInt(e.prior_valid_to));
    if (!ok) throw corrupt(method, `store.db edge row ${String(e.no)} has a field of the wrong type`);
  }
  const bytes = (content.dim ?? 0) * 4;
  for (const v of content.vectors) {
    if (!(v.bytes instanceof Uint8Array) || v.bytes.byteLength !== bytes) throw corrupt(method, `store.db vector of memory ${v.no} is not ${content.dim} float32 values`);
  }
  if (content.dim !== null && !(Number.isSafeInteger(content.dim) && content.dim > 0)) throw corrupt(method, 'store.db records an unreadable vector dimension');
}

export function checkAgainstManifest(method: string, content: StoreContent, manifest: SnapshotManifest): void {
  const differs = (what: string, db: unknown, m: unknown) => corrupt(method, `store.db has ${what} ${JSON.stringify(db)}, the manifest says ${JSON.stringify(m)}`);
  if (content.dim !== manifest.dim) throw differs('dim', content.dim, manifest.dim);
  if (content.embedderId !== manifest.embedderId) throw differs('embedder id', content.embedderId, manifest.embedderId);
  if (content.memories.length !== manifest.counts.memories) throw differs('memory count', content.memories.length, manifest.counts.memories);
  if (content.edges.length !== manifest.counts.edges) throw differs('edge count', content.edges.length, manifest.counts.edges);
  if (content.vectors.length !== manifest.counts.vectors) throw differs('vector count', content.vectors.length, manifest.counts.vectors);
}

/** Whatever SQLite says about a hostile file, the caller learns it as CORRUPT under its own method. */
function asCorrupt(method: string, error: unknown): HybridMindError {
  if (error instanceof HybridMindError && error.method === method) return error;
  const message = error instanceof HybridMindError ? error.message.slice(error.method.length + 2) : error instanceof Error ? error.message : String(error);
  return corrupt(method, `store.db: ${message}`, error);
}
