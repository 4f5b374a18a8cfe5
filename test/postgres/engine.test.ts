import pgDriver from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HybridMemory, RecallOptions } from '../../src/index.js';
import { PostgresMemory } from '../../src/postgres/index.js';
import { codeOf } from '../support/errors.js';
import { HashEmbedder } from '../support/hash-embedder.js';
import { DAY, NOW, openMemory } from '../support/memory.js';
import { comparable, fill, openPg, useCluster } from './fixture.js';

const cluster = useCluster();
let pg: PostgresMemory;
let mem: HybridMemory;

beforeAll(async () => {
  pg = await openPg(cluster());
  mem = await openMemory();
  await fill(pg);
  await fill(mem);
  await mem.ready();
});
afterAll(async () => {
  await pg?.close();
  await mem?.close();
});

const QUERIES = [
  'where does agent memory live?',
  'ADR-007',
  'Order #4821',
  'why is search slow at night?',
  'what does the checkout service payment path depend on?',
  'what does the checkout service ultimately depend on?',
  'what depends on the Stripe webhook handler?',
  'how much is the team plan?',
  'rate limit public API',
  'What did Caroline learn at the support group in Boston?',
  'When do the Sacramento Kings play?',
];

const OPTIONS: Array<[string, RecallOptions]> = [
  ['defaults', {}],
  ['without the entity graph', { entityGraph: false }],
  ['rank fusion', { fusion: 'rrf' }],
  ['rank fusion without the entity graph', { fusion: 'rrf', entityGraph: false, weights: { graph: 1.5 } }],
  ['graph alone from the query', { mode: 'graph' }],
  ['entity walk from anchors', { mode: 'graph', anchors: ['c1', 'search'] }],
  ['vector', { mode: 'vector' }],
  ['lexical', { mode: 'lexical' }],
  ['graph', { mode: 'graph', depth: 3 }],
  ['graph from anchors', { mode: 'graph', anchors: ['checkout'], depth: 3, edgeTypes: ['DEPENDS_ON'] }],
  ['k and weights', { k: 5, weights: { vector: 0.5, graph: 2 }, rrfK: 30 }],
  ['linear fusion', { fusion: 'linear', alpha: 0.6, beta: 0.4 }],
  ['as of a date', { asOf: '2025-11-02T12:00:00Z' }],
  ['current only', { includeHistorical: false, halfLifeDays: 30, historicalWeight: 0.5 }],
  // Memories ~940 days old weigh exp(-940) at a one-day half-life: 0 in JavaScript, an underflow error in PostgreSQL's exp().
  ['a one-day half-life', { halfLifeDays: 1 }],
  ['filter', { filter: { kind: ['fact', 'decision'], domain: 'storage' } }],
  ['metadata filter', { filter: { metadata: { team: 'core' } } }],
  ['without a domain', { filter: { domain: null } }],
  ['a kind or none, a domain or none', { filter: { kind: ['ticket', null], domain: [null, 'storage'] } }],
  ['an empty list of kinds', { filter: { kind: [] } }],
  ['rerank', { rerank: true }],
  ['no explanations', { explain: false, depth: 1 }],
];

describe('PostgresMemory answers as HybridMemory does', () => {
  for (const [name, options] of OPTIONS) {
    it(`recall: ${name}`, async () => {
      for (const query of QUERIES) {
        const expected = comparable(await mem.recall(query, options));
        expect(comparable(await pg.recall(query, options)), query).toEqual(expected);
      }
    });
  }

  it('answers a relation question from its own walk: the far end of the dependency chain first', async () => {
    const [first] = await pg.recall('what does the checkout service ultimately depend on?');
    expect(first).toMatchObject({ id: 'zk', legs: { graph: { relation: 'DEPENDS_ON', via: ['checkout', 'stripe', 'kafka'] } } });
  });

  it('gives the same vote to what the named person said', async () => {
    const hits = await pg.recall('What did Caroline learn at the support group in Boston?');
    expect(hits.filter((h) => h.legs.speaker === 'Caroline').map((h) => h.id).sort()).toEqual(expect.arrayContaining(['c1', 'c3']));
    expect(hits.filter((h) => h.legs.speaker !== undefined).every((h) => h.text.startsWith('Caroline: '))).toBe(true);
  });

  it('compare returns each leg and the fusion as the embedded store does', async () => {
    const a = await mem.compare('why is search slow at night?');
    const b = await pg.compare('why is search slow at night?');
    for (const leg of ['vector', 'lexical', 'graph', 'hybrid'] as const) expect(comparable(b[leg])).toEqual(comparable(a[leg]));
  });

  it('trace, path and edges match', async () => {
    const strip = (t: Awaited<ReturnType<HybridMemory['trace']>>) => ({ nodes: t.nodes, edges: t.edges.map(({ id: _id, ...e }) => e) });
    for (const start of ['hnsw', 'stripe', 'adr-007']) {
      for (const options of [{}, { depth: 1 }, { direction: 'out' as const, depth: 3 }, { edgeTypes: ['SUPERSEDES'] }]) {
        expect(strip(await pg.trace(start, options))).toEqual(strip(await mem.trace(start, options)));
      }
    }
    expect(strip(await pg.trace('agent memory storage'))).toEqual(strip(await mem.trace('agent memory storage')));
    expect(await pg.path('checkout', 'zk')).toEqual(await mem.path('checkout', 'zk'));
    expect(await pg.path('zk', 'checkout', { direction: 'out' })).toBeNull();
    expect(await pg.path('zk', 'checkout', { direction: 'in' })).toEqual(await mem.path('zk', 'checkout', { direction: 'in' }));
    expect(await pg.path('checkout', 'onboard')).toBeNull();
    const edges = async (m: Pick<HybridMemory, 'edges'>, id: string, direction: 'in' | 'out' | 'both') => (await m.edges(id, { direction })).map(({ id: _id, ...e }) => e);
    for (const direction of ['in', 'out', 'both'] as const) expect(await edges(pg, 'stripe', direction)).toEqual(await edges(mem, 'stripe', direction));
  });

  it('list pages through the same memories', async () => {
    const lists = [{}, { limit: 7, offset: 3 }, { kind: 'fact' }, { domain: 'infra', limit: 2 }, { idPrefix: 'adr-0' }, { idPrefix: 'x1', kind: 'idea' },
      { domain: null }, { domain: null, kind: 'process', limit: 1, offset: 1 }, { kind: null }, { kind: null, domain: null, idPrefix: 'c' }];
    for (const options of lists) {
      expect(await pg.list(options)).toEqual(await mem.list(options));
    }
    expect(await codeOf(pg.list({ limit: 0 }))).toBe('INVALID_ARGUMENT');
  });

  it('get, stats, context and citations match', async () => {
    expect(await pg.get('price-old')).toEqual(await mem.get('price-old'));
    expect(await pg.get('nope')).toBeNull();
    const [a, b] = [await mem.stats(), await pg.stats()];
    for (const key of ['memories', 'edges', 'current', 'historical', 'readiness', 'dim', 'embedderId', 'edgeTypes'] as const) expect(b[key]).toEqual(a[key]);
    const ctx = await pg.context('where does agent memory live?', { budgetTokens: 200 });
    // Fused scores carry the legs' float32-against-float64 differences (see comparable()).
    const rounded = (c: typeof ctx) => ({ ...c, items: c.items.map((m) => ({ ...m, score: Math.round(m.score * 1e4) / 1e4 })) });
    expect(rounded(ctx)).toEqual(rounded(await mem.context('where does agent memory live?', { budgetTokens: 200 })));
    expect(await pg.checkCitations('It lives in OPFS [M1] and [M9].', ctx)).toEqual(await mem.checkCitations('It lives in OPFS [M1] and [M9].', ctx));
  });
});

/** Runs `run` on a fresh Postgres store and a fresh embedded one, and closes both however it ends. */
async function sideBySide(run: (p: PostgresMemory, m: HybridMemory) => Promise<void>): Promise<void> {
  const p = await openPg(cluster());
  const m = await openMemory();
  try {
    await run(p, m);
  } finally {
    await p.close();
    await m.close();
  }
}

describe('PostgresMemory writes', () => {
  it('update re-indexes every leg, forget removes a memory and reopens what it superseded', async () => {
    await sideBySide(async (p, m) => {
      for (const s of [p, m]) {
        await fill(s);
        await s.update('backfill', { text: 'Backfill moved to 04:00 on the archive cluster', metadata: { team: 'data' } });
        await s.forget('adr-007');
        // The turn moves to another place in the conversation and names other people: its entity links follow.
        await s.update('c2', { text: 'Melanie: Did Caroline meet anyone from Sacramento there?', metadata: { sessionId: 'trip', turn: 6 } });
        await s.forget('c4');
        await s.relate('limit', 'onboard', 'RELATES_TO', { weight: 2 });
      }
      await m.ready();
      expect(await p.get('adr-003')).toEqual(await m.get('adr-003'));
      expect(await p.get('backfill')).toEqual(await m.get('backfill'));
      for (const query of ['archive cluster 04:00', 'where does agent memory live?', 'rate limit onboarding', 'Did Caroline go to Sacramento?', 'Kings game in Boston']) {
        expect(comparable(await p.recall(query))).toEqual(comparable(await m.recall(query)));
      }
      const edge = (await p.edges('limit', { direction: 'out' }))[0]!;
      await p.unrelate(edge.id);
      expect(await p.edges('limit')).toEqual([]);
      await p.unrelate((await p.edges('price-new', { direction: 'out' }))[0]!.id);
      expect((await p.get('price-old'))!.validTo).toBeNull();
      expect((await p.stats()).memories).toBe((await m.stats()).memories);
    });
  });

  it("update's patch: an undefined field is left as it is and null clears it, as in the embedded store", async () => {
    await sideBySide(async (p, m) => {
      for (const s of [p, m]) {
        await s.store({ id: 'a', text: 'the build uses webpack', kind: 'decision', domain: 'build', metadata: { team: 'web' }, validFrom: NOW - 10 * DAY, validTo: NOW - DAY });
        await s.update('a', { text: 'the build uses vite', kind: undefined, domain: undefined, metadata: undefined, validTo: undefined });
        expect(await s.get('a')).toMatchObject({ text: 'the build uses vite', kind: 'decision', domain: 'build', metadata: { team: 'web' }, validTo: NOW - DAY });
        expect(await codeOf(s.update('a', { kind: undefined }))).toBe('INVALID_ARGUMENT');
        await s.update('a', { kind: null, domain: null, metadata: null, validTo: null });
        expect(await s.get('a')).toMatchObject({ kind: null, domain: null, metadata: {}, validTo: null, status: 'current' });
      }
      await m.ready();
      expect(await p.get('a')).toEqual(await m.get('a'));
    });
  });

  it('null lists and filters the memories without a kind or domain, as in the embedded store', async () => {
    await sideBySide(async (p, m) => {
      for (const s of [p, m]) {
        await s.storeMany([
          { id: 'a', text: 'storage decision', kind: 'decision', domain: 'storage' },
          { id: 'b', text: 'storage note without a kind' },
          { id: 'c', text: 'storage note in pricing', domain: 'pricing' },
        ]);
        await s.update('a', { domain: null });
      }
      await m.ready();
      for (const options of [{ kind: null }, { domain: null }, { kind: null, domain: null }, { kind: 'decision', domain: null }]) {
        expect((await p.list(options)).records.map((r) => r.id), JSON.stringify(options)).toEqual((await m.list(options)).records.map((r) => r.id));
      }
      expect((await p.list({ domain: null })).records.map((r) => r.id)).toEqual(['a', 'b']);
      for (const filter of [{ kind: null }, { kind: [null, 'decision'] }, { domain: null }, { domain: ['pricing', null], kind: null }]) {
        expect(comparable(await p.recall('storage', { filter })), JSON.stringify(filter)).toEqual(comparable(await m.recall('storage', { filter })));
      }
      expect((await p.recall('storage', { filter: { kind: null } })).map((h) => h.id).sort()).toEqual(['b', 'c']);
    });
  });

  it('a failing batch writes nothing: duplicate ids, bad input, an embedder that throws', async () => {
    const p = await openPg(cluster());
    try {
      await p.store({ id: 'a', text: 'first' });
      expect(await codeOf(p.storeMany([{ id: 'b', text: 'second' }, { id: 'a', text: 'again' }]))).toBe('CONFLICT');
      expect(await codeOf(p.storeMany([{ id: 'c', text: 'third' }, { id: 'c', text: 'twice' }]))).toBe('CONFLICT');
      expect(await codeOf(p.storeMany([{ id: 'd', text: 'ok' }, { text: 42 } as never]))).toBe('INVALID_ARGUMENT');
      expect(await p.get('b')).toBeNull();
      expect(await p.get('d')).toBeNull();
      expect((await p.stats()).memories).toBe(1);
    } finally {
      await p.close();
    }
    const failing = await openPg(cluster(), { embedder: { id: 'failing', dim: 8, embed: async () => { throw new Error('model crashed'); } } });
    try {
      expect(await codeOf(failing.store({ text: 'never stored' }))).toBe('EMBEDDER');
      expect((await failing.stats()).memories).toBe(0);
    } finally {
      await failing.close();
    }
  });
});

describe('PostgresMemory errors are the core\'s coded errors', () => {
  it('bad arguments, unknown ids, conflicts, a closed store', async () => {
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['INVALID_ARGUMENT', () => pg.recall('')],
      ['INVALID_ARGUMENT', () => pg.recall('x', { k: 0 })],
      ['INVALID_ARGUMENT', () => pg.recall('x', { mode: 'fuzzy' as never })],
      ['INVALID_ARGUMENT', () => pg.recall('x', { bogus: 1 } as never)],
      ['INVALID_ARGUMENT', () => pg.store({ text: 'x', createdAt: 'yesterday-ish' })],
      ['INVALID_ARGUMENT', () => pg.relate('search', 'search', 'DEPENDS_ON')],
      ['INVALID_ARGUMENT', () => pg.update('search', {})],
      ['NOT_FOUND', () => pg.recall('x', { anchors: ['missing'] })],
      ['NOT_FOUND', () => pg.relate('search', 'missing', 'DEPENDS_ON')],
      ['NOT_FOUND', () => pg.update('missing', { text: 'x' })],
      ['NOT_FOUND', () => pg.forget('missing')],
      ['NOT_FOUND', () => pg.unrelate('missing')],
      ['NOT_FOUND', () => pg.edges('missing')],
      ['NOT_FOUND', () => pg.path('search', 'missing')],
      ['CONFLICT', () => pg.store({ id: 'search', text: 'again' })],
      ['CONFLICT', () => pg.relate('search', 'hnsw', 'DEPENDS_ON')],
      ['DIMENSION_MISMATCH', () => pg.store({ text: 'x', embedding: new Float32Array(3).fill(1) })],
      ['DIMENSION_MISMATCH', () => pg.recall('x', { queryEmbedding: new Float32Array(3).fill(1) })],
    ];
    for (const [code, call] of cases) expect(await codeOf(call()), call.toString()).toBe(code);
    const closed = await openPg(cluster());
    await closed.close();
    expect(await codeOf(closed.recall('x'))).toBe('CLOSED');
    expect(await codeOf(pg.recall('x', { entityGraph: 'yes' as never }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(PostgresMemory.open({ connection: cluster().connection, schema: 'Bad-Name' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(PostgresMemory.open({ connection: { ...cluster().connection, port: 1 }, schema: 'nowhere', embedder: null }))).toBe('STORAGE');
  });

  it('refuses another model or dimension on an existing schema', async () => {
    const schema = cluster().schema('model');
    const first = await PostgresMemory.open({ connection: cluster().connection, schema, embedder: new HashEmbedder(32), now: () => NOW });
    await first.store({ text: 'one' });
    await first.close();
    expect(await codeOf(PostgresMemory.open({ connection: cluster().connection, schema, embedder: new HashEmbedder(16) }))).toBe('DIMENSION_MISMATCH');
    const other = { id: 'other-model', dim: 32, embed: async (t: string[]) => t.map(() => new Float32Array(32).fill(1)) };
    expect(await codeOf(PostgresMemory.open({ connection: cluster().connection, schema, embedder: other }))).toBe('MODEL_MISMATCH');
  });

  it('a schema from before the entity graph gets its entities indexed when opened, and answers as before', async () => {
    const schema = cluster().schema('v1');
    const first = await openPg(cluster(), { schema });
    await fill(first);
    const before = await Promise.all(QUERIES.map(async (q) => comparable(await first.recall(q))));
    await first.close();
    // Back to version 1 as it was released: no entity tables.
    const client = new pgDriver.Client(cluster().connection);
    await client.connect();
    let reopened: PostgresMemory | undefined;
    try {
      await client.query(`DROP TABLE "${schema}".mentions, "${schema}".entities; UPDATE "${schema}".meta SET value = '1' WHERE key = 'schema_version'`);
      reopened = await openPg(cluster(), { schema });
      expect((await client.query(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`)).rows[0].value).toBe('2');
      expect(Number((await client.query(`SELECT count(*) AS n FROM "${schema}".mentions`)).rows[0].n)).toBeGreaterThan(0);
      for (const [i, q] of QUERIES.entries()) expect(comparable(await reopened.recall(q)), q).toEqual(before[i]);
    } finally {
      await reopened?.close();
      await client.end();
    }
  });

  it('as-of recall sees only what was recorded by then', async () => {
    const hits = await pg.recall('agent memory', { asOf: NOW - 400 * DAY });
    expect(hits.map((h) => h.id)).not.toContain('adr-007');
  });
});
