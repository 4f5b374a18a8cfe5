/**
 * HybridMind under the real Deno 2 binary: SQLite-WASM in memory, the four legs, writes, and
 * persistence through database bytes or a .mind.zip written to a file and reopened. Run by test/edge/deno.test.ts
 * (`deno test --config test/deno/deno.json --no-check --no-remote`), offline: npm packages come
 * from the project's node_modules. tsc checks the types; Deno is here to run the code.
 */
import assert from 'node:assert/strict';
import { HybridMemory, type Hit } from '../../src/index.js';
import { loadVectorKernel } from '../../src/legs/vector/kernel.js';
import { HashEmbedder } from '../support/hash-embedder.js';

interface DenoLike {
  version: { deno: string };
  test(name: string, fn: () => Promise<void>): void;
  makeTempDir(): Promise<string>;
  writeFile(path: string, data: Uint8Array): Promise<void>;
  readFile(path: string): Promise<Uint8Array>;
  remove(path: string, options: { recursive: boolean }): Promise<void>;
}
const Deno = (globalThis as unknown as { Deno: DenoLike }).Deno;

const NOW = Date.parse('2026-11-30T12:00:00Z');
const DAY = 86_400_000;
const ids = (hits: Hit[]) => hits.map((h) => h.id);

async function projectMemory(): Promise<HybridMemory> {
  const mem = await HybridMemory.open({ embedder: new HashEmbedder(64), now: () => NOW });
  await mem.storeMany([
    { id: 'adr-003', text: 'ADR-003: agent memory lives in IndexedDB', createdAt: NOW - 60 * DAY },
    { id: 'adr-007', text: 'ADR-007: SQLite-WASM on OPFS is the source of truth for agent memory', createdAt: NOW - 10 * DAY },
    { id: 'opfs', text: 'OPFS sync access handles need a dedicated worker', createdAt: NOW - 9 * DAY },
    { id: 'worker', text: 'The dedicated worker owns the database connection', createdAt: NOW - 8 * DAY },
  ]);
  await mem.store({ id: 'ferry', text: 'Order #4821 shipped to Rottnest island by ferry', createdAt: NOW - DAY });
  await mem.relate('adr-007', 'adr-003', 'SUPERSEDES');
  await mem.relate('adr-007', 'opfs', 'DEPENDS_ON');
  await mem.relate('opfs', 'worker', 'DEPENDS_ON');
  await mem.ready();
  return mem;
}

Deno.test('runs on Deno 2', async () => {
  assert.match(Deno.version.deno, /^2\./);
});

Deno.test('the WASM SIMD kernel loads from the package files', async () => {
  assert.notEqual(await loadVectorKernel(), null);
});

Deno.test('store, storeMany, relate and recall through all four legs', async () => {
  const mem = await projectMemory();
  try {
    const report = await mem.recallReport('where does agent memory live?', { k: 5 });
    assert.deepEqual([...report.legsRun].sort(), ['graph', 'lexical', 'time', 'vector']);
    assert.equal(report.pendingSemantic, 0);
    assert.equal(report.hits[0]!.id, 'adr-007');
    assert.equal(report.hits.find((h) => h.id === 'adr-003')!.status, 'historical');
    const top = report.hits[0]!.legs;
    for (const leg of ['vector', 'lexical', 'graph', 'time'] as const) assert.ok(top[leg], `adr-007 has a ${leg} rank`);

    assert.deepEqual(ids(await mem.recall('Order #4821', { mode: 'lexical', k: 1 })), ['ferry']);
    // Two hops from ADR-007 through DEPENDS_ON, sharing no word with the question.
    assert.ok(ids(await mem.recall('ADR-007', { mode: 'graph', anchors: ['adr-007'], depth: 2 })).includes('worker'));
    const stats = await mem.stats();
    assert.equal(stats.memories, 5);
    assert.equal(stats.edges, 3);
    assert.equal(stats.readiness.semantic, 5);
  } finally {
    await mem.close();
  }
});

Deno.test('explicit vectors without an embedder', async () => {
  const mem = await HybridMemory.open({ embedder: null, dim: 3, now: () => NOW });
  try {
    await mem.store({ id: 'x', text: 'points along x', embedding: new Float32Array([1, 0, 0]) });
    await mem.store({ id: 'y', text: 'points along y', embedding: new Float32Array([0, 1, 0]) });
    assert.deepEqual(ids(await mem.recall('anything', { mode: 'vector', queryEmbedding: new Float32Array([0, 0.9, 0.1]) })), ['y', 'x']);
  } finally {
    await mem.close();
  }
});

Deno.test('update re-indexes every leg; forget removes the memory and its edges', async () => {
  const mem = await projectMemory();
  try {
    const updated = await mem.update('ferry', { text: 'Order #4821 was delivered by seaplane' });
    assert.equal(updated.text, 'Order #4821 was delivered by seaplane');
    await mem.ready();
    assert.deepEqual(ids(await mem.recall('seaplane', { mode: 'lexical' })), ['ferry']);
    assert.deepEqual(await mem.recall('ferry', { mode: 'lexical' }), []);

    await mem.forget('opfs');
    assert.equal(await mem.get('opfs'), null);
    assert.equal((await mem.stats()).edges, 1);
    assert.ok(!ids(await mem.recall('OPFS sync access handles', { k: 10 })).includes('opfs'));
  } finally {
    await mem.close();
  }
});

Deno.test('persists: database bytes written to a file reopen with the same answers', async () => {
  const dir = await Deno.makeTempDir();
  try {
    const mem = await projectMemory();
    const before = ids(await mem.recall('where does agent memory live?', { k: 5 }));
    await Deno.writeFile(`${dir}/store.db`, await mem.exportDatabase());
    await mem.close();

    const reopened = await HybridMemory.open({ storage: { bytes: await Deno.readFile(`${dir}/store.db`) }, embedder: new HashEmbedder(64), now: () => NOW });
    try {
      assert.deepEqual(ids(await reopened.recall('where does agent memory live?', { k: 5 })), before);
      const stats = await reopened.stats();
      assert.equal(stats.memories, 5);
      assert.equal(stats.readiness.semantic, 5);
    } finally {
      await reopened.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test('persists: a .mind.zip written to a file imports with the same answers', async () => {
  const dir = await Deno.makeTempDir();
  try {
    const mem = await projectMemory();
    const before = (await mem.recall('where does agent memory live?', { k: 5 })).map((h) => [h.id, h.status]);
    await Deno.writeFile(`${dir}/memory.mind.zip`, await mem.exportSnapshot());
    await mem.close();

    const restored = await HybridMemory.importSnapshot(await Deno.readFile(`${dir}/memory.mind.zip`), { embedder: new HashEmbedder(64), now: () => NOW });
    try {
      assert.deepEqual((await restored.recall('where does agent memory live?', { k: 5 })).map((h) => [h.id, h.status]), before);
      assert.equal((await restored.stats()).edges, 3);
    } finally {
      await restored.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
