import { HybridMindError } from '../../errors.js';
import { checkIntInRange, checkNonNegativeInt } from '../../util/int-checks.js';
import type { Accept, Scored, VectorIndex } from '../types.js';
import { HNSW_DIR, hnswError, takeFile, type Hnswlib, type HnswNative } from './hnswlib-loader.js';
import { checkVector } from './packed.js';

/** Graph parameters of an HNSW index. */
export interface HnswParams {
  /** Links per node. Default 16. */
  m: number;
  /** Candidate list while inserting; higher builds slower and finds better links. Default 100. */
  efConstruction: number;
  /** Candidate list while searching; recall vs latency. Default 64 (recall@10 ≥ 0.95, see the tests). */
  efSearch: number;
  /** Seed of the level generator, so builds are reproducible. Default 100. */
  seed: number;
}

export const HNSW_DEFAULTS: HnswParams = { m: 16, efConstruction: 100, efSearch: 64, seed: 100 };

const MIN_CAPACITY = 1024;
/** hnswlib-wasm 0.8.2's heap stops at 2 GiB; part of it goes to the module itself and the id map. */
const HEAP_BYTES = 2 ** 31 - 96 * 2 ** 20;

/**
 * How many vectors an HNSW graph of these parameters can hold inside hnswlib-wasm's heap: per
 * vector its floats, level-0 links (2·M), label and link-list pointer, level and visited-list
 * entries, and about 32 bytes of the label map (the upper levels add ~1/M of the level-0 links).
 * Growing an index copies it (realloc), so only a graph created at its final size gets near this.
 */
export function maxHnswVectors(dim: number, m: number): number {
  return Math.floor(HEAP_BYTES / (dim * 4 + (2 * m + 1) * 4 + 4 + 4 + 4 + 2 + 32 + Math.ceil((m * 4 + 4) / m)));
}

/**
 * Room a restored graph gets: twice what it holds, so it grows without a copy for a while, but
 * never past what the heap holds. Twice 1M vectors of 384-d was 3.4 GB of level-0 links and
 * vectors: every reopen of such a store failed with "Not enough memory" and rebuilt its graph
 * for half an hour.
 */
export function restoreCapacity(count: number, limit: number): number {
  return Math.max(MIN_CAPACITY, count, Math.min(limit, 2 * count));
}

let fileCounter = 0;
/** Hands a restored native index to the constructor (load() and the constructor run back to back). */
let restoring: { native: HnswNative; labels: number[]; deleted: number[] } | null = null;

/**
 * Approximate dense search with hnswlib-wasm's HNSW graph over inner product. Labels are the
 * engine's dense `no`s. hnswlib never frees a slot (removal only marks it), so the capacity grows
 * by doubling and a heavily edited index should be rebuilt (`deletedRatio`).
 *
 * @example
 * const lib = await loadHnswlib();
 * const index = new HnswVectorIndex(lib, 384);
 * index.addMany([1, 2], [v1, v2]);
 * index.search(query, 10); // [{ no: 2, score: 0.81 }, ...]
 */
export class HnswVectorIndex implements VectorIndex {
  readonly kind = 'hnsw-wasm';
  readonly exact = false;
  readonly dim: number;
  readonly params: HnswParams;
  readonly #lib: Hnswlib;
  #native: HnswNative | null;
  readonly #labels = new Set<number>();
  /** Labels hnswlib still holds but marked deleted: they occupy capacity. */
  readonly #deleted = new Set<number>();
  #capacity: number;

  constructor(lib: Hnswlib, dim: number, params: Partial<HnswParams> = {}, capacity = MIN_CAPACITY) {
    checkIntInRange('new HnswVectorIndex', 'dim', dim, 1);
    this.#lib = lib;
    this.dim = dim;
    this.params = { ...HNSW_DEFAULTS, ...params };
    this.#capacity = Math.max(MIN_CAPACITY, capacity);
    const restored = restoring;
    restoring = null;
    this.#native = restored?.native ?? this.#call('new HnswVectorIndex', () => {
      const native = new lib.HierarchicalNSW('ip', dim, '');
      native.initIndex(this.#capacity, this.params.m, this.params.efConstruction, this.params.seed);
      return native;
    });
    for (const no of restored?.labels ?? []) this.#labels.add(no);
    for (const no of restored?.deleted ?? []) this.#deleted.add(no);
    this.#call('new HnswVectorIndex', () => this.#native!.setEfSearch(this.params.efSearch));
  }

  /**
   * Restores `save()` output. `nos` are the labels it holds and `deleted` the removed ones it
   * still keeps (hnswlib cannot list them cheaply); the caller checked the bytes' checksum.
   */
  static load(lib: Hnswlib, dim: number, bytes: Uint8Array, nos: Iterable<number>, deleted: Iterable<number> = [], params: Partial<HnswParams> = {}): HnswVectorIndex {
    const method = 'HnswVectorIndex.load';
    const labels = [...nos];
    const removed = [...deleted];
    const capacity = restoreCapacity(labels.length + removed.length, maxHnswVectors(dim, params.m ?? HNSW_DEFAULTS.m));
    const file = `load-${++fileCounter}`;
    let native: HnswNative;
    try {
      native = new lib.HierarchicalNSW('ip', dim, '');
      // The file only lives through readIndex: lending it the bytes saves a copy (160 MB at 100k vectors).
      lib.fs.writeFile(`${HNSW_DIR}/${file}`, bytes, { canOwn: true });
      try {
        native.readIndex(file, capacity);
      } finally {
        lib.fs.unlink(`${HNSW_DIR}/${file}`);
      }
    } catch (cause) {
      const error = hnswError(lib, method, cause);
      throw new HybridMindError('CORRUPT', method, error.message, { cause });
    }
    if (native.getCurrentCount() !== labels.length + removed.length) {
      const count = native.getCurrentCount();
      native.delete();
      throw new HybridMindError('CORRUPT', method, `the index holds ${count} vectors, expected ${labels.length + removed.length}`);
    }
    restoring = { native, labels, deleted: removed };
    return new HnswVectorIndex(lib, dim, params, capacity);
  }

  get size(): number {
    return this.#labels.size;
  }

  /** Slots hnswlib has room for before it must grow (and copy) the graph. */
  get capacity(): number {
    return this.#capacity;
  }

  /** Share of hnswlib's slots held by removed vectors; above ~0.2 a rebuild pays off. */
  get deletedRatio(): number {
    const total = this.#labels.size + this.#deleted.size;
    return total === 0 ? 0 : this.#deleted.size / total;
  }

  add(no: number, vector: Float32Array): void {
    this.addMany([no], [vector]);
  }

  /** Adds (or replaces) many vectors in one call: much faster than one at a time. */
  addMany(nos: number[], vectors: Float32Array[]): void {
    const method = 'HnswVectorIndex.add';
    for (const v of vectors) checkVector(method, v, this.dim);
    const fresh = nos.filter((no) => !this.#labels.has(no) && !this.#deleted.has(no)).length;
    this.#reserve(this.#labels.size + this.#deleted.size + fresh + 1);
    this.#call(method, () => {
      const native = this.#live();
      // A removed label comes back through its old slot; a loaded index refuses updates to deleted slots.
      for (const no of nos) if (this.#deleted.has(no)) native.unmarkDelete(no);
      native.addPoints(vectors, nos, false);
    });
    for (const no of nos) {
      this.#labels.add(no);
      this.#deleted.delete(no);
    }
  }

  remove(no: number): boolean {
    if (!this.#labels.has(no)) return false;
    this.#call('HnswVectorIndex.remove', () => this.#live().markDelete(no));
    this.#labels.delete(no);
    this.#deleted.add(no);
    return true;
  }

  has(no: number): boolean {
    return this.#labels.has(no);
  }

  /** The labels held (what `load` needs back). */
  nos(): Int32Array {
    return Int32Array.from(this.#labels);
  }

  /** Removed labels hnswlib still keeps as deleted slots (what `load` needs back too). */
  deletedNos(): Int32Array {
    return Int32Array.from(this.#deleted);
  }

  search(query: Float32Array, k: number, accept?: Accept): Scored[] {
    const method = 'HnswVectorIndex.search';
    checkVector(method, query, this.dim);
    checkNonNegativeInt(method, 'k', k);
    const n = Math.min(k, this.#labels.size);
    if (n === 0) return [];
    const result = this.#call(method, () => this.#live().searchKnn(query, n, accept));
    const out: Scored[] = [];
    for (let i = 0; i < result.neighbors.length; i++) out.push({ no: result.neighbors[i]!, score: 1 - result.distances[i]! });
    return out.sort((a, b) => b.score - a.score || a.no - b.no);
  }

  setEfSearch(ef: number): void {
    checkIntInRange('HnswVectorIndex.setEfSearch', 'ef', ef, 1);
    this.params.efSearch = ef;
    this.#call('HnswVectorIndex.setEfSearch', () => this.#live().setEfSearch(ef));
  }

  clear(): void {
    this.dispose();
  }

  /** Frees the wasm-side index; the object cannot be used afterwards. */
  dispose(): void {
    this.#native?.delete();
    this.#native = null;
    this.#labels.clear();
    this.#deleted.clear();
  }

  /** Vectors plus links, roughly as hnswlib allocates them. */
  byteSize(): number {
    return this.#capacity * (this.dim * 4 + this.params.m * 2 * 4 + 16);
  }

  /** hnswlib's own serialisation of the graph and vectors (a view of the buffer it was written into, which may be longer). */
  save(): Uint8Array {
    const method = 'HnswVectorIndex.save';
    const file = `save-${++fileCounter}`;
    const path = `${HNSW_DIR}/${file}`;
    try {
      this.#live().writeIndex(file);
    } catch (cause) {
      // writeIndex syncs to IndexedDB after writing, which HybridMind never sets up: that throw is expected.
      const expected = this.#lib.fs.analyzePath(path).exists && hnswError(this.#lib, method, cause).message.includes('initialized before calling syncFS');
      if (!expected) throw hnswError(this.#lib, method, cause);
    }
    try {
      return takeFile(this.#lib.fs, path);
    } finally {
      this.#lib.fs.unlink(path);
    }
  }

  #live(): HnswNative {
    if (!this.#native) throw new HybridMindError('CLOSED', 'HnswVectorIndex', 'the index was disposed');
    return this.#native;
  }

  #reserve(needed: number): void {
    if (needed <= this.#capacity) return;
    let capacity = this.#capacity;
    while (capacity < needed) capacity *= 2;
    this.#call('HnswVectorIndex.add', () => this.#live().resizeIndex(capacity));
    this.#capacity = capacity;
  }

  #call<T>(method: string, fn: () => T): T {
    return this.#callWith(this.#lib, method, fn);
  }

  #callWith<T>(lib: Hnswlib, method: string, fn: () => T): T {
    try {
      return fn();
    } catch (cause) {
      throw hnswError(lib, method, cause);
    }
  }
}
