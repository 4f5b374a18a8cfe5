import { HybridMindError } from '../../errors.js';
import type { VectorKernel, VectorKernelInstance } from './kernel.js';
import type { PassHelper } from './scan-threads.js';
import { dotI8At, dotI8Js } from './quantize.js';

const PAGE = 65_536;
/** Ends the helper thread of an arena dropped without `dispose` (an index nobody closed). */
const helpers = new FinalizationRegistry<PassHelper>((helper) => helper.stop());
/**
 * Vectors per call of the int8 pass. V8 runs a new WebAssembly function as baseline code and
 * compiles optimized code in the background once it is hot, but a call already running keeps the
 * code it started with: one call over 100k 384-d vectors, the first search after an open, ran
 * ~8 ms instead of ~2.2. Calls of 8,192 pick up the optimized code part way (~3.8 ms); per call
 * the crossing costs far less than a microsecond.
 */
const I8_CHUNK = 8_192;

/**
 * The flat scan's buffers, each slot-indexed array with room for `capacity` vectors. With the SIMD
 * kernel they live in its WebAssembly memory, where it scores them in place, laid out as
 * [f32 query | i16 query | f32 vectors (without `copies`, none) | i8 codes | scores (f32, or i32
 * sums, or re-scored slots) | f32 vectors read back]; without it they are plain typed arrays.
 * An arena never drops its copies region: one without copies is a new arena, with a new kernel
 * instance, so the old memory (which cannot shrink) is freed with the old arena.
 */
export class ScanArena {
  readonly dim: number;
  /** Bytes per i8 vector. */
  readonly stride: number;
  readonly wasm: VectorKernelInstance | null;
  /** Whether there is room for f32 copies of the vectors. */
  readonly copies: boolean;
  readonly query16Ptr: number;
  readonly vectorPtr: number;
  codesPtr = 0;
  scorePtr = 0;
  readPtr = 0;
  capacity = 0;
  /** Vectors the read-back region holds. */
  readCapacity = 0;
  vectors = new Float32Array(0);
  codes = new Int8Array(0);
  scores = new Float32Array(0);
  /** The same bytes as `scores`, read as the i8 pass's integer sums. */
  dots = new Int32Array(0);
  query = new Float32Array(0);
  query16 = new Int16Array(0);
  read = new Float32Array(0);

  constructor(kernel: VectorKernel | null, dim: number, stride: number, capacity: number, copies: boolean, method: string) {
    this.dim = dim;
    this.stride = stride;
    this.copies = copies;
    this.wasm = kernel === null ? null : kernel.instantiate();
    if (this.wasm?.helper) helpers.register(this, this.wasm.helper);
    this.query16Ptr = align16(dim * 4);
    this.vectorPtr = this.query16Ptr + stride * 2;
    this.reserve(capacity, 0, method);
  }

  /** Grows every region to `capacity` vectors, keeping the first `size` vectors' copies and codes. */
  reserve(capacity: number, size: number, method: string): void {
    const { dim, stride, copies } = this;
    if (this.wasm === null) {
      const vectors = new Float32Array(copies ? capacity * dim : 0);
      if (copies) vectors.set(this.vectors.subarray(0, size * dim));
      this.vectors = vectors;
      const codes = new Int8Array(capacity * stride);
      codes.set(this.codes.subarray(0, size * stride));
      this.codes = codes;
      this.scores = new Float32Array(capacity);
      this.dots = new Int32Array(this.scores.buffer);
      if (this.query.length !== dim) this.query = new Float32Array(dim);
      if (this.query16.length !== stride) this.query16 = new Int16Array(stride);
    } else {
      // The f32 vectors stay where they are; the i8 copy moves up past them, the scores past it.
      const codesPtr = this.vectorPtr + align16(copies ? capacity * dim * 4 : 0);
      const scorePtr = codesPtr + capacity * stride;
      const readPtr = align16(scorePtr + capacity * 4);
      this.#grow(readPtr + this.readCapacity * dim * 4, method, `${capacity} vectors`);
      // Moving up into the grown region: copyWithin copies as if through a buffer, so overlap is safe.
      if (size > 0) new Int8Array(this.wasm.memory.buffer).copyWithin(codesPtr, this.codesPtr, this.codesPtr + size * stride);
      this.codesPtr = codesPtr;
      this.scorePtr = scorePtr;
      this.readPtr = readPtr;
    }
    this.capacity = capacity;
    if (this.wasm !== null) this.#bind();
  }

  /**
   * The int8 pass: `dots[i]` is the i16 query's exact inner product with the codes of slot i, for
   * the first `n` slots. A large pass is shared with the kernel's helper thread, if any. Returns
   * how many slots the helper scored.
   */
  dotI8(n: number, method: string): number {
    if (this.wasm === null) {
      dotI8Js(this.query16, this.codes, n, this.stride, this.dots);
      return 0;
    }
    const helper = this.wasm.helper;
    const helped = helper === null ? -1 : helper.share(this.query16Ptr, this.codesPtr, n, this.stride, this.scorePtr, I8_CHUNK, (from, to) => this.#dotI8(from, to), method);
    if (helped >= 0) return helped;
    this.#dotI8(0, n);
    return 0;
  }

  /** Stops the kernel's helper thread, if it has one: this arena is no longer searched. */
  dispose(): void {
    this.wasm?.helper?.stop();
  }

  #dotI8(from: number, to: number): void {
    for (let at = from; at < to; at += I8_CHUNK) {
      this.wasm!.dotI8(this.query16Ptr, this.codesPtr + at * this.stride, Math.min(I8_CHUNK, to - at), this.stride, this.scorePtr + at * 4);
    }
  }

  /**
   * The int8 pass for chosen slots: `dots[i]` becomes the query's inner product with the codes of
   * slot `slots[i]`, for the `count` first (at most `capacity`). The slots may be `dots` itself.
   */
  dotI8At(slots: Int32Array, count: number): void {
    if (this.wasm === null) {
      for (let i = 0; i < count; i++) this.dots[i] = dotI8At(this.query16, this.codes, slots[i]! * this.stride, this.stride);
      return;
    }
    if (slots !== this.dots) this.dots.set(slots.subarray(0, count));
    this.wasm.dotI8At(this.query16Ptr, this.codesPtr, this.scorePtr, count, this.stride);
  }

  /** Room for `count` vectors read back from the store. */
  reserveRead(count: number): void {
    if (count <= this.readCapacity) return;
    this.readCapacity = count;
    if (this.wasm === null) {
      this.read = new Float32Array(count * this.dim);
      return;
    }
    this.#grow(this.readPtr + count * this.dim * 4, 'FlatVectorIndex.search', `${count} vectors read back`);
    this.#bind();
  }

  /** Grows the kernel's memory to at least `needed` bytes. */
  #grow(needed: number, method: string, what: string): void {
    const memory = this.wasm!.memory;
    const have = memory.buffer.byteLength;
    if (needed <= have) return;
    try {
      memory.grow(Math.ceil((needed - have) / PAGE));
    } catch (cause) {
      throw new HybridMindError('STORAGE', method, `cannot grow WebAssembly memory to ${needed} bytes for ${what}`, { cause });
    }
  }

  /** Views over the kernel's memory; `grow` detaches the old buffer, so they are made again after every growth. */
  #bind(): void {
    const buffer = this.wasm!.memory.buffer;
    const { dim, capacity, stride } = this;
    this.query = new Float32Array(buffer, 0, dim);
    this.query16 = new Int16Array(buffer, this.query16Ptr, stride);
    this.vectors = new Float32Array(buffer, this.vectorPtr, this.copies ? capacity * dim : 0);
    this.codes = new Int8Array(buffer, this.codesPtr, capacity * stride);
    this.scores = new Float32Array(buffer, this.scorePtr, capacity);
    this.dots = new Int32Array(buffer, this.scorePtr, capacity);
    this.read = new Float32Array(buffer, this.readPtr, this.readCapacity * dim);
  }
}

function align16(bytes: number): number {
  return (bytes + 15) & ~15;
}
