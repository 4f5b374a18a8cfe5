import { afterEach, describe, expect, it } from 'vitest';
import { HybridMemory, SqliteWasmDriver, type SqlDriver } from '../../src/index.js';
import { HashEmbedder, hashVector } from '../support/hash-embedder.js';
import { DAY, NOW, ids, openMemory, recorder } from '../support/memory.js';
import { codeOf } from '../support/errors.js';
import { until } from '../support/until.js';

let mem: HybridMemory;
afterEach(async () => mem?.close());


describe('forget and update reach every leg', () => {
  it('forget removes the memory from vector, lexical, graph and time', async () => {
    mem = await openMemory();
    await mem.storeMany([
      { id: 'a', text: 'quokka sightings on Rottnest island' },
      { id: 'b', text: 'ferry timetable to the island' },
    ]);
    await mem.relate('b', 'a', 'REFERENCES');
    await mem.ready();
    expect(ids(await mem.recall('quokka', { mode: 'lexical' }))).toEqual(['a']);
    await mem.forget('a');
    expect(await mem.get('a')).toBeNull();
    expect(await mem.recall('quokka', { mode: 'lexical' })).toEqual([]);
    expect(ids(await mem.recall('quokka sightings on Rottnest island', { mode: 'vector' }))).toEqual(['b']);
    expect(await mem.recall('ferry timetable', { mode: 'graph' })).toEqual([]);
    expect(await mem.edges('b')).toEqual([]);
    const stats = await mem.stats();
    expect(stats).toMatchObject({ memories: 1, edges: 0, readiness: { semantic: 1, lexical: 0, stored: 0 } });
  });

  it('update re-indexes text, re-embeds, and changes filters and validity', async () => {
    const embedder = new HashEmbedder();
    mem = await openMemory({ embedder });
    await mem.store({ id: 'a', text: 'the build uses webpack', kind: 'note' });
    await mem.ready();
    const updated = await mem.update('a', { text: 'the build uses vite', kind: 'decision', metadata: { v: 2 } });
    expect(updated).toMatchObject({ text: 'the build uses vite', kind: 'decision', metadata: { v: 2 } });
    expect(await mem.recall('webpack', { mode: 'lexical' })).toEqual([]);
    expect(ids(await mem.recall('vite', { mode: 'lexical', filter: { kind: 'decision' } }))).toEqual(['a']);
    await mem.ready();
    const [hit] = await mem.recall('the build uses vite', { mode: 'vector' });
    expect(hit!.legs.vector!.score).toBeCloseTo(1, 5);
    await mem.update('a', { validTo: NOW - DAY, validFrom: NOW - 10 * DAY });
    expect((await mem.get('a'))!.status).toBe('historical');
  });

  it('keeps a given embedding on update instead of re-embedding', async () => {
    mem = await openMemory({ embedder: null, dim: 4 });
    await mem.store({ id: 'a', text: 'x', embedding: new Float32Array([1, 0, 0, 0]) });
    await mem.update('a', { text: 'y', embedding: new Float32Array([0, 2, 0, 0]) });
    const [hit] = await mem.recall('q', { mode: 'vector', queryEmbedding: new Float32Array([0, 1, 0, 0]) });
    expect(hit!.legs.vector!.score).toBeCloseTo(1, 6);
  });
});

describe('dimensions', () => {
  it('rejects vectors of another dimension, NaN and zero vectors', async () => {
    mem = await openMemory({ embedder: null, dim: 3 });
    expect(await codeOf(mem.store({ text: 'a', embedding: new Float32Array(4) }))).toBe('DIMENSION_MISMATCH');
    expect(await codeOf(mem.store({ text: 'a', embedding: new Float32Array([1, Number.NaN, 0]) }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(mem.store({ text: 'a', embedding: new Float32Array([0, 0, 0]) }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(mem.recall('a', { queryEmbedding: new Float32Array(2) }))).toBe('DIMENSION_MISMATCH');
    expect((await mem.stats()).memories).toBe(0);
  });

  it('names the first component that is not a finite number', async () => {
    mem = await openMemory({ embedder: null, dim: 3 });
    const error = await mem.store({ text: 'a', embedding: new Float32Array([1, 0, Number.POSITIVE_INFINITY]) }).catch((e: unknown) => e as Error);
    expect((error as Error).message).toMatch(/input\.embedding must contain only finite numbers; index 2 is.*Infinity/);
  });

  it('keeps every vector of a batch larger than the blocks its vectors share', async () => {
    mem = await openMemory({ embedder: null, dim: 384 });
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) - 0.5;
    const vectors = Array.from({ length: 400 }, () => Float32Array.from({ length: 384 }, random));
    await mem.storeMany(vectors.map((embedding, i) => ({ id: `v${i}`, text: `vector ${i}`, embedding })));
    const answersEach = async () => {
      for (let i = 0; i < vectors.length; i++) {
        const [hit] = await mem.recall('nearest', { mode: 'vector', k: 1, queryEmbedding: vectors[i] });
        expect(hit!.id).toBe(`v${i}`);
        expect(hit!.legs.vector!.score).toBeCloseTo(1, 5);
      }
    };
    await answersEach();
    // What SQLite got (each view's own bytes, not its block's) is what a reopened store scans.
    const bytes = await mem.exportDatabase();
    await mem.close();
    mem = await HybridMemory.open({ storage: { bytes }, embedder: null });
    await answersEach();
  });

  it('fixes the dimension from the first vector and persists it', async () => {
    mem = await openMemory({ embedder: null });
    await mem.store({ text: 'a', embedding: new Float32Array([1, 2]) });
    expect(await codeOf(mem.store({ text: 'b', embedding: new Float32Array([1, 2, 3]) }))).toBe('DIMENSION_MISMATCH');
    const bytes = await mem.exportDatabase();
    await mem.close();
    expect(await codeOf(HybridMemory.open({ storage: { bytes }, embedder: new HashEmbedder(384) }))).toBe('DIMENSION_MISMATCH');
    expect(await codeOf(HybridMemory.open({ storage: { bytes }, dim: 3 }))).toBe('DIMENSION_MISMATCH');
    expect(await codeOf(HybridMemory.open({ storage: { bytes } }))).toBe('DIMENSION_MISMATCH');
    mem = await HybridMemory.open({ storage: { bytes }, embedder: null });
    expect((await mem.stats()).dim).toBe(2);
  });

  it('creates a new store\'s schema in one commit: no statement changes it outside a transaction', async () => {
    const driver = await SqliteWasmDriver.open();
    const outside: string[] = [];
    let open = false;
    const exec = driver.exec.bind(driver);
    driver.exec = (sql, params) => {
      const statement = sql.trim();
      if (/^BEGIN/i.test(statement)) open = true;
      else if (/^(COMMIT|ROLLBACK)/i.test(statement)) open = false;
      else if (!open && /^(CREATE|ALTER|DROP)/i.test(statement)) outside.push(statement.split(/\s+/).slice(0, 6).join(' '));
      exec(sql, params);
    };
    mem = await HybridMemory.open({ storage: driver, embedder: new HashEmbedder(384) });
    expect(outside).toEqual([]);
    expect((await mem.stats()).memories).toBe(0);
  });

  it('records the dimension and model at the first open, and reopens without a write', async () => {
    const writes = async (driver: SqliteWasmDriver): Promise<string[]> => {
      const seen: string[] = [];
      const exec = driver.exec.bind(driver);
      driver.exec = (sql, params) => {
        if (/^\s*(BEGIN|INSERT|UPDATE|DELETE|REPLACE)/i.test(sql)) seen.push(sql.trim().split(/\s+/).slice(0, 3).join(' '));
        exec(sql, params);
      };
      mem = await HybridMemory.open({ storage: driver, embedder: new HashEmbedder(384) });
      return seen;
    };
    expect(await writes(await SqliteWasmDriver.open())).toContain('BEGIN IMMEDIATE');
    await mem.store({ text: 'a' });
    await mem.ready();
    const bytes = await mem.exportDatabase();
    await mem.close();
    expect(await writes(await SqliteWasmDriver.open({ bytes }))).toEqual([]);
    expect((await mem.stats()).dim).toBe(384);
  });

  it('refuses to open a store with an embedder of another model id', async () => {
    mem = await openMemory();
    await mem.store({ text: 'a' });
    await mem.ready();
    const bytes = await mem.exportDatabase();
    const other = { id: 'other-model', dim: 384, embed: async (t: string[]) => t.map(() => hashVector('x', 384)) };
    expect(await codeOf(HybridMemory.open({ storage: { bytes }, embedder: other }))).toBe('MODEL_MISMATCH');
  });
});

describe('re-embedding', () => {
  it('opens a store from another model only when asked to re-embed, then redoes every vector', async () => {
    mem = await openMemory({ embedder: new HashEmbedder(384) });
    await mem.storeMany([{ id: 'a', text: 'alpha' }, { id: 'b', text: 'beta' }]);
    await mem.ready();
    const bytes = await mem.exportDatabase();
    await mem.close();
    const other = new HashEmbedder(64);
    expect(await codeOf(HybridMemory.open({ storage: { bytes }, embedder: other }))).toBe('DIMENSION_MISMATCH');
    const progress: number[] = [];
    mem = await HybridMemory.open({ storage: { bytes }, embedder: other, reembed: true, enrichment: { onProgress: (p) => progress.push(p.done) } });
    await mem.ready();
    const stats = await mem.stats();
    expect(stats).toMatchObject({ dim: 64, embedderId: 'test-hash-64', readiness: { semantic: 2, lexical: 0 } });
    expect(progress.at(-1)).toBe(2);
    const [hit] = await mem.recall('alpha', { mode: 'vector' });
    expect(hit!.legs.vector!.score).toBeCloseTo(1, 5);
  });

  it('reembed() recomputes every vector with progress', async () => {
    const embedder = new HashEmbedder();
    mem = await openMemory({ embedder, enrichment: { batchSize: 2 } });
    await mem.storeMany(['one', 'two', 'three'].map((text) => ({ text })));
    await mem.ready();
    const calls = embedder.calls;
    const seen: Array<{ done: number; pending: number }> = [];
    await mem.reembed({ onProgress: (p) => seen.push({ done: p.done, pending: p.pending }) });
    expect(embedder.calls - calls).toBe(2);
    expect(seen.at(-1)!.pending).toBe(0);
    expect((await mem.stats()).readiness.semantic).toBe(3);
  });

  it('reembed() needs an embedder', async () => {
    mem = await openMemory({ embedder: null });
    expect(await codeOf(mem.reembed())).toBe('UNSUPPORTED');
  });
});

describe('neighbour averaging (option)', () => {
  it('indexes normalise(0.7·raw + 0.3·mean of the neighbours) and keeps the raw vector', async () => {
    mem = await openMemory({ embedder: null, dim: 3, neighbourAveraging: { weight: 0.3, k: 2 } });
    await mem.storeMany([
      { id: 'x', text: 'x', embedding: new Float32Array([1, 0, 0]) },
      { id: 'y', text: 'y', embedding: new Float32Array([0, 1, 0]) },
    ]);
    await mem.store({ id: 'z', text: 'z', embedding: new Float32Array([0, 0, 1]) });
    const [hit] = await mem.recall('q', { mode: 'vector', k: 1, queryEmbedding: new Float32Array([0, 0, 1]) });
    const expected = [0.15, 0.15, 0.7];
    const norm = Math.hypot(...expected);
    expect(hit!.id).toBe('z');
    expect(hit!.legs.vector!.score).toBeCloseTo(0.7 / norm, 5);
    const driver = await SqliteWasmDriver.open({ bytes: await mem.exportDatabase() });
    const row = driver.all<{ raw: Uint8Array }>("SELECT raw FROM vectors WHERE no = (SELECT no FROM memories WHERE id = 'z')")[0]!;
    expect(Array.from(new Float32Array(row.raw.slice().buffer))).toEqual([0, 0, 1]);
    driver.close();
  });

  it('is off by default and checks its options', async () => {
    mem = await openMemory({ embedder: null, dim: 2 });
    await mem.storeMany([{ text: 'a', embedding: new Float32Array([1, 0]) }, { text: 'b', embedding: new Float32Array([0, 1]) }]);
    const [hit] = await mem.recall('q', { mode: 'vector', k: 1, queryEmbedding: new Float32Array([0, 1]) });
    expect(hit!.legs.vector!.score).toBeCloseTo(1, 6);
    expect(await codeOf(openMemory({ neighbourAveraging: { weight: 2 } }))).toBe('INVALID_ARGUMENT');
  });
});

describe('persistence', () => {
  it('reopening the database rebuilds every index with the same answers', async () => {
    mem = await openMemory();
    await mem.storeMany([
      { id: 'a', text: 'ADR-007: SQLite-WASM is the source of truth', createdAt: NOW - 30 * DAY },
      { id: 'b', text: 'ADR-003: IndexedDB as the store', createdAt: NOW - 300 * DAY },
      { id: 'c', text: 'OPFS sync access handles' },
    ]);
    await mem.relate('a', 'b', 'SUPERSEDES');
    await mem.relate('a', 'c', 'DEPENDS_ON');
    await mem.ready();
    const before = await mem.recall('which store is the source of truth?');
    const { enrichment: _, ...stats } = await mem.stats();
    const bytes = await mem.exportDatabase();
    await mem.close();
    mem = await openMemory({ storage: { bytes } });
    expect(await mem.recall('which store is the source of truth?')).toEqual(before);
    expect(await mem.stats()).toMatchObject(stats);
  });

  it('counts a reopened store without taking the graph edges its background fill has not taken yet', async () => {
    mem = await openMemory({ embedder: null, dim: 4 });
    await mem.storeMany([
      { id: 'old', text: 'superseded plan', embedding: Float32Array.of(1, 0, 0, 0), validFrom: NOW - 10 * DAY, validTo: NOW - DAY },
      { id: 'now', text: 'current plan', embedding: Float32Array.of(0, 1, 0, 0) },
      { id: 'later', text: 'plan from next week', validFrom: NOW + 7 * DAY },
      { id: 'bare', text: 'no vector yet' },
    ]);
    await mem.relateMany([
      { from: 'now', to: 'old', type: 'SUPERSEDES' },
      { from: 'later', to: 'now', type: 'DEPENDS_ON' },
      { from: 'bare', to: 'now', type: 'DEPENDS_ON' },
    ]);
    const bytes = await mem.exportDatabase();
    await mem.close();
    const { logger, messages } = recorder();
    mem = await openMemory({ embedder: null, storage: { bytes }, logger });
    const stats = await mem.stats();
    expect(stats).toMatchObject({ memories: 4, edges: 3, edgeTypes: { DEPENDS_ON: 2, SUPERSEDES: 1 }, current: 2, historical: 2, readiness: { stored: 0, lexical: 2, semantic: 2 } });
    // The fill then finishes on its own: stats() left it its edges.
    const filled = () => messages.some((m) => m.startsWith('graph leg: took 3 edges'));
    await until(filled, 'the graph leg taking its 3 edges');
    expect(await mem.stats()).toEqual(stats);
  });

  it('counts edges by type as the store does once the graph holds them all, through relating, unrelating and forgetting', async () => {
    mem = await openMemory({ embedder: null, dim: 4 });
    await mem.storeMany(['a', 'b', 'c', 'd'].map((id) => ({ id, text: `memory ${id}` })));
    await mem.relateMany([
      { from: 'a', to: 'b', type: 'DEPENDS_ON' },
      { from: 'b', to: 'c', type: 'DEPENDS_ON' },
      { from: 'c', to: 'a', type: 'RELATES_TO' },
      { from: 'd', to: 'a', type: 'SUPERSEDES' },
    ]);
    const stored = async () => {
      const bytes = await mem.exportDatabase();
      const reopened = await openMemory({ embedder: null, storage: { bytes } });
      // Right after the open the fill has not run: the store counts.
      const counted = await reopened.stats();
      await reopened.close();
      return { edges: counted.edges, edgeTypes: counted.edgeTypes };
    };
    const counts = async () => {
      const s = await mem.stats();
      return { edges: s.edges, edgeTypes: s.edgeTypes };
    };
    expect(await counts()).toEqual({ edges: 4, edgeTypes: { DEPENDS_ON: 2, RELATES_TO: 1, SUPERSEDES: 1 } });
    const edge = (await mem.edges('b')).find((e) => e.to === 'c')!;
    await mem.unrelate(edge.id);
    expect(await counts()).toEqual({ edges: 3, edgeTypes: { DEPENDS_ON: 1, RELATES_TO: 1, SUPERSEDES: 1 } });
    await mem.forget('a');
    expect(await counts()).toEqual({ edges: 0, edgeTypes: {} });
    expect(await counts()).toEqual(await stored());
    await mem.relate('b', 'c', 'RELATES_TO');
    expect(await counts()).toEqual({ edges: 1, edgeTypes: { RELATES_TO: 1 } });
    expect(await counts()).toEqual(await stored());
  });

  it('embeds memories left without vectors when it reopens with an embedder', async () => {
    mem = await openMemory({ embedder: null });
    await mem.store({ id: 'a', text: 'pending embedding' });
    const bytes = await mem.exportDatabase();
    await mem.close();
    mem = await openMemory({ storage: { bytes } });
    await mem.ready();
    expect((await mem.get('a'))!.readiness).toBe('semantic');
  });

  it('rejects bytes that are not a database', async () => {
    expect(await codeOf(HybridMemory.open({ storage: { bytes: new TextEncoder().encode('not a database at all, just text'.repeat(200)) } }))).toBe('CORRUPT');
  });
});

/** Wraps a real driver and throws on the n-th statement matching `pattern`. */
function failingDriver(inner: SqlDriver, pattern: RegExp, n: number): SqlDriver {
  let seen = 0;
  const maybeFail = (sql: string) => {
    if (pattern.test(sql) && ++seen === n) throw new Error('injected failure');
  };
  return {
    name: 'failing',
    exec: (sql, params) => (maybeFail(sql), inner.exec(sql, params)),
    all: (sql, params) => (maybeFail(sql), inner.all(sql, params)),
    transaction: (fn) => inner.transaction(fn),
    serialize: () => inner.serialize!(),
    close: () => inner.close(),
  };
}

describe('atomic writes', () => {
  it('a batch that fails midway leaves SQLite and every index unchanged', async () => {
    const driver = await SqliteWasmDriver.open();
    // A batch's vectors are written after its rows: failing the second batch's vectors fails it midway.
    mem = await HybridMemory.open({ storage: failingDriver(driver, /INTO vectors/, 2), embedder: null, now: () => NOW });
    await mem.storeMany([{ id: 'keep', text: 'kept before the failure', embedding: new Float32Array([1, 0]) }]);
    const before = { stats: await mem.stats(), db: driver.serialize() };
    const batch = ['one', 'two', 'three', 'four'].map((w, i) => ({ id: w, text: `zebra ${w}`, embedding: new Float32Array([0, i + 1]) }));
    await expect(mem.storeMany(batch)).rejects.toThrow(/injected failure/);
    expect(await mem.stats()).toEqual(before.stats);
    expect(driver.serialize()).toEqual(before.db);
    expect(await mem.recall('zebra', { mode: 'lexical' })).toEqual([]);
    expect(await mem.get('one')).toBeNull();
    expect(ids(await mem.recall('x', { mode: 'vector', queryEmbedding: new Float32Array([0, 1]) }))).toEqual(['keep']);
  });

  it('a relate that fails leaves the superseded memory open', async () => {
    const driver = await SqliteWasmDriver.open();
    mem = await HybridMemory.open({ storage: failingDriver(driver, /INSERT INTO edges/, 1), embedder: null, now: () => NOW });
    await mem.storeMany([{ id: 'new', text: 'new' }, { id: 'old', text: 'old', createdAt: NOW - DAY }]);
    expect(await codeOf(mem.relate('new', 'old', 'SUPERSEDES'))).toBe('STORAGE');
    expect((await mem.get('old'))!.validTo).toBeNull();
    expect((await mem.stats()).edges).toBe(0);
  });
});

describe('relateMany', () => {
  it('adds every edge in one transaction, supersessions included', async () => {
    mem = await openMemory({ embedder: null });
    await mem.storeMany(['a', 'b', 'c'].map((id, i) => ({ id, text: `memory ${id}`, createdAt: NOW - (3 - i) * DAY })));
    const ids = await mem.relateMany([
      { from: 'c', to: 'b', type: 'SUPERSEDES' },
      { from: 'b', to: 'a', type: 'DEPENDS_ON', weight: 2, metadata: { why: 'test' } },
    ]);
    expect(ids).toHaveLength(2);
    expect((await mem.get('b'))!.status).toBe('historical');
    expect(await mem.path('c', 'a')).toEqual(['c', 'b', 'a']);
    expect((await mem.edges('b', { direction: 'out' }))[0]).toMatchObject({ type: 'DEPENDS_ON', weight: 2, metadata: { why: 'test' } });
  });
});

describe('background enrichment', () => {
  it('answers with the ready legs while embeddings are pending and counts what it could not search', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const inner = new HashEmbedder();
    const slow = { id: inner.id, dim: inner.dim, embed: async (t: string[]) => (await gate, inner.embed(t)) };
    mem = await openMemory({ embedder: slow });
    await mem.store({ id: 'a', text: 'pelican migration' });
    expect((await mem.get('a'))!.readiness).toBe('lexical');
    const report = await mem.recallReport('pelican migration');
    expect(ids(report.hits)).toEqual(['a']);
    expect(report.pendingSemantic).toBe(1);
    expect(report.legsRun).not.toContain('vector');
    release();
    await mem.ready();
    expect((await mem.get('a'))!.readiness).toBe('semantic');
    expect((await mem.recallReport('pelican migration')).pendingSemantic).toBe(0);
  });

  it('retries a failing embedder with backoff and never invents vectors', async () => {
    const inner = new HashEmbedder();
    let failures = 2;
    const flaky = { id: inner.id, dim: inner.dim, embed: async (t: string[]) => { if (failures-- > 0) throw new Error('model busy'); return inner.embed(t); } };
    mem = await openMemory({ embedder: flaky, enrichment: { backoffMs: 1 } });
    await mem.store({ id: 'a', text: 'retry me' });
    await mem.ready();
    expect((await mem.get('a'))!.readiness).toBe('semantic');

    const broken = { id: inner.id, dim: inner.dim, embed: async () => { throw new Error('model gone'); } };
    const mem2 = await openMemory({ embedder: broken, enrichment: { backoffMs: 1, maxAttempts: 3 } });
    await mem2.store({ id: 'b', text: 'never embedded' });
    await mem2.ready();
    const stats = await mem2.stats();
    expect(stats.readiness.semantic).toBe(0);
    expect(stats.enrichment).toMatchObject({ failed: 1, lastError: 'model gone' });
    await mem2.close();
  });
});
