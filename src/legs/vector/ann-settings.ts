/**
 * The adaptive dense leg's settings and what it reports: when HNSW takes over from the exact scan,
 * when the scan stops keeping f32 copies, what it is given, and its state (`AdaptiveVectorIndex`).
 */
import type { Logger } from '../../logger.js';
import type { SavedBytes, VectorReader } from '../types.js';
import type { Hnswlib } from './hnswlib-loader.js';

/**
 * When HNSW takes over (bench/ann/crossover.ts, all-MiniLM-L6-v2 vectors, Node 20, 2 cores; see
 * bench/ann/RESULTS.md). HNSW at efSearch 64 overtakes the exact WASM-SIMD scan near 5k vectors
 * (0.26 vs 0.34 ms), but below 20k the scan costs at most ~1.4 ms, a tenth of embedding the query,
 * while HNSW costs ~0.4 ms of build per vector and a second copy of every vector. From 20k on the
 * scan grows linearly (2.75 ms at 40k) and HNSW stays near 0.3 ms with recall@10 ≥ 0.99.
 */
export const ANN_THRESHOLD = 20_000;

export type AnnState = 'off' | 'loading' | 'building' | 'ready' | 'failed';

export interface AnnStatus {
  state: AnnState;
  /** Vectors in the HNSW graph (while building: so far). */
  indexed: number;
  vectors: number;
  threshold: number;
  /**
   * 'bytes': restored from the saved index; 'repair': restored, then brought up to date with the
   * vectors changed since it was saved (`buildMs` is that part); 'build': built here.
   */
  source: 'bytes' | 'repair' | 'build' | null;
  loadMs: number | null;
  buildMs: number | null;
  saveMs: number | null;
  error: string | null;
}

/** What `AdaptiveVectorIndex` is given besides its options. */
export interface AdaptiveDependencies {
  store?: SavedBytes | null | undefined;
  /**
   * The store's vectors: once a graph serves, the flat scan (then its scorer and fallback) drops
   * its f32 copies and re-scores from here (`FlatVectorIndex.release`). Without it the copies stay.
   */
  read?: VectorReader | undefined;
  logger?: Logger | undefined;
  /** A fresh hnswlib-wasm instance for each build or repair (dropped after it). */
  loadLibrary?: (() => Promise<Hnswlib>) | undefined;
  /** Bytes of f32 copies the flat scan keeps before it re-scores from `read` instead. Default `COPIES_MAX_BYTES`. */
  copiesMaxBytes?: number | undefined;
}

/**
 * Past this many bytes of f32 copies (21,845 vectors at 384-d) the flat scan keeps only its int8
 * codes and reads the ~100–150 candidates a recall re-scores from the store. At 100k vectors that
 * gives back 190 MiB of WebAssembly memory (the copies at doubled capacity) for ~0.3 ms a query;
 * below it the copies are small and the read would be a large share of a sub-millisecond query.
 */
export const COPIES_MAX_BYTES = 32 * 2 ** 20;
