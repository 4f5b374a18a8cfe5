/**
 * The flat scan's second step: the exact f32 scores of the candidates the int8 pass could not rule
 * out, computed as the full scan computes them, then the top k. From the arena's f32 copies while
 * the index keeps them, otherwise from the store's vectors, read back a batch at a time.
 */
import type { Accept, Scored, VectorReader } from '../types.js';
import { dotJs, selectTop } from './flat-scan.js';
import type { ScanArena } from './scan-arena.js';

/** Vectors read from the store per batch when re-scoring without full-precision copies: 6 MB at 384-d. */
export const READ_BATCH = 4096;

/** The JS scan's one score when re-scoring slot by slot. */
const one = new Float32Array(1);

function numbersOf(slots: ArrayLike<number>, slotToNo: Int32Array): Int32Array {
  const nos = new Int32Array(slots.length);
  for (let i = 0; i < slots.length; i++) nos[i] = slotToNo[slots[i]!]!;
  return nos;
}

/** From the arena's f32 copies. */
export function rescoreHeld(a: ScanArena, slotToNo: Int32Array, slots: Int32Array, k: number, accept: Accept | undefined): Scored[] {
  const count = slots.length;
  const nos = numbersOf(slots, slotToNo);
  let scores: Float32Array;
  if (a.wasm === null) {
    scores = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      dotJs(a.query, a.vectors, 1, a.dim, one, slots[i]!);
      scores[i] = one[0]!;
    }
  } else {
    // The int8 sums are spent: their region takes the slot list, which the kernel overwrites with scores.
    a.dots.set(slots);
    a.wasm.dotAt(0, a.vectorPtr, a.scorePtr, count, a.dim);
    scores = a.scores;
  }
  return selectTop(scores, nos, count, Math.min(k, count), accept);
}

/**
 * From the store: the vectors of `slots` are read into the arena's read-back region a batch at a
 * time and scored there by the same kernel, so the scores are the full scan's bits.
 */
export function rescoreRead(a: ScanArena, slotToNo: Int32Array, slots: ArrayLike<number>, k: number, accept: Accept | undefined, read: VectorReader): Scored[] {
  const count = slots.length;
  const dim = a.dim;
  const nos = numbersOf(slots, slotToNo);
  a.reserveRead(Math.min(count, READ_BATCH));
  for (let from = 0; from < count; from += READ_BATCH) {
    const to = Math.min(count, from + READ_BATCH);
    read(Array.from(nos.subarray(from, to)), a.read.subarray(0, (to - from) * dim));
    if (a.wasm === null) dotJs(a.query, a.read, to - from, dim, a.scores.subarray(from, to));
    else a.wasm.dot(0, a.readPtr, to - from, dim, a.scorePtr + from * 4);
  }
  return selectTop(a.scores, nos, count, Math.min(k, count), accept);
}
