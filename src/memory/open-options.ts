import type { Embedder } from '../embedder/types.js';
import { HybridMindError, invalid, messageOf } from '../errors.js';
import { isKernelSource, type AnnOptions, type VectorKernelSource } from '../legs/types.js';
import type { Logger } from '../logger.js';
import type { SqlDriver } from '../storage/driver.js';
import type { RecallDefaults } from '../types.js';
import { resolveAutoEdges, type AutoEdgeOptions, type ResolvedAutoEdges } from './auto-edges.js';
import type { EnrichmentOptions } from './enrichment.js';
import { modelConflict } from './model.js';
import { resolveNeighbourAveraging, type NeighbourAveraging, type NeighbourAveragingOption } from './neighbour-averaging.js';
import { checkSaveDelay } from './quiet-save.js';
import { resolveDefaults, type ResolvedDefaults } from './recall-options.js';
import { checkIntInRange, checkOptions, isEmbedder, keysOf } from './validate.js';
import { adoptForeignDatabase, readRows } from '../validation/database.js';
import { readSqliteHeader, SQLITE_HEADER_BYTES } from '../validation/sqlite-header.js';

/** Options of `HybridMemory.open`. Every field is optional. */
export interface OpenOptions {
  /**
   * `'memory'` (default): an in-memory SQLite-WASM database. A file path (Node only; one with a
   * `/` or ending in `.db`/`.sqlite`, e.g. `'./data/memory.db'`): a SQLite file on disk in
   * WAL mode, created with its folders if missing, through the optional package better-sqlite3
   * (`SqliteFileDriver` in `hybridmind/node` takes options). Or any `SqlDriver`, or database bytes.
   */
  storage?: 'memory' | string | SqlDriver | { bytes: Uint8Array } | undefined;
  /**
   * Computes vectors for memories stored without one. Omitted: all-MiniLM-L6-v2 through
   * transformers.js when it can be loaded (see `defaultEmbedder`), else a warning and no dense leg.
   * `'required'`: the same model, but `open()` fails with EMBEDDER (or MISSING_DEPENDENCY) when it
   * cannot be loaded. `null`: no dense leg unless vectors are given.
   */
  embedder?: Embedder | null | 'required' | undefined;
  /** Vector dimension for a new store (else the embedder's, else the first vector's). */
  dim?: number | undefined;
  /** The clock, epoch ms; tests pin it. */
  now?: (() => number) | undefined;
  /** Diagnostics; default `defaultLogger`: warnings and errors on the console. `silentLogger` drops them. */
  logger?: Logger | undefined;
  /** Defaults for every `recall()` on this store. */
  recall?: RecallDefaults | undefined;
  /** Background embedding: batch size, retries, progress. */
  enrichment?: EnrichmentOptions | undefined;
  /** The WASM-SIMD kernel: a precompiled module (required on Cloudflare Workers) or bytes; `false` forces the JS scan. */
  vectorKernel?: VectorKernelSource | false | undefined;
  /** HNSW for large stores (threshold, m, efConstruction, efSearch); `false` keeps the exact scan. */
  ann?: AnnOptions | false | undefined;
  /**
   * In Node on two cores or more, the exact scan over 32,768 vectors or more shares its int8 pass
   * with a second thread (about half its time at 100k); `false` keeps it on the calling thread.
   * Default `true`. Elsewhere the scan runs on one thread.
   */
  vectorThreads?: boolean | undefined;
  /**
   * Open a store whose vectors came from another model or dimension by dropping them and
   * embedding every memory again with `embedder` (progress through `enrichment.onProgress`).
   * Without it such a store is refused with MODEL_MISMATCH / DIMENSION_MISMATCH.
   */
  reembed?: boolean | undefined;
  /** Edges drawn at ingest: references by identifier, shared rare identifiers, session turns. Off by default; `true` for all. */
  autoEdges?: AutoEdgeOptions | boolean | undefined;
  /**
   * Index each new vector averaged with its k nearest neighbours (the model's raw vector is kept):
   * `true` for weight 0.3, k 5, or `{ weight, k }`. Off by default.
   */
  neighbourAveraging?: NeighbourAveragingOption | undefined;
  /**
   * Quiet time, in ms, after the last write before the lexical and entity indexes and the vector
   * codes are saved into the store, so the next open loads them instead of rebuilding them, also
   * when the store is never closed (a Durable Object evicted, a tab closed, a process killed).
   * Default 5000 for a database that outlives the process, none for an in-memory one; `false`
   * saves them only at `close()` and export. A save takes about a second at 100k memories. A
   * store that does not save them this way compacts the lexical and entity indexes instead once
   * writes went quiet (5000 ms), folding many changes into their flat arrays as a save would.
   */
  saveIndexesAfterMs?: number | false | undefined;
}

export const OPEN_KEYS = keysOf<OpenOptions>({
  storage: true, embedder: true, dim: true, now: true, logger: true, recall: true, enrichment: true, vectorKernel: true, ann: true, vectorThreads: true, reembed: true,
  autoEdges: true, neighbourAveraging: true, saveIndexesAfterMs: true,
});

/** Checks `open()`'s options before anything loads, and resolves the per-store defaults. */
export function checkOpenOptions(method: string, options: unknown): { o: OpenOptions; defaults: ResolvedDefaults; autoEdges: ResolvedAutoEdges | null; neighbourAveraging: NeighbourAveraging | null } {
  const o = checkOptions(method, 'options', options, OPEN_KEYS) as OpenOptions;
  if (o.embedder != null && o.embedder !== 'required' && !isEmbedder(o.embedder)) {
    throw invalid(method, "options.embedder must be an Embedder ({ id, dim, embed }), 'required' or null", o.embedder);
  }
  if (o.dim !== undefined) checkIntInRange(method, 'options.dim', o.dim, 1, 65_536);
  if (typeof o.embedder === 'object' && o.embedder !== null) {
    const conflict = modelConflict(method, { holder: `the embedder ${JSON.stringify(o.embedder.id)}`, dim: o.embedder.dim, embedderId: o.embedder.id }, { dim: o.dim, embedder: null });
    if (conflict) throw conflict;
  }
  if (o.now !== undefined && typeof o.now !== 'function') throw invalid(method, 'options.now must be a function returning epoch ms', o.now);
  if (o.logger !== undefined && typeof o.logger !== 'function') throw invalid(method, 'options.logger must be a function', o.logger);
  if (o.vectorKernel !== undefined && o.vectorKernel !== false && !isKernelSource(o.vectorKernel)) {
    throw invalid(method, 'options.vectorKernel must be a WebAssembly.Module, its bytes (an ArrayBuffer or a Uint8Array) or false', o.vectorKernel);
  }
  if (o.vectorThreads !== undefined && typeof o.vectorThreads !== 'boolean') throw invalid(method, 'options.vectorThreads must be a boolean', o.vectorThreads);
  checkSaveDelay(method, o.saveIndexesAfterMs);
  const defaults = resolveDefaults(method, o.recall);
  const autoEdges = resolveAutoEdges(method, o.autoEdges);
  const neighbourAveraging = resolveNeighbourAveraging(method, o.neighbourAveraging);
  return { o, defaults, autoEdges, neighbourAveraging };
}

/**
 * SQLite-WASM is loaded only when a store asks for it: Cloudflare Workers cannot start it (it
 * compiles WebAssembly at run time), so an edge bundle that passes its own driver must never
 * reach it through a static import.
 */
export async function openDriver(method: string, storage: OpenOptions['storage']): Promise<SqlDriver> {
  const sqliteWasm = async () => (await import('../storage/sqlite-wasm.js')).SqliteWasmDriver;
  if (storage === undefined || storage === 'memory') return (await sqliteWasm()).open();
  if (typeof storage === 'string' && looksLikePath(storage)) return openFileDriver(method, storage);
  if (typeof storage === 'object' && storage !== null) {
    if ('bytes' in storage) {
      if (!(storage.bytes instanceof Uint8Array)) throw invalid(method, 'options.storage.bytes must be a Uint8Array', storage.bytes);
      const fail = (message: string, cause?: unknown) => new HybridMindError('CORRUPT', method, `options.storage.bytes: the database ${message}`, { cause });
      try {
        readSqliteHeader(storage.bytes.subarray(0, SQLITE_HEADER_BYTES), storage.bytes.length);
      } catch (cause) {
        throw fail(messageOf(cause), cause);
      }
      const driver = await (await sqliteWasm()).open({ bytes: storage.bytes });
      try {
        // Bytes from outside get a snapshot's checks: nothing planted in them may run or be read unchecked.
        await adoptForeignDatabase(driver, fail, readRows);
      } catch (error) {
        driver.close();
        throw error;
      }
      return driver;
    }
    if (typeof (storage as SqlDriver).all === 'function' && typeof (storage as SqlDriver).transaction === 'function') return storage as SqlDriver;
  }
  throw invalid(method, "options.storage must be 'memory', a file path (with a / or ending in .db, e.g. './memory.db'), a SqlDriver or { bytes: Uint8Array }", storage);
}

/**
 * A bare word is a typo of 'memory' far more often than a file name, so a path must say it is
 * one: a folder separator, or a database file extension.
 */
function looksLikePath(storage: string): boolean {
  return /[/\\]/.test(storage) || /\.(db|sqlite|sqlite3)$/i.test(storage);
}

/** Node-only; the specifier is a variable so browser and edge bundlers never follow it into node:fs. */
const NODE_FILE_MODULE = '../storage/node-file.js';

async function openFileDriver(method: string, path: string): Promise<SqlDriver> {
  let module: typeof import('../storage/node-file.js');
  try {
    module = (await import(/* @vite-ignore */ NODE_FILE_MODULE)) as typeof import('../storage/node-file.js');
  } catch (cause) {
    throw new HybridMindError('UNSUPPORTED', method, `a file path as storage needs Node (file system access); here use 'memory', a SqlDriver or { bytes }, received ${JSON.stringify(path)}`, { cause });
  }
  return module.SqliteFileDriver.open(path, {}, method);
}

