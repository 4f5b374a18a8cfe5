import { checkOptions, keysOf } from '../memory/validate.js';
import type { Repository } from '../storage/repository.js';
import type { SnapshotManifest } from './format.js';
import { openStoreDb } from './store-db.js';
import { checkStoreContent, readSnapshotParts, type SnapshotExpectations } from './verify.js';

export type { SnapshotExpectations };

export interface OpenedSnapshot {
  manifest: SnapshotManifest;
  /** store.db opened in its own in-memory SQLite; the caller closes `repository.db`. */
  repository: Repository;
}

/**
 * Validates a `.mind.zip` completely (FORMAT.md, "Validation order") and returns its database,
 * opened and checked. Nothing outside the new in-memory database is touched, whatever happens.
 */
export async function openSnapshot(method: string, bytes: unknown, expect: SnapshotExpectations = {}): Promise<OpenedSnapshot> {
  const { manifest, parts, derived } = await readSnapshotParts(method, bytes, expect);
  const store = await openStoreDb(method, parts['store.db'], manifest);
  try {
    checkStoreContent(method, store.content, manifest, derived, { rowsChecked: true });
  } catch (error) {
    store.repository.db.close();
    throw error;
  }
  return { manifest, repository: store.repository };
}

/** Validates without creating a store; resolves to the manifest. */
export async function verifySnapshot(bytes: Uint8Array, expect: SnapshotExpectations = {}): Promise<SnapshotManifest> {
  const { manifest, repository } = await openSnapshot('verifySnapshot', bytes, checkExpectations('verifySnapshot', expect));
  repository.db.close();
  return manifest;
}

const EXPECT_KEYS = keysOf<SnapshotExpectations>({ embedder: true, dim: true, limits: true });

export function checkExpectations(method: string, value: unknown): SnapshotExpectations {
  const o = checkOptions(method, 'options', value, EXPECT_KEYS);
  return o as SnapshotExpectations;
}
