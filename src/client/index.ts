export { connect, type WorkerLike } from './connect.js';
export type { ConnectOptions, RemoteMemory, WorkerStoreOptions } from './types.js';
export type { MemoryEvent } from './protocol.js';
export { HybridMindError, type ErrorCode } from '../errors.js';

import { connect } from './connect.js';

/**
 * The page-side face of `HybridMemory`: `HybridMemory.connect(worker, options)` without pulling
 * the engine (SQLite, the model) into the page bundle; they live in the worker.
 */
export const HybridMemory = { connect } as const;
