import { afterEach, describe, expect, it } from 'vitest';
import type { HybridMemory } from '../../src/index.js';
import { namesOf, nameTokens } from '../../src/memory/auto-edges.js';
import { DAY, NOW, ids, openMemory } from '../support/memory.js';

let mem: HybridMemory;
afterEach(async () => mem?.close());

describe('names a memory can be cited by', () => {
  it('takes identifier-like ids and a leading identifier, not plain words or generated UUIDs', () => {
    expect(namesOf({ id: 'adr-007', text: 'ADR-007: use SQLite' })).toEqual([['adr-007'], ['adr-007']]);
    expect(namesOf({ id: 'order-1', text: 'Order #4821: GPU hours' })).toEqual([['order-1'], ['order', '#4821']]);
    expect(namesOf({ id: 'Lilu (mythology)', text: 'Lilu is a demon' })).toEqual([['lilu']]);
    expect(namesOf({ id: 'search', text: 'the search endpoint' })).toEqual([]);
    expect(namesOf({ id: '3f2b8c1e-9d4a-4e2b-8c7f-1a2b3c4d5e6f', text: 'x' })).toEqual([]);
    expect(nameTokens('See ADR-007, and Order #4821.')).toEqual(['see', 'adr-007', 'and', 'order', '#4821']);
  });
});

describe('automatic edges', () => {
  it('draws REFERENCES and SUPERSEDES from the wording, marked with who made them and why', async () => {
    mem = await openMemory({ autoEdges: { references: true } });
    await mem.store({ id: 'adr-003', text: 'ADR-003: memory lives in IndexedDB', createdAt: NOW - 300 * DAY });
    await mem.store({ id: 'adr-007', text: 'ADR-007: SQLite-WASM; this supersedes ADR-003', createdAt: NOW - 30 * DAY });
    await mem.store({ id: 'note', text: 'Benchmarks for ADR-007 look good' });
    const edges = await mem.autoEdges();
    expect(edges.map((e) => [e.from, e.type, e.to])).toEqual([['adr-007', 'SUPERSEDES', 'adr-003'], ['note', 'REFERENCES', 'adr-007']]);
    expect(edges[0]!.metadata).toMatchObject({ auto: { by: 'references', reason: expect.stringContaining('supersedes') } });
    expect((await mem.get('adr-003'))!.status).toBe('historical');
  });

  it('links backwards inside one batch and reads "superseded by" the other way round', async () => {
    mem = await openMemory({ autoEdges: { references: true } });
    await mem.storeMany([
      { id: 'old', text: 'Policy P-1 was superseded by P-2 in March', createdAt: NOW - 100 * DAY },
      { id: 'P-2', text: 'P-2: remote work three days a week', createdAt: NOW - 60 * DAY },
    ]);
    expect((await mem.autoEdges()).map((e) => [e.from, e.type, e.to])).toEqual([['P-2', 'SUPERSEDES', 'old']]);
  });

  it('relates memories sharing a rare identifier and chains session turns', async () => {
    mem = await openMemory({ autoEdges: true });
    await mem.storeMany([
      { id: 'a', text: 'customer reported TKT-1234 at night' },
      { id: 'b', text: 'fix for TKT-1234 deployed' },
      { id: 't1', text: 'hello', metadata: { sessionId: 's', turn: 1 } },
      { id: 't2', text: 'how are you', metadata: { sessionId: 's', turn: 2 } },
    ]);
    await mem.store({ id: 't3', text: 'fine', metadata: { sessionId: 's', turn: 3 } });
    const edges = (await mem.autoEdges()).map((e) => `${e.from} ${e.type} ${e.to} ${e.metadata.auto && (e.metadata.auto as { by: string }).by}`);
    expect(edges).toEqual(expect.arrayContaining(['b RELATES_TO a identifier', 't2 FOLLOWS t1 sequence', 't3 FOLLOWS t2 sequence']));
    expect(await mem.path('t3', 't1')).toEqual(['t3', 't2', 't1']);
  });

  it('draws the seed’s similarity edges once vectors arrive: RELATES_TO at cosine ≥ 0.7, DERIVED_FROM at ≥ 0.85', async () => {
    mem = await openMemory({ embedder: null, dim: 3, autoEdges: { similarity: true } });
    await mem.store({ id: 'a', text: 'a', embedding: new Float32Array([1, 0, 0]) });
    await mem.storeMany([
      { id: 'b', text: 'b', embedding: new Float32Array([0.9, 0.1, 0]) },
      { id: 'c', text: 'c', embedding: new Float32Array([0.75, 0.66, 0]) },
      { id: 'd', text: 'd', embedding: new Float32Array([0, 0, 1]) },
    ]);
    const edges = (await mem.autoEdges({ by: 'similarity' })).map((e) => [e.from, e.type, e.to]);
    expect(edges).toEqual([['b', 'DERIVED_FROM', 'a'], ['c', 'RELATES_TO', 'a']]);
  });

  it('lists and removes them by kind, leaving the caller’s own edges', async () => {
    mem = await openMemory({ autoEdges: true });
    await mem.storeMany([{ id: 'x-1', text: 'X-1: root' }, { id: 'y', text: 'see X-1' }, { id: 'z', text: 'unrelated' }]);
    await mem.relate('z', 'y', 'SUPPORTS');
    expect(await mem.autoEdges({ by: 'sequence' })).toEqual([]);
    expect(await mem.removeAutoEdges({ by: 'references' })).toBe(1);
    expect(await mem.autoEdges()).toEqual([]);
    expect((await mem.stats()).edges).toBe(1);
    await expect(mem.autoEdges({ by: 'magic' as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('are off unless asked for', async () => {
    mem = await openMemory();
    await mem.storeMany([{ id: 'x-1', text: 'X-1: root' }, { id: 'y', text: 'see X-1' }]);
    expect(await mem.autoEdges()).toEqual([]);
    expect(ids(await mem.recall('root', { mode: 'graph', anchors: ['x-1'], entityGraph: false }))).toEqual([]);
    // The entity graph is derived from the text, not drawn as edges: it still links the two.
    expect(ids(await mem.recall('root', { mode: 'graph', anchors: ['x-1'] }))).toEqual(['y']);
    expect(await mem.edges('y')).toEqual([]);
  });
});
