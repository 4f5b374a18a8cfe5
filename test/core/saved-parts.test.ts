import { describe, expect, it } from 'vitest';
import { HybridMemory, SqliteWasmDriver } from '../../src/index.js';
import { clusteredVectors } from '../support/clustered-vectors.js';

/**
 * A store large enough that its saved vector codes take several 1 MiB parts reopens from them and
 * its saved HNSW graph (no rebuild), and answers exactly as the store that saved them. The graph
 * is saved without its vectors, ~140 bytes a vector: 3,000 fit one part.
 */
describe('a store whose saved indexes span several parts', () => {
  it('saves them in parts and a reopen loads every one', async () => {
    const vectors = clusteredVectors(3_000, { dim: 384, seed: 23 });
    const items = vectors.map((embedding, i) => ({ id: `m${i}`, text: `note ${i} on topic ${i % 97} with ticket T-${i * 7}`, embedding }));
    const logs: string[] = [];
    const first = await HybridMemory.open({ embedder: null, ann: { threshold: 1_000 }, logger: (_l, m) => logs.push(m) });
    await first.storeMany(items);
    while (!logs.some((m) => m.includes('HNSW built') || m.includes('HNSW disabled'))) await new Promise((r) => setTimeout(r, 20));
    expect(logs.some((m) => m.includes('HNSW built over 3000'))).toBe(true);
    const bytes = await first.exportDatabase();

    const driver = await SqliteWasmDriver.open({ bytes });
    const parts = (table: string) => driver.all<{ name: string }>(`SELECT name FROM ${table} ORDER BY name`).map((r) => r.name);
    expect(parts('ann_index')).toEqual(['dense']);
    expect(parts('derived_index')).toEqual(expect.arrayContaining(['lexical', 'entities', 'quantized', 'quantized#1']));

    const reopenLogs: string[] = [];
    const again = await HybridMemory.open({ storage: driver, embedder: null, ann: { threshold: 1_000 }, logger: (_l, m) => reopenLogs.push(m) });
    await again.ready();
    while (!reopenLogs.some((m) => m.includes('HNSW restored') || m.includes('HNSW built'))) await new Promise((r) => setTimeout(r, 20));
    expect(reopenLogs).toEqual(expect.arrayContaining(['loaded the saved lexical index', 'loaded the saved entity index', 'opened the dense leg from its saved codes; vectors are read from the store when needed']));
    expect(reopenLogs.some((m) => m.startsWith('ann: HNSW restored from saved bytes'))).toBe(true);
    for (const i of [5, 1_234, 2_999]) {
      for (const mode of ['vector', 'hybrid'] as const) {
        const options = { mode, k: 10, queryEmbedding: vectors[i]!, explain: false };
        const query = `topic ${i % 97} T-${i * 7}`;
        expect((await again.recall(query, options)).map((h) => [h.id, h.score])).toEqual((await first.recall(query, options)).map((h) => [h.id, h.score]));
      }
    }
    await again.close();
    await first.close();
  });
});
