/** Small statistics and timing helpers shared by every benchmark. */

export interface Summary {
  n: number;
  median: number;
  p95: number;
  mean: number;
  min: number;
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    mean: sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length),
    min: sorted[0] ?? Number.NaN,
  };
}

export async function timeAsync<T>(fn: () => Promise<T> | T): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await fn();
  return [value, performance.now() - t0];
}

/** Deterministic PRNG, shared with the tests' fixtures. */
export { rng } from '../../test/support/random.js';

export function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Bytes the process holds (JS heap, external and array buffers, which include wasm memories) after a full GC. */
export function retainedBytes(): number {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

export const canMeasureHeap = (): boolean => typeof gc === 'function';
