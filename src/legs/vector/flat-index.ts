import { HybridMindError, messageOf } from '../../errors.js';
import { capacityOf } from '../../util/capacity.js';
import { checkIntInRange, checkNonNegativeInt } from '../../util/int-checks.js';
import { NumberSlots } from '../../util/number-slots.js';
import type { Accept, Scored, VectorIndex, VectorKernelSource, VectorReader } from '../types.js';
import { kernelOf, type VectorKernel } from './kernel.js';
import { CandidateScratch, candidates, META, quantizeQuery, quantizeVector, raiseCeiling, strideOf } from './quantize.js';
import { FlatEstimates } from './flat-estimates.js';
import { decodeFlat, encodeFlat } from './flat-snapshot.js';
import { dotJs, selectTop } from './flat-scan.js';
import { READ_BATCH, rescoreHeld, rescoreRead } from './rescore.js';
import { checkPacked, checkVector } from './packed.js';
import { ScanArena } from './scan-arena.js';
import { decodeQuantized, encodeQuantized, type DigestEntries, type QuantizedRun } from './quantized-snapshot.js';

/** Options for `new FlatVectorIndex`. */
export interface FlatVectorIndexOptions {
  /** Vectors to reserve room for up front; the store doubles whenever it fills. Default 256. */
  capacity?: number | undefined;
}

/** Options for `FlatVectorIndex.create`. */
export interface FlatVectorIndexCreateOptions extends FlatVectorIndexOptions {
  /**
   * A loaded kernel, or what to load it from (on workerd: the `.wasm` imported as a module).
   * Default: the bundled `kernel.wasm`, compiled once per process. `null` forces the JS scan.
   */
  kernel?: VectorKernel | VectorKernelSource | null | undefined;
  /** `false` forces the JS scan. Default `true`. */
  useWasm?: boolean | undefined;
}

const DEFAULT_CAPACITY = 256;
const MAX_DIM = 65_536;
const MAX_NO = 0x7fff_ffff;
/** Bytes of f32 vectors per read when `resideSome` takes them back. */
const RESIDE_BYTES = 1 << 20;

/**
 * Exact dense search: every vector is scored against the query, then a size-k heap keeps the best.
 * Vectors live in one contiguous `Float32Array` (in the kernel's WebAssembly memory when the
 * SIMD kernel is available, see `scan-arena.ts`) indexed by slot; removal moves the last slot into
 * the hole so the scan never meets gaps. Scores are f32 inner products; the caller normalises
 * vectors.
 *
 * The scan reads an i8 copy of the vectors (a quarter of the bytes) and re-scores in f32 only the
 * vectors its error bound cannot rule out (see `quantize.ts`), so results are the f32 scan's.
 * After `release` it keeps only the i8 copy and re-scores from the store's vectors instead.
 *
 * @example
 * const index = await FlatVectorIndex.create(384);
 * index.add(7, embedding);
 * index.search(query, 10); // [{ no: 7, score: 0.83 }, ...]
 */
export class FlatVectorIndex implements VectorIndex {
  readonly kind: 'flat-wasm-simd' | 'flat-js';
  readonly exact = true;
  readonly dim: number;
  readonly #kernel: VectorKernel | null;
  /**
   * The buffers; they have room for f32 copies (`copies`) always while `#reader` is null, and also
   * while `resideSome` reads them back (released, with the slots below `#filled` already copied).
   */
  #arena: ScanArena;
  /** Where full-precision vectors are read from once this index stopped keeping them (`release`); null while it keeps them. */
  #reader: VectorReader | null = null;
  #filled = 0;
  #size = 0;
  #slotToNo: Int32Array;
  readonly #noToSlot = new NumberSlots();
  /** Per slot, the quantization scale and error-bound terms (`META` each). */
  #meta: Float64Array;
  /** Saved codes and bounds offered for the next `addPacked` calls, and how far they are used. */
  #offered: { run: QuantizedRun; at: number } | null = null;
  /** The largest bound terms of any vector held since the last `clear` (see `raiseCeiling`). */
  readonly #ceiling = new Float64Array(2);
  /** Where the int8 pass keeps its candidates between searches. */
  readonly #candidates = new CandidateScratch();
  /** The int8 estimates a walk over an HNSW graph scores with (see `flat-estimates.ts`). */
  readonly estimates: FlatEstimates;
  /** The capacity it was made with, which `clear` goes back to when it gets a new instance. */
  readonly #initialCapacity: number;

  /** `kernel` comes from `loadVectorKernel()`; `null` uses the plain JavaScript scan. */
  constructor(dim: number, kernel: VectorKernel | null, options: FlatVectorIndexOptions = {}) {
    checkIntInRange('new FlatVectorIndex', 'dim', dim, 1, MAX_DIM);
    const capacity = checkIntInRange('new FlatVectorIndex', 'capacity', options.capacity ?? DEFAULT_CAPACITY, 1);
    this.dim = dim;
    this.#kernel = kernel;
    this.#initialCapacity = capacity;
    this.#arena = new ScanArena(kernel, dim, strideOf(dim), capacity, true, 'new FlatVectorIndex');
    this.kind = this.#arena.wasm === null ? 'flat-js' : 'flat-wasm-simd';
    this.#slotToNo = new Int32Array(capacity);
    this.#meta = new Float64Array(capacity * META);
    const index = this;
    this.estimates = new FlatEstimates({
      get arena() { return index.#arena; },
      get meta() { return index.#meta; },
      get slotToNo() { return index.#slotToNo; },
      get reader() { return index.#reader; },
      slotOf: (no) => index.#noToSlot.get(no),
    });
  }

  /** Loads the kernel (unless told not to) and builds an empty index. */
  static async create(dim: number, options: FlatVectorIndexCreateOptions = {}): Promise<FlatVectorIndex> {
    const { kernel, useWasm = true, ...rest } = options;
    let loaded: VectorKernel | null = null;
    if (useWasm && kernel !== null) loaded = await kernelOf(kernel);
    return new FlatVectorIndex(dim, loaded, rest);
  }

  /** Restores `save()` output; any inconsistency is a `CORRUPT` error, never a partial index. */
  static load(bytes: Uint8Array, kernel: VectorKernel | null): FlatVectorIndex {
    const method = 'FlatVectorIndex.load';
    let loaded: FlatVectorIndex | null = null;
    let count = 0;
    decodeFlat(method, bytes, MAX_DIM, (dim, n) => {
      const index = new FlatVectorIndex(dim, kernel, { capacity: n || DEFAULT_CAPACITY });
      [loaded, count] = [index, n];
      return { nos: index.#slotToNo, vectors: index.#arena.vectors };
    });
    const index = loaded!;
    for (let slot = 0; slot < count; slot++) {
      const no = index.#slotToNo[slot]!;
      if (no < 0) throw new HybridMindError('CORRUPT', method, `negative id ${no} at slot ${slot}`);
      if (index.#noToSlot.has(no)) throw new HybridMindError('CORRUPT', method, `duplicate id ${no} at slot ${slot}`);
      index.#noToSlot.set(no, slot);
    }
    const dim = index.dim;
    for (let slot = 0; slot < count; slot++) index.#quantize(slot, index.#arena.vectors.subarray(slot * dim, (slot + 1) * dim));
    index.#size = count;
    return index;
  }

  get size(): number {
    return this.#size;
  }

  add(no: number, vector: Float32Array): void {
    checkIntInRange('FlatVectorIndex.add', 'no', no, 0, MAX_NO);
    checkVector('FlatVectorIndex.add', vector, this.dim);
    let slot = this.#noToSlot.get(no);
    if (slot === undefined) {
      if (this.#size === this.#arena.capacity) this.#reserve(this.#arena.capacity * 2, 'FlatVectorIndex.add');
      slot = this.#size++;
      this.#slotToNo[slot] = no;
      this.#noToSlot.set(no, slot);
    }
    if (this.#arena.copies) this.#arena.vectors.set(vector, slot * this.dim);
    this.#quantize(slot, vector);
  }

  /**
   * {@link VectorIndex.addPacked}: capacity reserved once, one copy when every number is new, and
   * the codes and bounds copied from an offered snapshot (see `useQuantized`) instead of computed.
   */
  addPacked(nos: ArrayLike<number>, vectors: Float32Array): void {
    const method = 'FlatVectorIndex.addPacked';
    const count = nos.length;
    const dim = this.dim;
    checkPacked(method, nos, vectors, dim);
    for (let i = 0; i < count; i++) checkIntInRange(method, 'no', nos[i], 0, MAX_NO);
    // An offered snapshot says how many vectors the open brings: room for all of them at once.
    const coming = this.#offered === null ? count : Math.max(count, this.#offered.run.nos.length - this.#offered.at);
    if (this.#size + count > this.#arena.capacity) this.#reserve(Math.max(this.#arena.capacity * 2, this.#size + coming), method);
    const first = this.#size;
    const slots = new Int32Array(count);
    let appended = true;
    for (let i = 0; i < count; i++) {
      const no = nos[i]!;
      let slot = this.#noToSlot.get(no);
      if (slot === undefined) {
        slot = this.#size++;
        this.#slotToNo[slot] = no;
        this.#noToSlot.set(no, slot);
      }
      slots[i] = slot;
      appended &&= slot === first + i;
    }
    const stride = this.#arena.stride;
    const saved = this.#takeOffered(nos);
    const run = saved === null ? null : this.#offered!.run;
    // Appended (every number new, as at an open): one copy per array. Otherwise slot by slot.
    const spans = appended ? [[0, count, first]] : Array.from(slots, (slot, i) => [i, i + 1, slot]);
    for (const [from, to, slot] of spans as Array<[number, number, number]>) {
      const n = to - from;
      if (this.#arena.copies) this.#arena.vectors.set(vectors.subarray(from * dim, to * dim), slot * dim);
      if (run === null) {
        for (let j = 0; j < n; j++) this.#quantize(slot + j, vectors.subarray((from + j) * dim, (from + j + 1) * dim));
        continue;
      }
      this.#arena.codes.set(run.codes.subarray((saved! + from) * stride, (saved! + to) * stride), slot * stride);
      this.#meta.set(run.meta.subarray((saved! + from) * META, (saved! + to) * META), slot * META);
      raiseCeiling(this.#ceiling, this.#meta, slot, slot + n);
    }
    if (run !== null && this.#offered!.at === run.nos.length) this.#offered = null;
  }

  /**
   * Offers what {@link saveQuantized} wrote for the vectors about to be added: each `addPacked`
   * whose numbers are the next ones it holds copies their codes and bounds instead of quantizing.
   * The first that is not drops the offer (null drops it too), so the worst case is quantizing as
   * before. Throws `CORRUPT` on bytes that are not a snapshot for this dimension.
   */
  useQuantized(bytes: Uint8Array | null): void {
    this.#offered = bytes === null ? null : { run: decodeQuantized('FlatVectorIndex.useQuantized', bytes, this.dim), at: 0 };
  }

  /**
   * The int8 codes and bounds of every vector, by ascending number: what an open can copy back
   * (see `useQuantized`, `adoptQuantized`), with each vector's digest entry when `digests` is given.
   */
  saveQuantized(digests: DigestEntries | null = null): Uint8Array | null {
    return encodeQuantized(this.dim, this.#slotToNo.subarray(0, this.#size), this.#meta, this.#arena.codes, digests);
  }

  /**
   * Fills an empty index from a saved run alone, released onto `read`: the codes and bounds are
   * copied (the codes only if a reader did not put them in place: `codesFor`) and no f32 vector
   * is read, so an open answers without reading the vectors (`reside` takes the copies back
   * later; see `AdaptiveVectorIndex.adoptQuantized`).
   */
  adoptRun(run: QuantizedRun, read: VectorReader): void {
    const count = run.nos.length;
    const codes = this.codesFor(count, read);
    // An Int32Array holds whole numbers ≤ MAX_NO; increasing from ≥ 0 is the rest of what `add` checks.
    try {
      this.#noToSlot.fillAscending(run.nos);
    } catch (error) {
      throw new HybridMindError('CORRUPT', 'FlatVectorIndex.adoptRun', `the saved numbers are not whole, ≥ 0 and increasing: ${messageOf(error)}`);
    }
    this.#slotToNo.set(run.nos);
    if (run.codes.buffer !== codes.buffer || run.codes.byteOffset !== codes.byteOffset) codes.set(run.codes);
    this.#meta.set(run.meta);
    raiseCeiling(this.#ceiling, this.#meta, 0, count);
    this.#size = count;
  }

  /**
   * Where `adoptRun` keeps the codes of `count` vectors, for a reader to put them there (see
   * `readQuantized`): the index, which must be empty, is released onto `read` with room for them.
   */
  codesFor(count: number, read: VectorReader): Int8Array {
    const method = 'FlatVectorIndex.codesFor';
    if (this.#size !== 0) throw new HybridMindError('INVALID_ARGUMENT', method, `the index must be empty, it holds ${this.#size} vectors`);
    this.#offered = null;
    this.release(read);
    // Room to grow, as the saved codes have: the first add after an open doubled every region (~6 ms at 100k).
    if (count > this.#arena.capacity) this.#reserve(capacityOf(count), method);
    return this.#arena.codes.subarray(0, count * this.#arena.stride);
  }

  /** Where in the offered run `nos` start when they are its next numbers (and advances past them); otherwise drops the offer. */
  #takeOffered(nos: ArrayLike<number>): number | null {
    const offer = this.#offered;
    if (offer === null) return null;
    const at = offer.at;
    let match = at + nos.length <= offer.run.nos.length;
    for (let i = 0; match && i < nos.length; i++) match = offer.run.nos[at + i] === nos[i];
    if (!match) {
      this.#offered = null;
      return null;
    }
    offer.at += nos.length;
    return at;
  }

  #quantize(slot: number, vector: Float32Array): void {
    quantizeVector(vector, this.#arena.codes, slot * this.#arena.stride, this.#arena.stride, this.#meta, slot);
    raiseCeiling(this.#ceiling, this.#meta, slot);
  }

  remove(no: number): boolean {
    const slot = this.#noToSlot.get(no);
    if (slot === undefined) return false;
    const last = --this.#size;
    if (slot !== last) {
      const dim = this.dim;
      const moved = this.#slotToNo[last]!;
      if (this.#arena.copies) this.#arena.vectors.copyWithin(slot * dim, last * dim, (last + 1) * dim);
      // Mid read-back the moved vector may not be copied yet: the copied run ends at the hole.
      if (slot < this.#filled && last >= this.#filled) this.#filled = slot;
      this.#arena.codes.copyWithin(slot * this.#arena.stride, last * this.#arena.stride, (last + 1) * this.#arena.stride);
      this.#meta.copyWithin(slot * META, last * META, (last + 1) * META);
      this.#slotToNo[slot] = moved;
      this.#noToSlot.set(moved, slot);
    }
    this.#noToSlot.delete(no);
    this.#filled = Math.min(this.#filled, this.#size);
    return true;
  }

  has(no: number): boolean {
    return this.#noToSlot.has(no);
  }

  /** A copy of the vector stored for `no` (what another index is built from), or undefined. */
  get(no: number): Float32Array | undefined {
    return this.getMany([no])[0];
  }

  /**
   * {@link get} for many: a released index reads them from the store in one statement, not one
   * each (an HNSW build over a released scan asks for every vector). Numbers this index or the
   * store lacks give undefined. The copies are views of one buffer per call.
   */
  getMany(nos: readonly number[]): Array<Float32Array | undefined> {
    const dim = this.dim;
    const slots = nos.map((no) => this.#noToSlot.get(no));
    if (this.#reader === null) {
      // One buffer for the batch, not one per vector: an HNSW build asks for every vector, and
      // 100k small buffers waiting for the collector left holes in the C heap that stay resident.
      const copies = new Float32Array(nos.length * dim);
      const vectors = this.#arena.vectors;
      return slots.map((slot, i) => {
        if (slot === undefined) return undefined;
        const copy = copies.subarray(i * dim, (i + 1) * dim);
        copy.set(vectors.subarray(slot * dim, (slot + 1) * dim));
        return copy;
      });
    }
    const held = nos.filter((_, i) => slots[i] !== undefined);
    const read = new Float32Array(held.length * dim);
    if (held.length > 0) this.#reader(held, read);
    let next = 0;
    return slots.map((slot) => {
      if (slot === undefined) return undefined;
      const vector = read.subarray(next * dim, ++next * dim);
      // The reader leaves NaN where the store has no vector; a stored one is finite.
      return Number.isNaN(vector[0]) ? undefined : vector;
    });
  }

  /**
   * Stops keeping full-precision vectors: from here on `read` (the store's own copies) supplies
   * what re-scoring needs, and only the i8 codes stay, a fifth of the bytes. Worth it when another
   * index answers the queries (HNSW holds its own copy) and this scan is the rare fallback. With
   * the SIMD kernel the codes move to a fresh instance, so the old memory (which cannot shrink)
   * is freed. `clear` goes back to keeping vectors.
   */
  release(read: VectorReader): void {
    if (this.#arena.copies) this.#relayout(read, 'FlatVectorIndex.release');
    else this.#reader = read;
  }

  /**
   * Undoes `release` one read at a time, so a caller can interleave searches (an open's first
   * query should not wait for 150 MB): the first call makes room for f32 copies, each call reads
   * about 1 MiB of vectors into them, and the call that reads the last returns 'done' and makes
   * them serve. Until then searches re-score from the store and writes keep both forms. 'missing'
   * when the store lacks one of them: the copies are dropped and the index stays released (so
   * too when a read throws).
   */
  resideSome(): 'more' | 'done' | 'missing' {
    const read = this.#reader;
    if (read === null) return 'done';
    const method = 'FlatVectorIndex.resideSome';
    if (!this.#arena.copies) this.#relayout(read, method, true);
    const dim = this.dim;
    // About 1 MiB a read: a batch is one value in the store, and a Durable Object's SQLite refuses values past 2 MB.
    const step = Math.max(1, Math.floor(RESIDE_BYTES / (dim * 4)));
    const from = this.#filled;
    const to = Math.min(this.#size, from + step);
    let complete = false;
    try {
      complete = from === to || read(Array.from(this.#slotToNo.subarray(from, to)), this.#arena.vectors.subarray(from * dim, to * dim)) === to - from;
    } finally {
      if (!complete) this.#relayout(read, method);
    }
    if (!complete) return 'missing';
    if (to < this.#size) {
      this.#filled = to;
      return 'more';
    }
    this.#reader = null;
    this.#filled = 0;
    return 'done';
  }

  /** True once `release` was called (and not undone by `clear` or the last `resideSome`). */
  get released(): boolean {
    return this.#reader !== null;
  }

  /** Released, with `resideSome` part way through reading the copies back. */
  get residing(): boolean {
    return this.#reader !== null && this.#arena.copies;
  }

  /** Moves the codes into a layout with room for f32 vectors (`copies`, always when `reader` is null) or without. */
  #relayout(reader: VectorReader | null, method: string, copies = reader === null, capacity = this.#arena.capacity): void {
    const old = this.#arena;
    old.dispose();
    this.#arena = new ScanArena(this.#kernel, this.dim, old.stride, capacity, copies, method);
    this.#arena.codes.set(old.codes.subarray(0, this.#size * old.stride));
    this.#reader = reader;
    this.#filled = 0;
  }

  /** Every id held, in storage order. */
  nos(): number[] {
    return Array.from(this.#slotToNo.subarray(0, this.#size));
  }

  /**
   * Top `k` by inner product, best first, equal scores by smaller `no` first. `accept` is only
   * asked about candidates that would make the current cut, so it must be a pure filter.
   */
  search(query: Float32Array, k: number, accept?: Accept): Scored[] {
    checkVector('FlatVectorIndex.search', query, this.dim);
    checkNonNegativeInt('FlatVectorIndex.search', 'k', k);
    const n = this.#size;
    if (n === 0 || k === 0) return [];
    const a = this.#arena;
    // Copying into a fixed Float32Array also keeps the JS loop monomorphic whatever the caller passed.
    a.query.set(query);
    const coded = k < n ? quantizeQuery(a.query, a.query16, a.stride) : null;
    if (coded !== null) {
      a.dotI8(n, 'FlatVectorIndex.search');
      const count = candidates(a.dots, this.#meta, this.#ceiling, n, k, coded, this.#slotToNo, accept, this.#candidates);
      if (count >= 0) {
        const slots = this.#candidates.slots.subarray(0, count);
        return this.#reader === null ? rescoreHeld(a, this.#slotToNo, slots, k, accept) : rescoreRead(a, this.#slotToNo, slots, k, accept, this.#reader);
      }
    }
    if (this.#reader !== null) return rescoreRead(a, this.#slotToNo, this.#acceptedSlots(n, accept), k, undefined, this.#reader);
    if (a.wasm === null) dotJs(a.query, a.vectors, n, this.dim, a.scores);
    else a.wasm.dot(0, a.vectorPtr, n, this.dim, a.scorePtr);
    return selectTop(a.scores, this.#slotToNo, n, Math.min(k, n), accept);
  }

  /** The slots `accept` lets through (every slot without it): what a released index re-scores when the int8 pass cannot narrow them. */
  #acceptedSlots(n: number, accept: Accept | undefined): Int32Array {
    const slots = new Int32Array(n);
    let count = 0;
    for (let slot = 0; slot < n; slot++) if (accept === undefined || accept(this.#slotToNo[slot]!)) slots[count++] = slot;
    return slots.subarray(0, count);
  }

  /**
   * Forgets every vector, and a released index keeps vectors again. An index that kept them keeps
   * its reserved capacity (its wasm memory cannot shrink); a released one starts over at the
   * capacity it was made with, in a new instance: with the old capacity and room for f32 copies,
   * a 100k store's close (which clears its indexes) grew a new WebAssembly memory to ~190 MiB that
   * nothing would use (address space, not resident pages, on the 64-bit hosts measured).
   */
  clear(): void {
    this.#offered = null;
    this.#size = 0;
    this.#noToSlot.clear();
    this.#ceiling.fill(0);
    if (this.#reader === null) return;
    this.#relayout(null, 'FlatVectorIndex.clear', true, this.#initialCapacity);
    this.#slotToNo = new Int32Array(this.#initialCapacity);
    this.#meta = new Float64Array(this.#initialCapacity * META);
  }

  /** Ends the scan's helper thread, if it has one; a later search runs on the calling thread alone. */
  dispose(): void {
    this.#arena.dispose();
  }

  /** {@link VectorIndex.close}: nothing is left to save, so the same as `dispose`. */
  close(): void {
    this.dispose();
  }

  /** Bytes reserved for vectors (f32 unless released, and i8 with their bounds), including spare capacity. */
  byteSize(): number {
    return this.#arena.capacity * ((this.#arena.copies ? this.dim * 4 : 0) + this.#arena.stride + META * 8) + this.#arena.readCapacity * this.dim * 4;
  }

  /** The portable form (see `flat-snapshot.ts`); a released index reads its vectors back from the store for it. */
  save(): Uint8Array {
    const dim = this.dim;
    const nos = this.#slotToNo.subarray(0, this.#size);
    const batch = this.#reader === null ? null : new Float32Array(Math.min(nos.length, READ_BATCH) * dim);
    return encodeFlat(dim, nos, READ_BATCH, (from, to) => {
      if (batch === null) return this.#arena.vectors.subarray(from * dim, to * dim);
      const part = batch.subarray(0, (to - from) * dim);
      this.#reader!(Array.from(nos.subarray(from, to)), part);
      return part;
    });
  }

  /** Grows every slot-indexed array to `capacity`, keeping the slots held. */
  #reserve(capacity: number, method: string): void {
    this.#arena.reserve(capacity, this.#size, method);
    const slotToNo = new Int32Array(capacity);
    slotToNo.set(this.#slotToNo.subarray(0, this.#size));
    this.#slotToNo = slotToNo;
    const meta = new Float64Array(capacity * META);
    meta.set(this.#meta.subarray(0, this.#size * META));
    this.#meta = meta;
  }
}
