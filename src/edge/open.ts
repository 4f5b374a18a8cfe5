import { HybridMemory, type OpenOptions } from '../hybrid-memory.js';
import { DEFAULT_SAVE_AFTER_MS } from '../memory/quiet-save.js';
import { DurableObjectDriver, type DurableObjectStorageLike } from './durable-object-driver.js';

/** `HybridMemory.open` options on Workers: the storage is the Durable Object's and HNSW is off. */
export type DurableMemoryOptions = Omit<OpenOptions, 'storage' | 'ann'>;

/**
 * Opens the memory kept in one Durable Object's SQLite, loading the indexes it saved (once writes
 * went quiet, see `saveIndexesAfterMs`) or rebuilding them from the rows.
 * workerd cannot compile WebAssembly at run time, so hnswlib-wasm never starts there and the
 * dense leg is the exact scan: the SIMD kernel when `vectorKernel` is the `kernel.wasm` module
 * imported by the Worker (precompiled by the platform), plain JavaScript otherwise. There is no
 * default embedder: pass one (`WorkersAiEmbedder`, `RemoteEmbedder`) or give vectors with each memory.
 *
 * @example
 * import kernel from 'hybridmind/kernel.wasm';
 * const mem = await openDurableMemory(this.ctx.storage, { embedder: new WorkersAiEmbedder({ ai: env.AI }), vectorKernel: kernel });
 */
export function openDurableMemory(storage: DurableObjectStorageLike, options: DurableMemoryOptions = {}): Promise<HybridMemory> {
  // An object is evicted without notice, so its indexes are saved once writes go quiet (not only at close).
  return HybridMemory.open({ embedder: null, vectorKernel: false, saveIndexesAfterMs: DEFAULT_SAVE_AFTER_MS, ...options, storage: new DurableObjectDriver(storage), ann: false });
}
