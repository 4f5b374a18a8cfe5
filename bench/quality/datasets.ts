import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HybridMemory, type Embedder } from '../../src/index.js';
import type { RetrievalSet } from '../lib/datasets.js';
import { allFoundAt, averageScores, ndcgAt, recallAt, reciprocalRank, type Scores } from './metrics.js';
import { openStores, rankedIds, systemsFor } from './systems.js';

const CACHE = new URL('../.cache/', import.meta.url);

/**
 * Embeds a dataset's documents once per embedder and caches the raw float32 vectors, since a
 * 5,000-abstract corpus takes minutes to encode on two cores.
 */
export async function cachedVectors(set: RetrievalSet, embedder: Embedder, log: (s: string) => void): Promise<Float32Array[]> {
  await mkdir(CACHE, { recursive: true });
  const file = join(CACHE.pathname, `${set.name.replace(/\W+/g, '_')}-${embedder.id.replace(/\W+/g, '_')}-${set.docs.length}.f32`);
  try {
    const bytes = await readFile(file);
    const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    if (all.length === set.docs.length * embedder.dim) return set.docs.map((_, i) => all.slice(i * embedder.dim, (i + 1) * embedder.dim));
  } catch {
    // No cache yet: encode below.
  }
  const t0 = performance.now();
  const out: Float32Array[] = [];
  for (let i = 0; i < set.docs.length; i += 256) {
    out.push(...(await embedder.embed(set.docs.slice(i, i + 256).map((d) => d.text))));
    log(`    embedded ${out.length}/${set.docs.length} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  const flat = new Float32Array(out.length * embedder.dim);
  out.forEach((v, i) => flat.set(v, i * embedder.dim));
  await writeFile(file, new Uint8Array(flat.buffer));
  return out;
}

export interface DatasetResult {
  name: string;
  docs: number;
  queries: number;
  bySystem: Record<string, Scores>;
}

export async function runDataset(set: RetrievalSet, embedder: Embedder | null, log: (s: string) => void, limitQueries?: number): Promise<DatasetResult> {
  log(`quality: ${set.name}: ${set.docs.length} docs, ${set.queries.length} queries`);
  const vectors = embedder ? await cachedVectors(set, embedder, log) : null;
  const systems = systemsFor(embedder !== null);
  const stores = await openStores(async (autoEdges) => {
    const mem = await HybridMemory.open({ embedder, autoEdges });
    await mem.storeMany(set.docs.map((d, i) => ({ id: d.id, text: d.text, ...(vectors ? { embedding: vectors[i]! } : {}) })));
    await mem.ready();
    if (autoEdges) log(`    automatic edges: ${(await mem.stats()).edges}`);
    return mem;
  }, systems);
  const queries = set.queries.slice(0, limitQueries ?? set.queries.length);
  const queryVectors = embedder ? await embedder.embed(queries.map((q) => q.text)) : null;
  const bySystem: Record<string, Scores> = {};
  for (const system of systems) {
    const rows = [];
    for (const [i, q] of queries.entries()) {
      const ranked = await rankedIds(stores, q.text, system, 20, queryVectors ? { queryEmbedding: queryVectors[i]! } : {});
      const relevant = new Set(q.relevant);
      rows.push({
        'recall@2': recallAt(ranked, relevant, 2),
        'recall@5': recallAt(ranked, relevant, 5),
        'recall@10': recallAt(ranked, relevant, 10),
        'all@5': allFoundAt(ranked, relevant, 5),
        'all@10': allFoundAt(ranked, relevant, 10),
        MRR: reciprocalRank(ranked, relevant),
        'nDCG@10': ndcgAt(ranked, relevant, 10),
      });
    }
    bySystem[system.name] = averageScores(rows);
  }
  await stores.close();
  return { name: set.name, docs: set.docs.length, queries: queries.length, bySystem };
}
