import { HybridMemory, type Embedder } from '../../src/index.js';
import type { RetrievalSet, RetrievalSuite } from '../lib/datasets.js';
import { quantile } from '../lib/stats.js';
import { allFoundAt, averageScores, ndcgAt, recallAt, reciprocalRank, type Scores } from './metrics.js';
import { openStores, rankedIds, systemsFor } from './systems.js';
import { cachedEmbeddings } from './vector-cache.js';

/** A set's document vectors from the on-disk cache (see `vector-cache.ts`). */
export function cachedVectors(set: RetrievalSet, embedder: Embedder, log: (s: string) => void): Promise<Float32Array[]> {
  return cachedEmbeddings(set.docs.map((d) => d.text), embedder, log);
}

export interface DatasetResult {
  name: string;
  docs: number;
  queries: number;
  /** 'overall' and, where queries have categories (LoCoMo), each category → system → scores. */
  byGroup: Record<string, Record<string, Scores>>;
}

const OVERALL = 'overall';

/**
 * Scores every system on a suite: each part (a LoCoMo conversation, or the whole set) is its own
 * store, questions are asked one by one through the public API, and per-query metrics are
 * averaged over all questions of the suite (per category too). `ms p50`/`ms mean` time each
 * recall call, the query vector being given (its encoding is the same for every system).
 */
export async function runDataset(suite: RetrievalSuite, embedder: Embedder | null, log: (s: string) => void, limitQueries?: number): Promise<DatasetResult> {
  const systems = systemsFor(embedder !== null);
  const rows = new Map<string, Map<string, Array<Record<string, number>>>>();
  const times = new Map<string, number[]>();
  let docs = 0;
  let asked = 0;
  for (const set of suite.parts) {
    log(`quality: ${suite.name} / ${set.name}: ${set.docs.length} docs, ${set.queries.length} queries`);
    const queries = set.queries.slice(0, limitQueries ?? set.queries.length);
    const vectors = embedder ? await cachedVectors(set, embedder, log) : null;
    const queryVectors = embedder ? await cachedEmbeddings(queries.map((q) => q.text), embedder, log) : null;
    const stores = await openStores(() => openSet(set, embedder, vectors));
    docs += set.docs.length;
    asked += queries.length;
    for (const system of systems) {
      for (const [i, q] of queries.entries()) {
        const t0 = performance.now();
        const ranked = await rankedIds(stores, q.text, system, 10, queryVectors ? { queryEmbedding: queryVectors[i]! } : {});
        times.set(system.name, [...(times.get(system.name) ?? []), performance.now() - t0]);
        const relevant = new Set(q.relevant);
        const row = {
          'recall@10': recallAt(ranked, relevant, 10),
          'all@10': allFoundAt(ranked, relevant, 10),
          'nDCG@10': ndcgAt(ranked, relevant, 10),
          MRR: reciprocalRank(ranked, relevant),
        };
        for (const group of q.category ? [OVERALL, q.category] : [OVERALL]) {
          const bySystem = rows.get(group) ?? new Map<string, Array<Record<string, number>>>();
          rows.set(group, bySystem);
          bySystem.set(system.name, [...(bySystem.get(system.name) ?? []), row]);
        }
      }
    }
    await stores.close();
  }
  const byGroup: DatasetResult['byGroup'] = {};
  for (const [group, bySystem] of rows) {
    byGroup[group] = {};
    for (const [name, list] of bySystem) {
      const sorted = [...times.get(name)!].sort((a, b) => a - b);
      byGroup[group][name] = { ...averageScores(list), 'ms p50': quantile(sorted, 0.5), 'ms p95': quantile(sorted, 0.95) };
    }
  }
  return { name: suite.name, docs, queries: asked, byGroup };
}

async function openSet(set: RetrievalSet, embedder: Embedder | null, vectors: Float32Array[] | null): Promise<HybridMemory> {
  const mem = await HybridMemory.open({ embedder });
  await mem.storeMany(set.docs.map((d, i) => ({
    id: d.id,
    text: d.text,
    ...(d.createdAt !== undefined ? { createdAt: d.createdAt } : {}),
    ...(d.metadata ? { metadata: d.metadata } : {}),
    ...(vectors ? { embedding: vectors[i]! } : {}),
  })));
  await mem.ready();
  return mem;
}
