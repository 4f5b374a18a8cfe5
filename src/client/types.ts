import type { CitationEvidence, CitationReport, Context, ContextOptions } from '../agent/context.js';
import type { MemoryCore } from '../memory/core.js';
import type { SnapshotLimits } from '../snapshot/format.js';
import type { RecallDefaults } from '../types.js';
import type { MemoryEvent, MemoryMethod } from './protocol.js';

/** What the worker opens: one store per worker. */
export interface WorkerStoreOptions {
  /** Store name: its OPFS folder and the lock other tabs meet on. Default `'default'`. */
  store?: string | undefined;
  /** `'forward'` (default): when another tab owns the store, go through it. `'fail'`: reject with BUSY. */
  multiTab?: 'forward' | 'fail' | undefined;
  /** Sentence model served by the app; `false`: no embedder (vectors only when given). */
  model?: false | {
    /** Folder URL holding `<modelId>/config.json`, … Default `'/models/'`. */
    localModelPath?: string | undefined;
    modelId?: string | undefined;
    /** Default `'q8'` (onnx/model_quantized.onnx). */
    dtype?: 'q8' | 'fp32' | undefined;
  } | undefined;
  /** Where onnxruntime-web's `.mjs`/`.wasm` are served, when not where the worker bundle put them. */
  wasmPaths?: string | { mjs: string; wasm: string } | undefined;
  /** Passed to `HybridMemory.open` (plain data only: no functions). */
  recall?: RecallDefaults | undefined;
  ann?: false | { threshold?: number | undefined; m?: number | undefined; efConstruction?: number | undefined; efSearch?: number | undefined } | undefined;
  /** Passed to `HybridMemory.open`: quiet time before the derived indexes are saved to OPFS (default 5000), or `false`. */
  saveIndexesAfterMs?: number | false | undefined;
  /** Wait this long (ms) for a tab that is closing to release the store. Default 3000. */
  handoverTimeoutMs?: number | undefined;
}

export interface ConnectOptions extends WorkerStoreOptions {
  /** Model loading, enrichment and role events. */
  onEvent?: ((event: MemoryEvent) => void) | undefined;
}

type Promised<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;

/**
 * The methods the public `HybridMemory` adds to the memory core from the agent and snapshot
 * services. Declared here, beside the transport that forwards them, because the client sits
 * below the facade; the facade `implements` it, so the two cannot drift apart.
 */
export interface ComposedMethods {
  context(query: string, options?: ContextOptions): Promise<Context>;
  checkCitations(text: string, contextOrIds: CitationEvidence | readonly string[]): Promise<CitationReport>;
  /** A `.mind.zip` snapshot of the store. */
  exportSnapshot(): Promise<Uint8Array>;
  /** Replaces the store's contents with a snapshot's. */
  restoreSnapshot(bytes: Uint8Array, options?: { limits?: SnapshotLimits | undefined }): Promise<void>;
}

/** Every method a client may call on `HybridMemory`, as the class declares it. */
export type MemoryMethods = MemoryCore & ComposedMethods;

type MemoryApi = { [K in MemoryMethod | 'close']: Promised<MemoryMethods[K]> };

/**
 * `HybridMemory` seen from a page: the same methods, every one async, run in the worker (or, when
 * another tab owns the store, in that tab's worker). Float32Arrays you pass are transferred, not
 * copied: pass a copy if you keep using one.
 */
export interface RemoteMemory extends MemoryApi {
  /** `'owner'`: this tab's worker holds the store; `'follower'`: it goes through the owner tab. */
  role(): Promise<'owner' | 'follower'>;
  /** The model's state in the owner worker. */
  modelStatus(): Promise<{ state: 'off' | 'loading' | 'ready' | 'failed'; id: string | null; error: string | null }>;
}
