/**
 * One run of hnswlib-wasm that makes an HNSW graph: a build from every vector the flat scan holds,
 * or a saved graph brought up to date (the vectors changed since re-added, the removed ones marked
 * deleted). It adds vectors in background time slices, follows the writes that arrive meanwhile,
 * and hands the finished graph over; the caller reads its links out and disposes of it, so
 * hnswlib's copy of the vectors lives only as long as the run.
 */
import type { Logger } from '../../logger.js';
import { nextSlice, now, SLICE_MS } from '../../util/slices.js';
import type { AnnRecord } from './ann-format.js';
import type { Repair } from './ann-repair.js';
import type { FlatVectorIndex } from './flat-index.js';
import { HnswVectorIndex, maxHnswVectors, type HnswParams } from './hnsw-index.js';
import type { Hnswlib } from './hnswlib-loader.js';
import { withVectors } from './hnsw-links.js';

const BATCH = 32;

export interface BuildHost {
  readonly flat: FlatVectorIndex;
  readonly dim: number;
  readonly params: HnswParams;
  readonly logger: Logger;
  /**
   * The vectors of a saved graph's labels, for hnswlib to restore it with: the store's, and for a
   * memory the store no longer has, what the serving graph still routes it with (else undefined).
   */
  savedVectors(labels: number[]): Array<Float32Array | undefined>;
  /** The run finished: `hnsw` holds every vector the flat scan holds, and is the caller's to dispose of. */
  finished(hnsw: HnswVectorIndex, source: 'build' | 'repair', ms: number): void;
  failed(error: unknown): void;
}

export class GraphBuild {
  readonly #host: BuildHost;
  readonly #lib: Hnswlib;
  readonly #started = now();
  #hnsw: HnswVectorIndex | null = null;
  #pending = new Set<number>();
  #source: 'build' | 'repair';
  #live = true;

  /** Starts from `saved` (a graph and what it lacks) when given, else builds from scratch. */
  constructor(lib: Hnswlib, host: BuildHost, saved: { record: AnnRecord; repair: Repair } | null) {
    this.#host = host;
    this.#lib = lib;
    if (saved === null) {
      this.#source = 'build';
      this.#create(1.25);
    } else {
      const { record, repair } = saved;
      this.#source = 'repair';
      this.#hnsw = HnswVectorIndex.load(lib, host.dim, withVectors(record.graph, host.dim, (labels) => host.savedVectors(labels)), record.nos, record.deleted, host.params);
      for (const no of repair.removed) this.#hnsw.remove(no);
      this.#pending = new Set(repair.pending);
      host.logger('info', `ann: bringing the saved HNSW index up to date (vectors to add: ${repair.pending.length}, removed: ${repair.removed.length})`, { add: repair.pending.length, removed: repair.removed.length });
    }
    nextSlice(() => this.#slice());
  }

  /** Vectors in the graph so far. */
  get indexed(): number {
    return this.#hnsw?.size ?? 0;
  }

  byteSize(): number {
    return this.#hnsw?.byteSize() ?? 0;
  }

  /** A vector stored meanwhile: replaced in place when the graph has it, added in a later slice otherwise. */
  add(no: number, vector: Float32Array): void {
    if (this.#hnsw?.has(no)) this.#hnsw.add(no, vector);
    else this.#pending.add(no);
  }

  remove(no: number): void {
    this.#pending.delete(no);
    if (this.#hnsw?.has(no)) this.#hnsw.remove(no);
  }

  /** Stops the run and frees the graph. */
  cancel(): void {
    this.#live = false;
    this.#hnsw?.dispose();
    this.#hnsw = null;
    this.#pending.clear();
  }

  /**
   * A fresh graph with room for every vector held now plus `headroom`, capped at what fits in
   * hnswlib-wasm's heap; throws when the vectors alone do not fit.
   */
  #create(headroom: number): void {
    const { flat, dim, params } = this.#host;
    const limit = maxHnswVectors(dim, params.m);
    if (flat.size > limit) throw new Error(`${flat.size} vectors of ${dim} dimensions exceed what hnswlib-wasm's 2 GiB heap holds (${limit})`);
    this.#hnsw?.dispose();
    this.#hnsw = new HnswVectorIndex(this.#lib, dim, params, Math.min(limit, Math.ceil(flat.size * headroom)));
    this.#pending = new Set(flat.nos());
  }

  #slice(): void {
    if (!this.#live) return;
    const { flat, logger } = this.#host;
    try {
      // Writes during the run can outgrow the graph. Growing it copies the whole graph inside
      // hnswlib's 2 GiB heap, which fails long before a million vectors, so the build starts over
      // at twice the store's size; the work thrown away is what was built while the store grew.
      if (this.#hnsw!.size + this.#pending.size > this.#hnsw!.capacity) {
        logger('info', `ann: the store grew to ${flat.size} vectors during the HNSW build, restarting it with room for more`);
        this.#create(2);
        this.#source = 'build';
      }
      const until = now() + SLICE_MS;
      while (this.#pending.size > 0 && now() < until) {
        const batch: number[] = [];
        for (const no of this.#pending) {
          this.#pending.delete(no);
          batch.push(no);
          if (batch.length === BATCH) break;
        }
        const nos: number[] = [];
        const vectors: Float32Array[] = [];
        flat.getMany(batch).forEach((vector, i) => {
          if (!vector) return;
          nos.push(batch[i]!);
          vectors.push(vector);
        });
        if (nos.length > 0) this.#hnsw!.addMany(nos, vectors);
      }
    } catch (error) {
      this.cancel();
      this.#host.failed(error);
      return;
    }
    if (this.#pending.size > 0) {
      nextSlice(() => this.#slice());
      return;
    }
    const hnsw = this.#hnsw!;
    this.#hnsw = null;
    this.#live = false;
    this.#host.finished(hnsw, this.#source, now() - this.#started);
  }
}
