/**
 * Vectors shaped like sentence embeddings (all-MiniLM-L6-v2): a shared direction every text has,
 * topic clusters, and per-text noise, L2-normalised. Unrelated pairs land near cosine 0.1–0.3 and
 * same-topic pairs near 0.5–0.7, as real ones do; uniform random vectors would be HNSW's worst case.
 */
import { rng } from './random.js';

function gaussian(next: () => number): number {
  return Math.sqrt(-2 * Math.log(next() || 1e-12)) * Math.cos(2 * Math.PI * next());
}

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i] = v[i]! / n;
  return v;
}

function randomDirection(next: () => number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) v[i] = gaussian(next);
  return unit(v);
}

export function clusteredVectors(count: number, options: { dim?: number; clusters?: number; seed?: number } = {}): Float32Array[] {
  const { dim = 384, clusters = Math.max(8, Math.round(count / 40)), seed = 7 } = options;
  const next = rng(seed);
  const shared = randomDirection(next, dim);
  const centers = Array.from({ length: clusters }, () => randomDirection(next, dim));
  return Array.from({ length: count }, () => {
    const center = centers[Math.floor(next() * clusters)]!;
    const noise = randomDirection(next, dim);
    const v = new Float32Array(dim);
    for (let i = 0; i < dim; i++) v[i] = 0.35 * shared[i]! + 0.7 * center[i]! + 0.62 * noise[i]!;
    return unit(v);
  });
}

/** Exact top-k by inner product (float64), the reference for recall. */
export function exactTop(vectors: Float32Array[], query: Float32Array, k: number): number[] {
  const scores = vectors.map((v, no) => {
    let s = 0;
    for (let i = 0; i < v.length; i++) s += v[i]! * query[i]!;
    return { no, s };
  });
  return scores.sort((a, b) => b.s - a.s || a.no - b.no).slice(0, k).map((x) => x.no);
}
