/**
 * The store's derived values (saved indexes, vector codes) as OPFS files beside its database, in
 * the pool's folder (so removing the pool removes them), each held through a sync access handle
 * for as long as the store is open: see `src/storage/derived-files.ts` for why and how.
 */
import { fileDerivedStore, type SyncFile } from '../src/storage/derived-files.js';
import type { DerivedStore } from '../src/storage/driver.js';
import { DERIVED_NAMES } from '../src/memory/indexes.js';

/** The parts of the OPFS API used here (TypeScript's DOM lib has no `createSyncAccessHandle` for every target). */
interface Directory {
  getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<Directory>;
  getFileHandle(name: string, options?: { create?: boolean }): Promise<{ createSyncAccessHandle(): Promise<SyncFile> }>;
}

/** Opens (creating) one file per derived value under `path`, a slash-separated folder below the OPFS root. */
export async function openDerivedFiles(path: string): Promise<DerivedStore> {
  let dir = (await navigator.storage.getDirectory()) as unknown as Directory;
  for (const part of path.split('/').filter(Boolean)) dir = await dir.getDirectoryHandle(part, { create: true });
  const opened = await Promise.allSettled(DERIVED_NAMES.map(async (name) => (await dir.getFileHandle(`${name}.bin`, { create: true })).createSyncAccessHandle()));
  const failed = opened.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) {
    for (const o of opened) if (o.status === 'fulfilled') o.value.close();
    throw failed.reason;
  }
  return fileDerivedStore(new Map(DERIVED_NAMES.map((name, i) => [name, (opened[i] as PromiseFulfilledResult<SyncFile>).value])));
}
