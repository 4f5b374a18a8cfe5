/**
 * The Workers / edge entry (`hybridmind/edge`). It never imports SQLite-WASM, hnswlib-wasm or
 * transformers.js, which cannot start on Cloudflare's workerd: storage is the Durable Object's
 * SQLite, the dense leg an exact scan, embeddings come from the caller or a remote service.
 */
export { HybridMemory, type OpenOptions } from '../hybrid-memory.js';
export { HybridMindError, type ErrorCode } from '../errors.js';
export { EDGE_TYPES } from '../types.js';
export type * from '../types.js';
export type { Embedder } from '../embedder/types.js';
export { RemoteEmbedder, type RemoteEmbedderOptions } from '../embedder/remote.js';
export type { Logger, LogLevel } from '../logger.js';
export type { SqlDriver, SqlRow, SqlValue } from '../storage/driver.js';
export { RECALL_DEFAULTS } from '../memory/recall-options.js';
export { DurableObjectDriver, type DurableObjectStorageLike, type DurableObjectSqlValue } from './durable-object-driver.js';
export { openDurableMemory, type DurableMemoryOptions } from './open.js';
export { WorkersAiEmbedder, type WorkersAiBinding, type WorkersAiEmbedderOptions } from './workers-ai-embedder.js';
export { importSnapshotInto, type ImportIntoOptions } from './import-snapshot.js';
export type { SnapshotLimits, SnapshotManifest } from '../snapshot/format.js';
