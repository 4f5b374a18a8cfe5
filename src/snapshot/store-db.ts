/**
 * store.db, the snapshot's truth, opened from bytes in its own in-memory SQLite and checked
 * before anything is derived from it: the checks every database from outside gets
 * (`validation/database.ts`: integrity, foreign keys, exact schema, the API's row rules), plus
 * the snapshot's own — the schema version and the counts against the manifest.
 */
import { HybridMindError, messageOf } from '../errors.js';
import type { SqlDriver } from '../storage/driver.js';
import type { Repository } from '../storage/repository.js';
import { SCHEMA_VERSION } from '../storage/schema.js';
import { adoptForeignDatabase } from '../validation/database.js';
import { rowProblem } from '../validation/rows.js';
import { readContent, type StoreContent } from './content.js';
import { corrupt, type SnapshotManifest } from './format.js';

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
    const fail = (message: string, cause?: unknown) => corrupt(method, `store.db ${message}`, cause);
    const version = () => driver.all<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")[0]?.value;
    const { repository, rows: content } = await adoptForeignDatabase(driver, fail, readContent, () => checkSchemaVersion(method, version(), manifest));
    checkAgainstManifest(method, content, manifest);
    return { repository, content };
  } catch (error) {
    driver.close();
    throw asCorrupt(method, error);
  }
}

/** store.db's `meta.schema_version` against this library and the manifest, for every import path. */
export function checkSchemaVersion(method: string, value: unknown, manifest: SnapshotManifest): void {
  const version = Number(value);
  if (!Number.isSafeInteger(version) || version < 1) throw corrupt(method, `store.db has no readable schema version, found ${JSON.stringify(value ?? null)}`);
  if (version > SCHEMA_VERSION) {
    throw new HybridMindError('UNSUPPORTED', method, `the snapshot's database has schema version ${version}; this library reads up to ${SCHEMA_VERSION} — upgrade hybridmind to import it`);
  }
  if (version !== manifest.schemaVersion) throw corrupt(method, `store.db has schema version ${version}, the manifest says ${manifest.schemaVersion}`);
}

/** The library's row rules (validation/rows.ts), the same for every door a database comes through. */
export function checkRows(method: string, content: StoreContent): void {
  const problem = rowProblem(content);
  if (problem) throw corrupt(method, `store.db ${problem}`);
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
  const message = error instanceof HybridMindError ? error.message.slice(error.method.length + 2) : messageOf(error);
  return corrupt(method, `store.db: ${message}`, error);
}
