import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HybridMemory } from '../../src/index.js';
import { modelAvailable, realEmbedder } from '../support/embedders.js';
import { NOW, ids } from '../support/memory.js';

/** What only a real sentence encoder can do: find memories that share no word with the question. */
describe.runIf(modelAvailable)('semantic recall with all-MiniLM-L6-v2', () => {
  let mem: HybridMemory;
  beforeAll(async () => {
    mem = await HybridMemory.open({ embedder: await realEmbedder(), now: () => NOW });
    await mem.storeMany([
      { id: 'car', text: 'car engine repair' },
      { id: 'stocks', text: 'stock market news' },
      { id: 'kitten', text: 'a kitten naps on the couch all afternoon' },
      { id: 'password', text: 'steps to recover account credentials after forgetting them' },
      { id: 'flights', text: 'low-cost airfare deals for travel to France' },
      { id: 'outage', text: 'the backend host stopped responding and requests time out' },
    ]);
    await mem.ready();
  });
  afterAll(async () => mem.close());

  it.each([
    ['automobile maintenance', 'car'],
    ['the cat is sleeping on the sofa', 'kitten'],
    ['how do I reset my password', 'password'],
    ['cheap flights to Paris', 'flights'],
    ['the server is down', 'outage'],
  ])('"%s" finds %s first through the vector leg and in hybrid recall', async (query, expected) => {
    expect(ids(await mem.recall(query, { mode: 'vector', k: 1 }))).toEqual([expected]);
    expect(ids(await mem.recall(query, { k: 1 }))).toEqual([expected]);
  });

  it('ranks "car engine repair" above "stock market news" for "automobile maintenance"', async () => {
    const hits = await mem.recall('automobile maintenance', { mode: 'vector', k: 6 });
    const score = (id: string) => hits.find((h) => h.id === id)!.legs.vector!.score;
    expect(score('car')).toBeGreaterThan(score('stocks') + 0.2);
  });

  it('reports every memory as semantic once enrichment is done', async () => {
    const stats = await mem.stats();
    expect(stats.readiness).toEqual({ stored: 0, lexical: 0, semantic: 6 });
    expect(stats.embedderId).toBe('Xenova/all-MiniLM-L6-v2:fp32');
    expect(stats.dim).toBe(384);
  });
});

describe.runIf(modelAvailable)('the default embedder', () => {
  it('is all-MiniLM-L6-v2 from the provisioned folder when open() is given none', async () => {
    const mem = await HybridMemory.open();
    await mem.store({ text: 'car engine repair' });
    await mem.ready();
    expect((await mem.stats()).embedderId).toBe('Xenova/all-MiniLM-L6-v2:fp32');
    await mem.close();
  });
});
