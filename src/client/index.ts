export { connect, type WorkerLike } from './connect.js';
export type { ConnectOptions, RemoteMemory, WorkerStoreOptions } from './types.js';
export type { MemoryEvent } from './protocol.js';
export { HybridMindError, type ErrorCode } from '../errors.js';

import type { HybridMemory as Engine } from '../hybrid-memory.js';
import { connect } from './connect.js';

/**
 * `HybridMemory` as a page sees it: the class's `connect` and nothing else, so
 * `HybridMemory.connect(worker, options)` reads the same on both sides without pulling the
 * engine (SQLite, the model) into the page bundle; it lives in the worker. Typed as the class's
 * own static, so the two cannot drift apart.
 */
export const HybridMemory: Pick<typeof Engine, 'connect'> = { connect };
