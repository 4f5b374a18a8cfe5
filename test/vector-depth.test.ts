/**
 * How deep a recall asks the dense leg: a vector recall over the exact scan asks for k (its top k
 * is the first k of any deeper scan, and a deeper one only re-scores more vectors), an approximate
 * index and every fused mode for the fusion's pool.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HybridMemory } from '../src/index.js';
import { AdaptiveVectorIndex } from '../src/legs/vector/adaptive-index.js';
import { FlatEstimates } from '../src/legs/vector/flat-estimates.js';
import { FlatVectorIndex } from '../src/legs/vector/flat-index.js';
import { HnswVectorIndex } from '../src/legs/vector/hnsw-index.js';
import { loadHnswlib } from '../src/legs/vector/hnswlib-loader.js';
import { WalkedGraph } from '../src/legs/vector/walked-graph.js';
import { clusteredVectors } from './support/clustered-vectors.js';

afterEach(() => {
  vi.restoreAllMocks();
});

async function storeOf(vectors: Float32Array[], ann: false | { threshold: number }, logs: string[] = []): Promise<HybridMemory> {
  const mem = await HybridMemory.open({ embedder: null, ann, logger: (_l, m) => logs.push(m) });
  await mem.storeMany(vectors.map((embedding, i) => ({ id: `m${i}`, text: `memory number ${i}`, embedding })));
  return mem;
}

describe('the dense leg is exact or not', () => {
  it('says so for the scan, HNSW and the adaptive index before and after HNSW serves', async () => {
    expect(new FlatVectorIndex(8, null).exact).toBe(true);
    const vectors = clusteredVectors(300, { seed: 5 });
    const adaptive = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 200 });
    expect(adaptive.exact).toBe(true);
    vectors.forEach((v, i) => adaptive.add(i, v));
    await adaptive.whenIndexed();
    expect(adaptive.status().state).toBe('ready');
    expect(adaptive.exact).toBe(false);
    adaptive.dispose();
    const hnsw = new HnswVectorIndex(await loadHnswlib(), 384);
    expect(hnsw.exact).toBe(false);
    hnsw.dispose();
  });
});

describe('recall depth', () => {
  it('asks the exact scan for k in a vector recall, for the pool in fused modes', async () => {
    const vectors = clusteredVectors(400, { seed: 11 });
    const mem = await storeOf(vectors, false);
    const search = vi.spyOn(FlatVectorIndex.prototype, 'search');
    await mem.recall('memory', { mode: 'vector', queryEmbedding: vectors[3]!, k: 7 });
    expect(search.mock.calls.map((c) => c[1])).toEqual([7]);
    search.mockClear();
    await mem.recall('memory', { mode: 'hybrid', queryEmbedding: vectors[3]!, k: 7 });
    await mem.recall('memory', { mode: 'graph', queryEmbedding: vectors[3]!, k: 7 });
    expect(search.mock.calls.map((c) => c[1])).toEqual([100, 100]);
    await mem.close();
  });

  it('answers a vector recall as the first k of a deeper one: the same memories, scores and order', async () => {
    const vectors = clusteredVectors(600, { seed: 23 });
    const mem = await storeOf(vectors, false);
    for (const q of [0, 17, 250, 599]) {
      const deep = await mem.recall('memory', { mode: 'vector', queryEmbedding: vectors[q]!, k: 200 });
      for (const k of [1, 5, 10, 37]) {
        const hits = await mem.recall('memory', { mode: 'vector', queryEmbedding: vectors[q]!, k, explain: true });
        expect(hits.map((h) => [h.id, h.score, h.legs.vector?.rank])).toEqual(deep.slice(0, k).map((h, i) => [h.id, h.score, i + 1]));
      }
    }
    await mem.close();
  });

  it('walks HNSW as wide as the pool once it serves a vector recall, and re-ranks only what can make its k', async () => {
    const vectors = clusteredVectors(300, { seed: 31 });
    const logs: string[] = [];
    const mem = await storeOf(vectors, { threshold: 200 }, logs);
    while (!logs.some((m) => m.includes('HNSW built') || m.includes('HNSW disabled'))) await new Promise((r) => setTimeout(r, 20));
    expect(logs.some((m) => m.includes('HNSW built over 300'))).toBe(true);
    const search = vi.spyOn(WalkedGraph.prototype, 'search');
    const among = vi.spyOn(FlatEstimates.prototype, 'searchAmong');
    const wide = await mem.recall('memory', { mode: 'hybrid', queryEmbedding: vectors[3]!, k: 10 });
    expect(search.mock.calls.map((c) => [c[2], c[3]])).toEqual([[100, 100]]);
    search.mockClear();
    const hits = await mem.recall('memory', { mode: 'vector', queryEmbedding: vectors[3]!, k: 7, explain: true });
    // k 7 from a beam of 100: the walk is the pool's, the re-ranking the top 7's.
    expect(search.mock.calls.map((c) => [c[2], c[3]])).toEqual([[7, 100]]);
    expect(among.mock.calls.at(-1)![1]).toBe(7);
    const deep = await mem.recall('memory', { mode: 'vector', queryEmbedding: vectors[3]!, k: 100 });
    expect(hits.map((h) => [h.id, h.score])).toEqual(deep.slice(0, 7).map((h) => [h.id, h.score]));
    expect(wide.length).toBeGreaterThan(0);
    await mem.close();
  });
});
