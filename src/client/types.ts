import type { HybridMemory } from '../memory/hybrid-memory.js';
import type { RecallDefaults } from '../types.js';
import type { MemoryEvent } from './protocol.js';

/** What the worker opens: one store per worker. */
export interface WorkerStoreOptions {
  /** Store name: its OPFS folder and the lock other tabs meet on. Default `'default'`. */
  store?: string;
  /** `'forward'` (default): when another tab owns the store, go through it. `'fail'`: reject with BUSY. */
  multiTab?: 'forward' | 'fail';
  /** Sentence model served by the app; `false`: no embedder (vectors only when given). */
  model?: false | {
    /** Folder URL holding `<modelId>/config.json`, … Default `'/models/'`. */
    localModelPath?: string;
    modelId?: string;
    /** Default `'q8'` (onnx/model_quantized.onnx). */
    dtype?: 'q8' | 'fp32';
  };
  /** Where onnxruntime-web's `.mjs`/`.wasm` are served, when not where the worker bundle put them. */
  wasmPaths?: string | { mjs: string; wasm: string };
  /** Passed to `HybridMemory.open` (plain data only: no functions). */
  recall?: RecallDefaults;
  ann?: false | { threshold?: number; m?: number; efConstruction?: number; efSearch?: number };
  /** Wait this long (ms) for a tab that is closing to release the store. Default 3000. */
  handoverTimeoutMs?: number;
}

export interface ConnectOptions extends WorkerStoreOptions {
  /** Model loading, enrichment and role events. */
  onEvent?: (event: MemoryEvent) => void;
}

type Promised<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;

type MemoryApi = {
  [K in 'store' | 'storeMany' | 'relate' | 'relateMany' | 'unrelate' | 'update' | 'forget' | 'get' | 'list' | 'edges' | 'autoEdges'
    | 'removeAutoEdges' | 'recall' | 'recallReport' | 'context' | 'checkCitations' | 'compare' | 'trace' | 'path' | 'ready'
    | 'reembed' | 'stats' | 'compact' | 'exportDatabase' | 'close']: Promised<HybridMemory[K]>;
};

/**
 * `HybridMemory` seen from a page: the same methods, every one async, run in the worker (or, when
 * another tab owns the store, in that tab's worker). Float32Arrays you pass are transferred, not
 * copied: pass a copy if you keep using one.
 */
export interface RemoteMemory extends MemoryApi {
  /** A `.mind.zip` snapshot of the store (when the library build includes snapshots). */
  exportSnapshot(): Promise<Uint8Array>;
  /** Replaces the store's contents with a snapshot. */
  restoreSnapshot(bytes: Uint8Array): Promise<void>;
  /** `'owner'`: this tab's worker holds the store; `'follower'`: it goes through the owner tab. */
  role(): Promise<'owner' | 'follower'>;
  /** The model's state in the owner worker. */
  modelStatus(): Promise<{ state: 'off' | 'loading' | 'ready' | 'failed'; id: string | null; error: string | null }>;
}
