import { afterEach, describe, expect, it } from 'vitest';
import type { HybridMemory } from '../../src/index.js';
import { EMBEDDERS } from '../support/embedders.js';
import { DAY, NOW, ids, openMemory as openWith } from '../support/memory.js';

let mem: HybridMemory;
afterEach(async () => mem?.close());

for (const [name, makeEmbedder, skip] of EMBEDDERS) describe.skipIf(skip)(`with the ${name}${skip ? ' (skipped: no model; run npx hybridmind model fetch)' : ''}`, () => {
  const openMemory: typeof openWith = async (options = {}) => openWith({ embedder: await makeEmbedder(), ...options });

  describe('exact identifiers', () => {
    const cases: Array<[string, string, string[]]> = [
      ['ADR-007', 'ADR-007 chose SQLite-WASM as the source of truth', ['ADR-070 chose a message queue', 'ADR-0071 picked the logging format', 'ADR-07 is the draft of the API style guide', 'ADR-017 chose the test runner']],
      ['Order #4821', 'Order #4821 was refunded after the courier lost it', ['Order #4812 was refunded after a delay', 'Order #48210 was refunded in full', 'Order #1482 was refunded by the courier', 'Order #4828 was lost by the courier']],
      ['Section 482', 'Section 482 governs inherent powers of the court', ['Section 48 governs court fees', 'Section 4820 governs inherent court powers elsewhere', 'Section 428 governs set-off of detention', 'Section 284 governs the powers of the court']],
      ['LFM2.5-2.6B-Q4_K_M', 'We run LFM2.5-2.6B-Q4_K_M on the laptop', ['We run LFM2.5-1.2B-Q4_K_M on the phone', 'We run LFM2-2.6B-Q8_0 on the laptop', 'LFM2.5-2.6B-Q5_K_M was too slow on the laptop']],
      ['3f2b8c1e-9d4a-4e2b-8c7f-1a2b3c4d5e6f', 'Session 3f2b8c1e-9d4a-4e2b-8c7f-1a2b3c4d5e6f crashed on login', ['Session 3f2b8c1e-9d4a-4e2b-8c7f-1a2b3c4d5e60 crashed on login', 'Session 3f2b8c1f-9d4a-4e2b-8c7f-1a2b3c4d5e6f logged in fine']],
    ];
    for (const [query, target, distractors] of cases) {
      it(`ranks the memory naming ${query} first in lexical and hybrid recall`, async () => {
        mem = await openMemory();
        await mem.storeMany([{ id: 'target', text: target }, ...distractors.map((text, i) => ({ id: `d${i}`, text }))]);
        await mem.ready();
        expect(ids(await mem.recall(query, { mode: 'lexical', k: 3 }))[0]).toBe('target');
        const hybrid = await mem.recall(query, { k: 3 });
        expect(hybrid[0]!.id).toBe('target');
        expect(hybrid[0]!.legs.lexical?.rank).toBe(1);
      });
    }
  });

  describe('the legs each mode runs and reports', () => {
    it('reports the legs its mode names: a graph recall without anchors seeds its walk with the vector and lexical legs, and reports the graph alone', async () => {
      mem = await openMemory();
      await mem.storeMany([{ id: 'adr', text: 'ADR-007 chose SQLite-WASM' }, { id: 'worker', text: 'the worker depends on the store' }, { id: 'lunch', text: 'a note about lunch' }]);
      await mem.relate('worker', 'adr', 'DEPENDS_ON');
      await mem.ready();
      const expected: Array<[Parameters<HybridMemory['recall']>[1], string[]]> = [
        [{ mode: 'hybrid' }, ['vector', 'lexical', 'graph', 'time']],
        [{ mode: 'vector' }, ['vector']],
        [{ mode: 'lexical' }, ['lexical']],
        [{ mode: 'graph' }, ['graph']],
        [{ mode: 'graph', anchors: ['adr'] }, ['graph']],
      ];
      for (const [options, legs] of expected) {
        const report = await mem.recallReport('ADR-007', { ...options, explain: true });
        expect(report.legsRun, JSON.stringify(options)).toEqual(legs);
        for (const hit of report.hits) expect(Object.keys(hit.legs).every((leg) => legs.includes(leg)), `${JSON.stringify(options)}: ${hit.id}`).toBe(true);
      }
      // Seeded by the lexical leg's best (the memory naming ADR-007), the walk reaches what depends on it.
      expect(ids(await mem.recall('ADR-007', { mode: 'graph' }))).toContain('worker');
    });
  });

  describe('multi-hop chains', () => {
    async function chain(length: 2 | 3) {
      mem = await openMemory();
      const texts = [
        'The checkout service needs a faster payment path',
        'Stripe webhook handler reliability',
        'Kafka cluster partitions rebalancing',
        'Zookeeper quorum disk latency',
      ].slice(0, length + 1);
      await mem.storeMany(texts.map((text, i) => ({ id: `n${i}`, text })));
      for (let i = 0; i < length; i++) await mem.relate(`n${i}`, `n${i + 1}`, 'DEPENDS_ON');
      // Distractors that share words with the question, so the vector and lexical legs have plenty to rank above the answer.
      await mem.storeMany(Array.from({ length: 20 }, (_, i) => ({ id: `x${i}`, text: `Checkout page layout idea ${i}: a faster service banner` })));
      await mem.ready();
      return `n${length}`;
    }

    for (const length of [2, 3] as const) {
      it(`finds the end of a ${length}-hop DEPENDS_ON chain through graph and hybrid, not vector alone`, async () => {
        const answer = await chain(length);
        const query = 'what does the checkout service payment path depend on?';
        const vector = ids(await mem.recall(query, { mode: 'vector', k: 10 }));
        expect(vector).not.toContain(answer);
        const graph = await mem.recall(query, { mode: 'graph', depth: length, k: 10 });
        expect(ids(graph)).toContain(answer);
        const hybrid = await mem.recall(query, { depth: length, k: 10 });
        const hit = hybrid.find((h) => h.id === answer);
        expect(hit).toBeDefined();
        expect(hit!.legs.graph?.distance).toBe(length);
        expect(hit!.legs.graph?.via[0]).toBe('n0');
        // The exact scan ranks every memory; the answer is just far outside the vector top 10.
        expect(hit!.legs.vector?.rank ?? Infinity).toBeGreaterThan(10);
      });
    }

    it('follows only the edge types asked for', async () => {
      const answer = await chain(2);
      await mem.relate('n0', 'x3', 'RELATES_TO');
      const hits = ids(await mem.recall('checkout service payment path', { mode: 'graph', edgeTypes: ['RELATES_TO'], anchors: ['n0'] }));
      expect(hits).toEqual(['x3']);
      expect(hits).not.toContain(answer);
    });
  });

  describe('time and supersession', () => {
    const moved = NOW - 7 * DAY;
    async function delhi() {
      mem = await openMemory();
      await mem.store({ id: 'delhi', text: 'The user lives in Delhi', createdAt: NOW - 400 * DAY });
      await mem.store({ id: 'move', text: 'I moved from Delhi to Bengaluru last week', createdAt: moved });
      await mem.relate('move', 'delhi', 'SUPERSEDES');
      await mem.ready();
    }

    it('ranks the move first and marks the old home historical', async () => {
      await delhi();
      const hits = await mem.recall('where does the user live?', { k: 2 });
      expect(ids(hits)).toEqual(['move', 'delhi']);
      expect(hits.map((h) => h.status)).toEqual(['current', 'historical']);
      expect(hits[1]!.validTo).toBe(moved);
      expect((await mem.get('delhi'))!.status).toBe('historical');
    });

    it('answers as of a time before the move with Delhi, current then', async () => {
      await delhi();
      const hits = await mem.recall('where does the user live?', { asOf: NOW - 30 * DAY });
      expect(ids(hits)).toEqual(['delhi']);
      expect(hits[0]!.status).toBe('current');
    });

    it('drops historical memories when asked', async () => {
      await delhi();
      expect(ids(await mem.recall('Delhi', { includeHistorical: false }))).toEqual(['move']);
    });

    it('reopens the old fact when the supersession is removed', async () => {
      await delhi();
      const [edge] = await mem.edges('move', { direction: 'out' });
      await mem.unrelate(edge!.id);
      const delhiNow = await mem.get('delhi');
      expect(delhiNow!.validTo).toBeNull();
      expect(delhiNow!.status).toBe('current');
    });

    it('prefers the current memory when relevance ties', async () => {
      mem = await openMemory({ embedder: null });
      await mem.store({ id: 'old', text: 'deploy target is staging', createdAt: NOW - 10 * DAY, validTo: NOW - DAY });
      await mem.store({ id: 'new', text: 'deploy target is staging', createdAt: NOW - 10 * DAY });
      expect(ids(await mem.recall('deploy target', { mode: 'lexical' }))).toHaveLength(2);
      expect(ids(await mem.recall('deploy target'))).toEqual(['new', 'old']);
    });

    it('weighs recency with exp(-age/halfLife) in the time leg', async () => {
      mem = await openMemory({ embedder: null });
      await mem.store({ id: 'a', text: 'standup notes', createdAt: NOW - 180 * DAY });
      await mem.store({ id: 'b', text: 'standup notes', createdAt: NOW - 10 * DAY });
      const hits = await mem.recall('standup notes', { halfLifeDays: 180 });
      expect(ids(hits)).toEqual(['b', 'a']);
      expect(hits[1]!.legs.time!.weight).toBeCloseTo(Math.exp(-1), 6);
      expect(hits[0]!.legs.time!.rank).toBe(1);
    });
  });

  describe('filters and fusion options', () => {
    it('filters by kind, domain and metadata in every leg', async () => {
      mem = await openMemory();
      await mem.store({ id: 'a', text: 'billing retries use exponential backoff', kind: 'decision', domain: 'billing', metadata: { team: 'core' } });
      await mem.store({ id: 'b', text: 'billing retries are capped at five', kind: 'note', domain: 'billing', metadata: { team: 'edge' } });
      await mem.ready();
      expect(ids(await mem.recall('billing retries', { filter: { kind: 'decision' } }))).toEqual(['a']);
      expect(ids(await mem.recall('billing retries', { filter: { metadata: { team: 'edge' } } }))).toEqual(['b']);
      expect(ids(await mem.recall('billing retries', { filter: { domain: ['billing'], kind: ['note', 'decision'] } })).sort()).toEqual(['a', 'b']);
    });

    it('hands each hit its own metadata: changing it changes neither the store nor what its filters see', async () => {
      mem = await openMemory();
      await mem.store({ id: 'a', text: 'billing retries use exponential backoff', metadata: { team: 'core', owners: ['ana'] } });
      await mem.store({ id: 'b', text: 'billing webhooks are signed' });
      for (const hit of await mem.recall('billing', { k: 2 })) {
        hit.metadata['team'] = 'changed';
        (hit.metadata['owners'] as string[] | undefined)?.push('eve');
      }
      expect(ids(await mem.recall('billing', { filter: { metadata: { team: 'changed' } } }))).toEqual([]);
      expect(ids(await mem.recall('billing', { filter: { metadata: { team: 'core' } } }))).toEqual(['a']);
      const again = await mem.recall('billing', { k: 2 });
      expect(again.map((h) => h.metadata)).toEqual(expect.arrayContaining([{ team: 'core', owners: ['ana'] }, {}]));
      expect((await mem.get('a'))!.metadata).toEqual({ team: 'core', owners: ['ana'] });
      // Memories without metadata share one object in the catalog; what `get` returns is the caller's.
      await mem.store({ id: 'c', text: 'billing exports run nightly' });
      const b = (await mem.get('b'))!;
      b.metadata['team'] = 'changed';
      expect((await mem.get('c'))!.metadata).toEqual({});
      expect((await mem.get('b'))!.metadata).toEqual({});
      expect(ids(await mem.recall('billing', { filter: { metadata: { team: 'changed' } } }))).toEqual([]);
    });

    it('computes weighted RRF scores from the explained ranks', async () => {
      mem = await openMemory();
      await mem.storeMany([{ text: 'alpha beta gamma' }, { text: 'alpha delta' }, { text: 'epsilon alpha beta' }]);
      await mem.ready();
      const weights = { vector: 0.5, lexical: 2, graph: 1, time: 0.25 };
      for (const hit of await mem.recall('alpha beta', { weights, rrfK: 10, fusion: 'rrf', entityGraph: false })) {
        const expected = (Object.entries(hit.legs) as Array<[keyof typeof weights, { rank: number }]>)
          .reduce((sum, [leg, e]) => sum + weights[leg] / (10 + e.rank), 0);
        expect(hit.score).toBeCloseTo(expected, 12);
      }
    });

    it('ranks by time in RRF whether or not the hits are explained', async () => {
      mem = await openMemory({ now: () => NOW });
      // The better a memory matches, the older it is: the time leg's order is the legs' reversed.
      const texts = ['alpha beta gamma delta', 'alpha beta gamma', 'alpha beta', 'alpha', 'alpha epsilon zeta', 'beta eta'];
      await mem.storeMany(texts.map((text, i) => ({ id: `m${i}`, text, createdAt: new Date(NOW - (texts.length - i) * 9 * DAY).toISOString() })));
      await mem.ready();
      const options = { fusion: 'rrf' as const, weights: { vector: 1, lexical: 1, graph: 1, time: 2 }, k: 6 };
      const plain = (await mem.recall('alpha beta gamma delta', { ...options, explain: false })).map((h) => [h.id, h.score]);
      const explained = await mem.recall('alpha beta gamma delta', { ...options, explain: true });
      expect(plain).toEqual(explained.map((h) => [h.id, h.score]));
      expect(explained.map((h) => h.legs.time?.rank).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('supports linear fusion α·V + β·G', async () => {
      mem = await openMemory();
      await mem.storeMany([{ id: 'a', text: 'solar panel inverter' }, { id: 'b', text: 'battery chemistry' }]);
      await mem.relate('a', 'b', 'DEPENDS_ON');
      await mem.ready();
      const hits = await mem.recall('solar panel inverter', { fusion: 'linear', alpha: 0.6, beta: 0.4 });
      expect(ids(hits)[0]).toBe('a');
      for (const hit of hits) {
        const proximity = hit.legs.graph ? 1 / (1 + hit.legs.graph.distance) : 0;
        expect(hit.score).toBeCloseTo(0.6 * (hit.legs.vector?.score ?? 0) + 0.4 * proximity, 5);
      }
      expect(hits.find((h) => h.id === 'b')!.legs.graph).toMatchObject({ distance: 1, via: ['a'] });
    });

    it('compares the legs side by side', async () => {
      mem = await openMemory();
      await mem.storeMany([{ id: 'a', text: 'vector search with HNSW' }, { id: 'b', text: 'graph of decisions' }]);
      await mem.relate('a', 'b', 'RELATES_TO');
      await mem.ready();
      const c = await mem.compare('HNSW vector search');
      expect(ids(c.lexical)[0]).toBe('a');
      expect(ids(c.vector)[0]).toBe('a');
      expect(ids(c.graph)).toContain('b');
      expect(ids(c.hybrid)).toContain('b');
    });
  });

  describe('trace and path', () => {
    it('returns the neighbourhood and the shortest typed path', async () => {
      mem = await openMemory({ embedder: null });
      await mem.storeMany(['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, text: `memory ${id}` })));
      await mem.relate('a', 'b', 'DEPENDS_ON');
      await mem.relate('b', 'c', 'DEPENDS_ON');
      await mem.relate('c', 'd', 'REFERENCES');
      const t = await mem.trace('a', { depth: 2 });
      expect(t.nodes.map((n) => [n.id, n.distance])).toEqual([['a', 0], ['b', 1], ['c', 2]]);
      expect(t.edges).toHaveLength(2);
      expect(await mem.path('a', 'd')).toEqual(['a', 'b', 'c', 'd']);
      expect(await mem.path('a', 'd', { edgeTypes: ['DEPENDS_ON'] })).toBeNull();
      expect(await mem.path('d', 'a', { direction: 'out' })).toBeNull();
      expect((await mem.trace('a', { direction: 'in' })).nodes).toHaveLength(1);
      // A memory no edge touches is still a node of the graph: its own neighbourhood and path.
      expect((await mem.trace('e', { depth: 3 })).nodes.map((n) => [n.id, n.distance])).toEqual([['e', 0]]);
      expect(await mem.path('e', 'e')).toEqual(['e']);
      expect(await mem.path('a', 'e')).toBeNull();
      // Once a memory on the way is forgotten, the path through it is gone.
      await mem.forget('b');
      expect(await mem.path('a', 'd')).toBeNull();
      expect(await mem.path('c', 'd')).toEqual(['c', 'd']);
    });
  });
});
