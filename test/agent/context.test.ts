import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HybridMemory } from '../../src/index.js';
import { rerank } from '../../src/memory/rerank.js';
import { modelAvailable, realEmbedder } from '../support/embedders.js';
import { DAY, NOW, ids, openMemory } from '../support/memory.js';

describe('deterministic rerank', () => {
  it('rewards verbatim identifiers, numbers and dates over topical matches', () => {
    const texts = new Map([
      [1, 'orders are refunded within two weeks'],
      [2, 'Order #4821 refunded on 2026-03-01'],
      [3, 'Order #4821 shipped'],
    ]);
    const fused = [1, 3, 2].map((no, i) => ({ no, score: 1 - i * 0.01 }));
    const out = rerank('refund for Order #4821 on 2026-03-01', fused, 3, (no) => texts.get(no)!);
    expect(out.map((f) => f.no)).toEqual([2, 3, 1]);
  });

  it('keeps candidates past the pool below it and leaves a query of stop words alone', () => {
    const fused = Array.from({ length: 40 }, (_, i) => ({ no: i, score: 100 - i }));
    const out = rerank('alpha', fused, 5, (no) => (no === 35 ? 'alpha' : 'beta'));
    expect(out.slice(30).map((f) => f.no)).toEqual([30, 31, 32, 33, 34, 35, 36, 37, 38, 39]);
    expect(Math.max(...out.slice(30).map((f) => f.score))).toBeLessThanOrEqual(Math.min(...out.slice(0, 30).map((f) => f.score)));
    expect(rerank('the of and', fused, 5, () => 'x')).toEqual(fused);
  });

  it('is an option of recall', async () => {
    const mem = await openMemory();
    await mem.storeMany([
      { id: 'topic', text: 'refunds for orders take two weeks to process for every order' },
      { id: 'exact', text: 'ticket about order 4821' },
    ]);
    await mem.ready();
    const hits = await mem.recall('order refunds 4821', { rerank: true, k: 2 });
    expect(ids(hits)[0]).toBe('exact');
    await expect(mem.recall('x', { rerank: 'yes' as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await mem.close();
  });
});

describe('context and citations', () => {
  let mem: HybridMemory;
  beforeAll(async () => {
    // Without the model the store keeps openMemory's hash embedder: `embedder: undefined` would load the default one.
    mem = await openMemory(modelAvailable ? { embedder: (await realEmbedder())! } : {});
    await mem.storeMany([
      { id: 'adr-003', text: 'ADR-003: agent memory lives in IndexedDB.', createdAt: NOW - 400 * DAY, metadata: { source: 'adr' } },
      { id: 'adr-007', text: 'ADR-007: agent memory lives in SQLite-WASM on OPFS.', createdAt: NOW - 30 * DAY, metadata: { source: 'adr' } },
      { id: 'adr-007-copy', text: 'ADR-007: agent memory lives in SQLite-WASM on OPFS!', createdAt: NOW - 29 * DAY, metadata: { source: 'wiki' } },
      { id: 'adr-009', text: 'ADR-009: agent memory snapshots are .mind.zip files.', createdAt: NOW - 20 * DAY, metadata: { source: 'adr' } },
      { id: 'adr-011', text: 'ADR-011: agent memory backups rotate in OPFS.', createdAt: NOW - 10 * DAY, metadata: { source: 'adr' } },
      { id: 'long', text: `Agent memory design notes: ${'the store keeps every decision with its history. '.repeat(60)}`, createdAt: NOW - 5 * DAY },
    ]);
    await mem.relate('adr-007', 'adr-003', 'SUPERSEDES');
    await mem.ready();
  });
  afterAll(async () => mem.close());

  it('tags items with citation ids, status and dates, drops near-duplicates and caps each source', async () => {
    const ctx = await mem.context('where does agent memory live?', { budgetTokens: 4000, maxPerSource: 2 });
    expect(ctx.items.map((i) => i.cite)).toEqual(ctx.items.map((_, i) => `M${i + 1}`));
    expect(ctx.items.filter((i) => ['adr-007', 'adr-007-copy'].includes(i.id))).toHaveLength(1);
    expect(ctx.dropped.duplicates).toBeGreaterThanOrEqual(1);
    expect(ctx.items.filter((i) => i.id.startsWith('adr-') && i.id !== 'adr-007-copy').length).toBeLessThanOrEqual(2);
    const superseded = await mem.context('agent memory in IndexedDB', { budgetTokens: 4000, maxPerSource: 8, maxItems: 8 });
    expect(superseded.items.find((i) => i.id === 'adr-003')).toMatchObject({ status: 'historical', validTo: expect.any(String) });
    expect(ctx.content.split('\n')[0]).toMatch(/^\[M1\] \((current|historical), (since|valid) \d{4}-\d{2}-\d{2}/);
    expect(ctx.tokenizer).toBe(modelAvailable ? 'model' : 'estimate');
  });

  it('stays within the token budget, counted by the model tokenizer', async () => {
    for (const budget of [40, 120, 400]) {
      const ctx = await mem.context('agent memory design', { budgetTokens: budget, format: 'text' });
      expect(ctx.tokens).toBeLessThanOrEqual(budget);
      expect(ctx.items.length).toBeGreaterThan(0);
      expect(ctx.items.reduce((s, i) => s + i.tokens, 0)).toBe(ctx.tokens);
    }
    const tiny = await mem.context('design notes history decision', { budgetTokens: 30, maxItems: 1 });
    expect(tiny.items[0]!.truncated || tiny.items[0]!.tokens <= 30).toBe(true);
  });

  it('renders json and checks citations against what it gave', async () => {
    const ctx = await mem.context('agent memory snapshots', { format: 'json', maxItems: 3 });
    const parsed = JSON.parse(ctx.content) as Array<{ cite: string; id: string }>;
    expect(parsed.map((p) => p.cite)).toEqual(ctx.items.map((i) => i.cite));
    const report = await mem.checkCitations(`Snapshots are zips [M1], see also [${ctx.items[0]!.id}] and [M99].`, ctx);
    expect(report).toMatchObject({ valid: ['M1', ctx.items[0]!.id], unknown: ['M99'], ok: false, memoryIds: [ctx.items[0]!.id] });
    expect((await mem.checkCitations('no citations here', ['a'])).ok).toBe(true);
    await expect(mem.checkCitations('x', 5 as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(mem.context('x', { budgetTokens: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', method: 'context' });
  });
});
