/**
 * store.db, the snapshot's truth, opened from bytes in its own in-memory SQLite and checked
 * before anything is derived from it: the checks every database from outside gets
 * (`validation/database.ts`: integrity, foreign keys, exact schema, the API's row rules) and
 * the schema version; `checkStoreContent` (verify.ts) then checks its rows against the manifest.
 */
import { HybridMindError, messageOf } from '../errors.js';
import type { SqlDriver } from '../storage/driver.js';
import type { Repository } from '../storage/repository.js';
import { adoptForeignDatabase } from '../validation/database.js';
import { readContent, type StoreContent } from './content.js';
import { corrupt, type SnapshotManifest } from './format.js';
import { checkStoreVersion } from './verify.js';

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
    const { repository, rows: content } = await adoptForeignDatabase(driver, fail, readContent, () => checkStoreVersion(method, version(), manifest));
    return { repository, content };
  } catch (error) {
    driver.close();
    throw asCorrupt(method, error);
  }
}

/** Whatever SQLite says about a hostile file, the caller learns it as CORRUPT under its own method. */
function asCorrupt(method: string, error: unknown): HybridMindError {
  if (error instanceof HybridMindError && error.method === method) return error;
  const message = error instanceof HybridMindError ? error.message.slice(error.method.length + 2) : messageOf(error);
  return corrupt(method, `store.db: ${message}`, error);
}
