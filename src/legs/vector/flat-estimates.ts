/**
 * The exact scan's codes as a walk over an HNSW graph uses them: the walk picks the vectors it
 * scores itself, so instead of one pass over every slot it asks for int8 estimates of a few at a
 * time (`estimateMany`), of codes a removed node kept (`estimateCodes`), and at the end for the
 * exact f32 top k among what it met (`searchAmong`), re-scored as `FlatVectorIndex.search` does.
 */
import { HybridMindError } from '../../errors.js';
import type { Accept, Scored, VectorReader } from '../types.js';
import { boundedAmong, dotI8At, META, quantizeQuery, type QueryCodes } from './quantize.js';
import { checkVector } from './packed.js';
import { rescoreHeld, rescoreRead } from './rescore.js';
import type { ScanArena } from './scan-arena.js';

/**
 * What the estimates read of the index that owns them, always its current buffers: the index
 * replaces them as it grows, releases or clears.
 */
export interface HeldCodes {
  readonly arena: ScanArena;
  /** Per slot, the quantization scale and error-bound terms (`META` each). */
  readonly meta: Float64Array;
  readonly slotToNo: Int32Array;
  /** Where f32 vectors are read from once the index stopped keeping them; null while it keeps them. */
  readonly reader: VectorReader | null;
  slotOf(no: number): number | undefined;
}

export class FlatEstimates {
  readonly #held: HeldCodes;
  /** The query of the last `prepare`, quantized; null when it could not be. */
  #query: QueryCodes | null = null;
  /** The slots `estimateMany` scores. */
  #slots = new Int32Array(64);

  constructor(held: HeldCodes) {
    this.#held = held;
  }

  /**
   * Quantizes `query` for the calls below. False when the query has a non-finite component or no
   * length, which only the full scan answers.
   */
  prepare(query: Float32Array): boolean {
    const a = this.#held.arena;
    checkVector('FlatEstimates.prepare', query, a.dim);
    a.query.set(query);
    this.#query = quantizeQuery(a.query, a.query16, a.stride);
    return this.#query !== null;
  }

  /**
   * The prepared query's int8 estimates of its inner products with the vectors held for
   * `nos[0…count)`, into `out` (−Infinity where none is held): one kernel call for the batch.
   */
  estimateMany(nos: ArrayLike<number>, count: number, out: Float64Array): void {
    const held = this.#held;
    if (this.#slots.length < count) this.#slots = new Int32Array(Math.max(count, 2 * this.#slots.length));
    const slots = this.#slots;
    for (let i = 0; i < count; i++) {
      const slot = held.slotOf(nos[i]!);
      slots[i] = slot ?? 0;
      out[i] = slot === undefined ? -Infinity : 0;
    }
    const a = held.arena;
    a.dotI8At(slots, count);
    const scale = this.#query!.scale;
    const dots = a.dots;
    const meta = held.meta;
    for (let i = 0; i < count; i++) if (out[i] !== -Infinity) out[i] = scale * meta[slots[i]! * META]! * dots[i]!;
  }

  /** The same for codes the index no longer holds (copied out by `codesOf`), with their scale. */
  estimateCodes(codes: Int8Array, at: number, scale: number): number {
    const a = this.#held.arena;
    return this.#query!.scale * scale * dotI8At(a.query16, codes, at, a.stride);
  }

  /** Copies the i8 codes held for `no` into `into` at `at` and returns their scale; undefined when none are held. */
  codesOf(no: number, into: Int8Array, at: number): number | undefined {
    const slot = this.#held.slotOf(no);
    if (slot === undefined) return undefined;
    const { codes, stride } = this.#held.arena;
    into.set(codes.subarray(slot * stride, (slot + 1) * stride), at);
    return this.#held.meta[slot * META]!;
  }

  /**
   * The exact top `k` of the held vectors among `nos` for the prepared query, ranked as the full
   * scan ranks: only those whose int8 bound can reach the list's k-th are re-scored in f32.
   */
  searchAmong(nos: ArrayLike<number>, k: number, accept?: Accept): Scored[] {
    const coded = this.#query;
    if (coded === null) throw new HybridMindError('INVALID_ARGUMENT', 'FlatEstimates.searchAmong', 'no query was prepared (prepare)');
    const held = this.#held;
    const slots = new Int32Array(nos.length);
    let count = 0;
    for (let i = 0; i < nos.length; i++) {
      const slot = held.slotOf(nos[i]!);
      if (slot !== undefined) slots[count++] = slot;
    }
    if (count === 0 || k === 0) return [];
    const a = held.arena;
    a.dotI8At(slots, count);
    const kept = slots.subarray(0, boundedAmong(slots, a.dots, count, held.meta, k, coded, held.slotToNo, accept));
    const reader = held.reader;
    return reader === null ? rescoreHeld(a, held.slotToNo, kept, k, accept) : rescoreRead(a, held.slotToNo, kept, k, accept, reader);
  }
}
