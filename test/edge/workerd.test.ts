/**
 * The example Worker (examples/cloudflare-worker) in the real workerd: Durable Object SQLite on
 * disk, the RemoteEmbedder against a local OpenAI-compatible server, the SIMD kernel imported as
 * a precompiled module. Covers recall through all legs, writes, coded 4xx errors, .mind.zip
 * export to Node and import from Node, and durability across a restart of the runtime.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorker, FORBIDDEN } from '../../examples/cloudflare-worker/build.mjs';
import { HybridMemory, type Embedder, type Hit, type RecallReport } from '../../src/index.js';
import { hashVector } from '../support/hash-embedder.js';
import { startEmbeddingsServer } from './support/embeddings-server.js';
import { startWorkerd, type Workerd } from './support/workerd.js';

const DIM = 384;
/** The embedder id the Worker's RemoteEmbedder records (EMBEDDINGS_MODEL in config.capnp). */
const MODEL_ID = 'openai:all-MiniLM-L6-v2';
const EXAMPLE = new URL('../../examples/cloudflare-worker/', import.meta.url).pathname;

/** The same vectors the local embeddings server makes, under the Worker's embedder id. */
const sameModel = (id = MODEL_ID): Embedder => ({ id, dim: DIM, embed: async (texts) => texts.map((t) => hashVector(t, DIM)) });

let dir: string;
let storage: string;
let embeddings: Awaited<ReturnType<typeof startEmbeddingsServer>>;
let workerd: Workerd;
let bundle: Awaited<ReturnType<typeof buildWorker>>;

const start = () => startWorkerd(join(dir, 'config.capnp'), ['-d', `do-storage=${storage}`, '-e', `embeddings=127.0.0.1:${embeddings.port}`]);

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

async function call<T = Record<string, unknown>>(path: string, init: { method?: string; json?: unknown; raw?: string | Uint8Array } = {}): Promise<Answer<T>> {
  const res = await fetch(`${workerd.url}${path}`, {
    method: init.method ?? (init.json !== undefined || init.raw !== undefined ? 'POST' : 'GET'),
    ...(init.json !== undefined ? { body: JSON.stringify(init.json), headers: { 'content-type': 'application/json' } } : {}),
    ...(init.raw !== undefined ? { body: init.raw as BodyInit } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const type = res.headers.get('content-type') ?? '';
  const body = type.includes('json') ? await res.json() : new Uint8Array(await res.arrayBuffer());
  return { status: res.status, body: body as T, headers: res.headers };
}

const ids = (hits: Array<{ id: string }>) => hits.map((h) => h.id);

const PROJECT = [
  { id: 'adr-003', text: 'ADR-003: agent memory lives in IndexedDB', createdAt: '2026-09-01' },
  { id: 'adr-007', text: 'ADR-007: SQLite on OPFS is the source of truth for agent memory', createdAt: '2026-11-01' },
  { id: 'opfs', text: 'OPFS sync access handles need a dedicated worker', createdAt: '2026-11-02' },
  { id: 'worker', text: 'The dedicated worker owns the database connection', createdAt: '2026-11-03' },
  { id: 'ferry', text: 'Order #4821 shipped to Rottnest island by ferry', createdAt: '2026-11-20' },
];

async function seedProject(name: string): Promise<void> {
  expect((await call(`/m/${name}/storeMany?wait=ready`, { json: { memories: PROJECT } })).status).toBe(201);
  for (const [from, to, type] of [['adr-007', 'adr-003', 'SUPERSEDES'], ['adr-007', 'opfs', 'DEPENDS_ON'], ['opfs', 'worker', 'DEPENDS_ON']] as const) {
    expect((await call(`/m/${name}/relate`, { json: { from, to, type } })).status).toBe(201);
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hybridmind-workerd-'));
  storage = join(dir, 'data');
  await mkdir(storage);
  bundle = await buildWorker(join(dir, 'dist'), { fromSource: true });
  await copyFile(join(EXAMPLE, 'config.capnp'), join(dir, 'config.capnp'));
  embeddings = await startEmbeddingsServer(DIM);
  workerd = await start();
  await seedProject('project');
}, 120_000);

afterAll(async () => {
  await workerd?.stop();
  await embeddings?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the bundle', () => {
  it('holds no SQLite-WASM, hnswlib-wasm or transformers.js, and imports nothing but the kernel module', async () => {
    const inputs = Object.keys(bundle.metafile.inputs);
    expect(inputs.filter((input) => FORBIDDEN.some((pkg) => input.includes(`node_modules/${pkg}/`)))).toEqual([]);
    expect(inputs.some((input) => input.includes('node_modules/minisearch/'))).toBe(true);
    const code = await readFile(join(dir, 'dist/worker.js'), 'utf8');
    expect([...code.matchAll(/^import\s[^;]*?from\s*"([^"]+)"/gm)].map((m) => m[1])).toEqual(['./kernel.wasm']);
    expect(bundle.bytes).toBeLessThan(1024 * 1024);
  });
});

describe('recall', () => {
  it('answers through all four legs, with supersession and a two-hop graph answer', async () => {
    const { status, body } = await call<RecallReport>('/m/project/recall', { json: { query: 'where does agent memory live?', k: 5 } });
    expect(status).toBe(200);
    expect([...body.legsRun].sort()).toEqual(['graph', 'lexical', 'time', 'vector']);
    expect(body.pendingSemantic).toBe(0);
    expect(body.hits[0]!.id).toBe('adr-007');
    expect(Object.keys(body.hits[0]!.legs).sort()).toEqual(['graph', 'lexical', 'time', 'vector']);
    expect(body.hits.find((h: Hit) => h.id === 'adr-003')!.status).toBe('historical');

    const graph = await call<RecallReport>('/m/project/recall', { json: { query: 'ADR-007', mode: 'graph', anchors: ['adr-007'], depth: 2 } });
    expect(ids(graph.body.hits)).toContain('worker');
    const exact = await call<RecallReport>('/m/project/recall', { json: { query: 'Order #4821', mode: 'lexical', k: 1 } });
    expect(ids(exact.body.hits)).toEqual(['ferry']);
  });

  it('takes vectors from the caller: embedding on store, queryEmbedding on recall', async () => {
    const x = Array.from(hashVector('quokka on the beach', DIM));
    expect((await call('/m/vectors/store', { json: { id: 'q', text: 'a small marsupial', embedding: x } })).status).toBe(201);
    expect((await call('/m/vectors/store?wait=ready', { json: { id: 'f', text: 'a ferry timetable' } })).status).toBe(201);
    const { body } = await call<RecallReport>('/m/vectors/recall', { json: { query: 'unrelated words', mode: 'vector', queryEmbedding: x } });
    expect(body.hits[0]!.id).toBe('q');
  });

  it('update re-indexes and forget removes a memory and its edges', async () => {
    await seedProject('writes');
    const updated = await call('/m/writes/update', { json: { id: 'ferry', patch: { text: 'Order #4821 was delivered by seaplane' } } });
    expect(updated.status).toBe(200);
    expect(updated.body['text']).toBe('Order #4821 was delivered by seaplane');
    expect(ids((await call<RecallReport>('/m/writes/recall', { json: { query: 'seaplane', mode: 'lexical' } })).body.hits)).toEqual(['ferry']);

    expect(await call('/m/writes/forget', { json: { id: 'opfs' } })).toMatchObject({ status: 200, body: { id: 'opfs', forgotten: true } });
    const stats = await call('/m/writes/stats');
    expect(stats.body).toMatchObject({ memories: 4, edges: 1, storage: 'durable-object-sqlite' });
    expect(ids((await call<RecallReport>('/m/writes/recall', { json: { query: 'OPFS sync access handles' } })).body.hits)).not.toContain('opfs');
  });
});

describe('bad requests get a 4xx and { error: { code, message } }', () => {
  const cases: Array<[string, string, { method?: string; json?: unknown; raw?: string }, number, string]> = [
    ['unknown route', '/nowhere', {}, 404, 'ROUTE_NOT_FOUND'],
    ['unknown verb', '/m/project/dance', { json: {} }, 404, 'ROUTE_NOT_FOUND'],
    ['wrong method', '/m/project/recall', { method: 'GET' }, 405, 'METHOD_NOT_ALLOWED'],
    ['bad memory name', '/m/has%20space/stats', {}, 400, 'INVALID_NAME'],
    ['body not JSON', '/m/project/recall', { raw: '{"query":' }, 400, 'INVALID_JSON'],
    ['body not an object', '/m/project/recall', { json: ['query'] }, 400, 'INVALID_ARGUMENT'],
    ['store without text', '/m/project/store', { json: { id: 'x' } }, 400, 'INVALID_ARGUMENT'],
    ['storeMany without an array', '/m/project/storeMany', { json: { memories: 'no' } }, 400, 'INVALID_ARGUMENT'],
    ['embedding not numbers', '/m/project/store', { json: { text: 'x', embedding: 'abc' } }, 400, 'INVALID_ARGUMENT'],
    ['empty query', '/m/project/recall', { json: { query: '' } }, 400, 'INVALID_ARGUMENT'],
    ['unknown recall option', '/m/project/recall', { json: { query: 'x', topK: 3 } }, 400, 'INVALID_ARGUMENT'],
    ['relate to a missing memory', '/m/project/relate', { json: { from: 'adr-007', to: 'nope', type: 'RELATES_TO' } }, 404, 'NOT_FOUND'],
    ['forget a missing memory', '/m/project/forget', { json: { id: 'nope' } }, 404, 'NOT_FOUND'],
    ['duplicate id', '/m/project/store', { json: { id: 'adr-007', text: 'again' } }, 409, 'CONFLICT'],
    ['query vector of another length', '/m/project/recall', { json: { query: 'x', queryEmbedding: [1, 0, 0] } }, 422, 'DIMENSION_MISMATCH'],
    ['import of something not a zip', '/m/project/import', { raw: 'not a zip at all' }, 422, 'CORRUPT'],
  ];

  it.each(cases)('%s', async (_, path, init, status, code) => {
    const answer = await call<{ error: { code: string; message: string } }>(path, init);
    expect(answer.status).toBe(status);
    expect(answer.body.error.code).toBe(code);
    expect(answer.body.error.message.length).toBeGreaterThan(0);
    expect(answer.headers.get('content-type')).toMatch(/application\/json/);
  });

  it('left the memory as it was', async () => {
    expect((await call('/m/project/stats')).body).toMatchObject({ memories: 5, edges: 3 });
  });
});

describe('.mind.zip', () => {
  it('exported from the Durable Object, imports in Node with the same content and answers', async () => {
    const zip = await call<Uint8Array>('/m/project/export');
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(zip.headers.get('content-disposition')).toContain('project.mind.zip');
    const mem = await HybridMemory.importSnapshot(zip.body, { embedder: sameModel() });
    try {
      const stats = await mem.stats();
      expect(stats).toMatchObject({ memories: 5, edges: 3, dim: DIM, embedderId: MODEL_ID });
      expect(stats.readiness.semantic).toBe(5);
      const inNode = await mem.recall('where does agent memory live?', { k: 5 });
      const inWorker = (await call<RecallReport>('/m/project/recall', { json: { query: 'where does agent memory live?', k: 5 } })).body.hits;
      expect(inNode[0]!.id).toBe(inWorker[0]!.id);
      expect(new Set(ids(inNode))).toEqual(new Set(ids(inWorker)));
      expect(await mem.get('adr-003')).toMatchObject({ status: 'historical' });
    } finally {
      await mem.close();
    }
  });

  it('made in Node, imports into a Durable Object; a snapshot of another model is refused and changes nothing', async () => {
    const source = await HybridMemory.open({ embedder: sameModel() });
    await source.storeMany([
      { id: 'n1', text: 'Node wrote this memory about quokkas' },
      { id: 'n2', text: 'and this one about the Rottnest ferry' },
    ]);
    await source.relate('n2', 'n1', 'RELATES_TO');
    await source.ready();
    const zip = await source.exportSnapshot();
    await source.close();

    const imported = await call('/m/from-node/import', { raw: zip });
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ imported: { memories: 2, edges: 1, vectors: 2 }, dim: DIM, embedderId: MODEL_ID });
    expect(ids((await call<RecallReport>('/m/from-node/recall', { json: { query: 'quokkas', k: 1 } })).body.hits)).toEqual(['n1']);

    const other = await HybridMemory.open({ embedder: sameModel('another-model') });
    await other.store({ text: 'from another model' });
    await other.ready();
    const otherZip = await other.exportSnapshot();
    await other.close();
    const refused = await call<{ error: { code: string } }>('/m/from-node/import', { raw: otherZip });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('MODEL_MISMATCH');
    const truncated = await call<{ error: { code: string } }>('/m/from-node/import', { raw: zip.subarray(0, zip.length - 200) });
    expect(truncated.status).toBe(422);
    expect((await call('/m/from-node/stats')).body).toMatchObject({ memories: 2, edges: 1 });
  });

  it('round-trips Durable Object → Durable Object', async () => {
    const zip = (await call<Uint8Array>('/m/project/export')).body;
    expect((await call('/m/copy/import', { raw: zip })).status).toBe(200);
    const a = (await call<RecallReport>('/m/project/recall', { json: { query: 'dedicated worker', k: 5 } })).body.hits;
    const b = (await call<RecallReport>('/m/copy/recall', { json: { query: 'dedicated worker', k: 5 } })).body.hits;
    expect(ids(b)).toEqual(ids(a));
  });
});

describe('durability', () => {
  it('keeps every memory, edge and vector across a restart of the runtime', async () => {
    const before = await call('/m/project/stats');
    const recallBefore = (await call<RecallReport>('/m/project/recall', { json: { query: 'where does agent memory live?', k: 5 } })).body.hits;
    await workerd.stop();
    expect((await readdir(storage)).length).toBeGreaterThan(0);
    workerd = await start();
    const after = await call('/m/project/stats');
    expect(after.body).toMatchObject({ memories: before.body['memories'], edges: before.body['edges'], readiness: before.body['readiness'], dim: DIM });
    const recallAfter = (await call<RecallReport>('/m/project/recall', { json: { query: 'where does agent memory live?', k: 5 } })).body.hits;
    expect(ids(recallAfter)).toEqual(ids(recallBefore));
    expect((await call('/m/from-node/stats')).body).toMatchObject({ memories: 2, edges: 1 });
  }, 60_000);
});

describe('latency in workerd (1,000 memories, 384-d, HTTP round trip included)', () => {
  it('stores, recalls and exports', async () => {
    const memories = Array.from({ length: 1000 }, (_, i) => ({ id: `b${i}`, text: `note ${i}: ${['quokka', 'ferry', 'OPFS', 'SQLite', 'worker', 'island'][i % 6]} observation number ${i * 7919 % 1000}` }));
    let t = performance.now();
    for (let i = 0; i < memories.length; i += 250) expect((await call('/m/bulk/storeMany?wait=ready', { json: { memories: memories.slice(i, i + 250) } })).status).toBe(201);
    const storeMs = performance.now() - t;

    const times: number[] = [];
    for (let i = 0; i < 40; i++) {
      const query = Array.from(hashVector(`ferry observation ${i}`, DIM));
      t = performance.now();
      const { status, body } = await call<RecallReport>('/m/bulk/recall', { json: { query: `ferry observation ${i}`, k: 10, queryEmbedding: query } });
      times.push(performance.now() - t);
      expect(status).toBe(200);
      expect(body.hits).toHaveLength(10);
    }
    times.sort((a, b) => a - b);
    t = performance.now();
    const zip = await call<Uint8Array>('/m/bulk/export');
    const exportMs = performance.now() - t;
    expect(zip.status).toBe(200);
    const p50 = times[Math.floor(times.length / 2)]!;
    const p95 = times[Math.floor(times.length * 0.95)]!;
    console.info(`workerd: storeMany 1000 (with remote embedding) ${storeMs.toFixed(0)} ms; recall p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms; export ${exportMs.toFixed(0)} ms, ${(zip.body.length / 1024).toFixed(0)} KiB`);
  }, 120_000);
});
