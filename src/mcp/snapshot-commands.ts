/**
 * `hybridmind-mcp export` / `import`: moving the server's SQLite store as a `.mind.zip`. They
 * open the store like the server does (so they fail with BUSY while a server owns it) and never
 * load an embedding model: vectors travel as they are.
 */
import { access, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { HybridMindError, messageOf } from '../errors.js';
import type { Logger } from '../logger.js';
import { HybridMemory } from '../hybrid-memory.js';
import { saveSnapshotFile } from '../snapshot/node-files.js';

const METHOD = 'hybridmind-mcp';

async function withStore<T>(file: string, logger: Logger, fn: (mem: HybridMemory) => Promise<T>): Promise<T> {
  const mem = await HybridMemory.open({ storage: file, embedder: null, logger });
  try {
    return await fn(mem);
  } finally {
    await mem.close();
  }
}

/** Writes the store at `file` to `zip` atomically (the old zip stays whole until the new one is complete), creating its folders. */
export async function exportStore(file: string, zip: string, logger: Logger): Promise<void> {
  await access(file).catch((cause: unknown) => {
    throw new HybridMindError('NOT_FOUND', METHOD, `export: there is no store at ${file}`, { cause });
  });
  await withStore(file, logger, async (mem) => {
    await mkdir(dirname(zip), { recursive: true });
    await saveSnapshotFile(mem, zip);
    logger('info', `exported ${file} to ${zip}`, { memories: (await mem.stats()).memories });
  });
}

/**
 * Replaces the content of the store at `file` (created if missing) with the snapshot's, in one
 * transaction after the archive is fully validated; a store that holds memories is replaced only
 * with `replace`.
 */
export async function importStore(file: string, zip: string, replace: boolean, logger: Logger): Promise<void> {
  const bytes = await readFile(zip).catch((cause: unknown) => {
    throw new HybridMindError('NOT_FOUND', METHOD, `import: cannot read ${zip}: ${messageOf(cause)}`, { cause });
  });
  await withStore(file, logger, async (mem) => {
    const held = (await mem.stats()).memories;
    if (held > 0 && !replace) throw new HybridMindError('CONFLICT', METHOD, `import: ${file} already holds ${held} memories; pass --replace to replace them with the snapshot`);
    await mem.restoreSnapshot(bytes);
    logger('info', `imported ${zip} into ${file}`, { memories: (await mem.stats()).memories, replaced: held });
  });
}
