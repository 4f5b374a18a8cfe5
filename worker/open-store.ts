import { DEFAULT_MODEL_ID } from '../src/embedder/model-id.js';
import type { Embedder } from '../src/embedder/types.js';
import { TransformersEmbedder } from '../src/embedder/transformers.js';
import { HybridMindError, messageOf } from '../src/errors.js';
import type { Logger } from '../src/logger.js';
import { HybridMemory } from '../src/hybrid-memory.js';
import { SqliteWasmDriver } from '../src/storage/sqlite-wasm.js';
import { loadSqlite3 } from '../src/storage/sqlite3-module.js';
import type { DerivedStore } from '../src/storage/driver.js';
import { defaultLegs } from '../src/legs/default.js';
import type { LegFactory } from '../src/legs/types.js';
import { preloadingStore } from '../src/memory/preload.js';
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import { openDerivedFiles } from './derived-files.js';
import type { WorkerStoreOptions } from '../src/client/types.js';
import type { MemoryEvent } from '../src/client/protocol.js';

/** Known output widths, so a store can open before its model has finished loading. */
const KNOWN_DIMS: Record<string, number> = { [DEFAULT_MODEL_ID]: 384 };

export type ModelState = { state: 'off' | 'loading' | 'ready' | 'failed'; id: string | null; error: string | null };

export interface OpenedStore {
  memory: HybridMemory;
  model: () => ModelState;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Installs the `opfs-sahpool` VFS in its own folder for this store, and opens the store's derived
 * files in that folder too (`derived-files.ts`). Their access handles are
 * exclusive: while a closing tab still holds them the install fails with NoModificationAllowedError,
 * so a new owner retries for a while before reporting BUSY.
 */
async function openDriver(store: string, timeoutMs: number, legs: Promise<LegFactory | null>): Promise<SqliteWasmDriver> {
  const directory = `/.hybridmind/${store}`;
  // Asked for while SQLite-WASM loads, each handle a round trip to the browser; once they are
  // open, the saved indexes decode in the waits that follow (`preloadingStore`).
  let early: Promise<DerivedStore> | null = openDerivedFiles(`${directory}/derived`).then(async (files) => {
    const factory = await legs;
    return factory ? preloadingStore(files, factory) : files;
  });
  // Handled here too: it may fail (a closing tab holds the files) before the loop below awaits it.
  early.catch(() => {});
  let sqlite3: Sqlite3Static;
  let install: ((o: object) => Promise<{ vfsName: string }>) | undefined;
  try {
    sqlite3 = await loadSqlite3({ sahpoolOnly: true });
    install = (sqlite3 as unknown as { installOpfsSAHPoolVfs?: (o: object) => Promise<{ vfsName: string }> }).installOpfsSAHPoolVfs;
    if (!install) throw new HybridMindError('UNSUPPORTED', 'connect', 'this SQLite-WASM build has no opfs-sahpool VFS');
  } catch (error) {
    void early.then((d) => d.close?.(), () => {});
    throw error;
  }
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const opening = early ?? openDerivedFiles(`${directory}/derived`);
      early = null;
      // Side by side: each waits on the browser for its access handles.
      const [pool, derived] = await Promise.allSettled([install({ name: `hybridmind-${store}`, directory, forceReinitIfPreviouslyFailed: true }), opening]);
      if (pool.status === 'rejected' || derived.status === 'rejected') {
        if (derived.status === 'fulfilled') derived.value.close?.();
        throw pool.status === 'rejected' ? pool.reason : (derived as PromiseRejectedResult).reason;
      }
      return await SqliteWasmDriver.open({ filename: '/store.db', vfs: pool.value.vfsName, sqlite3, derived: derived.value });
    } catch (error) {
      const locked = error instanceof Error && (error.name === 'NoModificationAllowedError' || /NoModificationAllowed|access handle/i.test(error.message));
      if (!locked) throw error instanceof HybridMindError ? error : new HybridMindError('STORAGE', 'connect', `opening the store on OPFS failed: ${messageOf(error)}`);
      if (Date.now() > deadline) throw new HybridMindError('BUSY', 'connect', `store ${JSON.stringify(store)} is held by another tab or window`);
      await sleep(Math.min(50 * 2 ** attempt, 400));
    }
  }
}

/**
 * An embedder whose id and width are known up front while the model loads in the background:
 * the store opens at once, enrichment and query embedding wait for the model.
 */
function lazyEmbedder(id: string, dim: number, model: Promise<Embedder>): Embedder {
  return { id, dim, embed: async (texts) => (await model).embed(texts) };
}

export async function openStore(options: WorkerStoreOptions, emit: (event: MemoryEvent) => void, logger: Logger): Promise<OpenedStore> {
  const store = options.store ?? 'default';
  // The store's own legs (HybridMemory.open makes the same), for the saved indexes' loaders.
  const legs = defaultLegs({ ann: options.ann, logger }).catch(() => null);
  const driver = await openDriver(store, options.handoverTimeoutMs ?? 3000, legs);
  const model: ModelState = { state: 'off', id: null, error: null };
  let embedder: Embedder | null = null;
  if (options.model !== false) {
    const m = options.model ?? {};
    const modelId = m.modelId ?? DEFAULT_MODEL_ID;
    const dtype = m.dtype ?? 'q8';
    model.state = 'loading';
    model.id = `${modelId}:${dtype}`;
    const started = performance.now();
    const loading = TransformersEmbedder.create({
      modelId, dtype, localModelPath: m.localModelPath ?? '/models/', allowRemoteModels: false, logger,
      onProgress: (p) => emit({ type: 'model', ...p }),
    });
    loading.then(
      (e) => {
        model.state = 'ready';
        emit({ type: 'model-ready', id: e.id, dim: e.dim, ms: Math.round(performance.now() - started) });
      },
      (error: unknown) => {
        model.state = 'failed';
        model.error = messageOf(error);
        emit({ type: 'model-error', message: model.error });
      },
    );
    const dim = KNOWN_DIMS[modelId];
    embedder = dim ? lazyEmbedder(model.id, dim, loading) : await loading;
  }
  try {
    const memory = await HybridMemory.open({
      storage: driver,
      embedder,
      logger,
      ...(options.recall ? { recall: options.recall } : {}),
      ...(options.ann !== undefined ? { ann: options.ann } : {}),
      ...(options.saveIndexesAfterMs !== undefined ? { saveIndexesAfterMs: options.saveIndexesAfterMs } : {}),
      enrichment: { onProgress: (p) => emit({ type: 'enrichment', ...p }) },
    });
    return { memory, model: () => ({ ...model }) };
  } catch (error) {
    driver.close();
    throw error;
  }
}
