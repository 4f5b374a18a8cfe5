import { gaussian, rng } from './stats.js';

/**
 * The speed corpus: synthetic but shaped like an agent's notes — Zipf-distributed words, some
 * identifiers — with clustered unit vectors (uniform random vectors make HNSW look worse than it
 * is on real embeddings, whose neighbourhoods are clustered).
 */
export interface Doc {
  id: string;
  text: string;
  vector: Float32Array;
  createdAt: number;
}

export interface SpeedQuery {
  text: string;
  vector: Float32Array;
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'ten', 'sol', 'vex', 'dor', 'pli', 'qua', 'zen', 'tor', 'bri', 'fel', 'gon', 'hus', 'jin', 'mar', 'nel', 'pos'];

/** The head of a Zipf vocabulary is function words in any real text; these play that part. */
const FUNCTION_WORDS = ['the', 'of', 'and', 'to', 'a', 'in', 'is', 'that', 'for', 'it', 'on', 'with', 'as', 'was', 'be', 'at', 'by', 'this', 'are', 'from', 'or', 'an', 'but', 'not', 'we', 'they', 'which', 'has', 'have', 'will'];

function vocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>(FUNCTION_WORDS);
  while (words.size < size) {
    const n = 2 + Math.floor(random() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(w);
  }
  return [...words];
}

/** Zipf(1.1) sampler over ranks via a precomputed CDF. */
function zipf(n: number, random: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1) ** 1.1;
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

function unit(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < v.length; i++) v[i]! *= inv;
  return v;
}

export function makeCorpus(n: number, dim: number, seed = 42): { docs: Doc[]; queries: SpeedQuery[] } {
  const random = rng(seed);
  const words = vocabulary(20_000, random);
  const pick = zipf(words.length, random);
  const clusters = Array.from({ length: Math.max(16, Math.round(Math.sqrt(n))) }, () => unit(Float32Array.from({ length: dim }, () => gaussian(random))));
  const start = Date.parse('2025-01-01T00:00:00Z');
  const docs: Doc[] = [];
  // One allocation for all vectors: a process that drops the corpus gives the memory back, so
  // what a system retains after build is not hidden under the corpus's freed fragments.
  const all = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    const len = 12 + Math.floor(random() * 20);
    const parts: string[] = [];
    for (let j = 0; j < len; j++) parts.push(words[pick()]!);
    if (random() < 0.3) parts.splice(Math.floor(random() * parts.length), 0, `TKT-${1000 + Math.floor(random() * 9000)}`);
    const center = clusters[Math.floor(random() * clusters.length)]!;
    const vector = all.subarray(i * dim, (i + 1) * dim);
    vector.set(unit(center.map((c) => c + gaussian(random) * 0.08)));
    docs.push({ id: `d${i}`, text: parts.join(' '), vector, createdAt: start + Math.floor(random() * 600) * 86_400_000 });
  }
  const queries: SpeedQuery[] = [];
  for (let q = 0; q < 200; q++) {
    const doc = docs[Math.floor(random() * docs.length)]!;
    const tokens = doc.text.split(' ');
    const k = 2 + Math.floor(random() * 3);
    const picked = Array.from({ length: k }, () => tokens[Math.floor(random() * tokens.length)]!);
    queries.push({ text: picked.join(' '), vector: unit(doc.vector.map((c) => c + gaussian(random) * 0.05)) });
  }
  return { docs, queries };
}

/** Random DEPENDS_ON edges (about one per two memories) so the graph leg has work to do. */
export function makeEdges(docs: readonly Doc[], seed = 7): Array<[string, string]> {
  const random = rng(seed);
  const edges = new Set<string>();
  const out: Array<[string, string]> = [];
  for (let i = 0; i < docs.length / 2; i++) {
    const a = Math.floor(random() * docs.length);
    const b = Math.floor(random() * docs.length);
    if (a === b || edges.has(`${a}:${b}`)) continue;
    edges.add(`${a}:${b}`);
    out.push([docs[a]!.id, docs[b]!.id]);
  }
  return out;
}
