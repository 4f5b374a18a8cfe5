/**
 * A `.mind.zip` exported by a Durable Object in the real workerd (examples/cloudflare-worker)
 * restores in the browser's worker store: the same memories, edges, vectors and answers. The
 * Durable Object has no embedder here (vectors come with each memory), so the snapshot carries
 * no model id and the browser store, whatever its model, accepts its 384-d vectors.
 */
import { expect, test } from '@playwright/test';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWorker } from '../examples/cloudflare-worker/build.mjs';
import { startWorkerd, type Workerd } from '../test/edge/support/workerd.js';
import { hashVector } from '../test/support/hash-embedder.js';

const MEMORIES = [
  { id: 'adr-003', text: 'ADR-003: agent memory lives in IndexedDB', createdAt: '2026-09-01' },
  { id: 'adr-007', text: 'ADR-007: SQLite on OPFS is the source of truth for agent memory', createdAt: '2026-11-01' },
  { id: 'ferry', text: 'Order #4821 shipped to Rottnest island by ferry', createdAt: '2026-11-20' },
];

async function exportFromDurableObject(): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), 'hybridmind-e2e-edge-'));
  let workerd: Workerd | undefined;
  try {
    await buildWorker(join(dir, 'dist'), { fromSource: true });
    const config = (await readFile('examples/cloudflare-worker/config.capnp', 'utf8')).split('\n').filter((line) => !line.includes('EMBEDDINGS')).join('\n');
    await writeFile(join(dir, 'config.capnp'), config);
    await mkdir(join(dir, 'data'), { recursive: true });
    workerd = await startWorkerd(join(dir, 'config.capnp'), ['-d', `do-storage=${join(dir, 'data')}`]);
    const post = async (verb: string, body: unknown) => {
      const res = await fetch(`${workerd!.url}/m/edge/${verb}`, { method: 'POST', body: JSON.stringify(body) });
      expect(res.status, await res.clone().text()).toBe(201);
    };
    await post('storeMany', { memories: MEMORIES.map((m) => ({ ...m, embedding: Array.from(hashVector(m.text, 384)) })) });
    await post('relate', { from: 'adr-007', to: 'adr-003', type: 'SUPERSEDES' });
    const res = await fetch(`${workerd.url}/m/edge/export`);
    expect(res.status).toBe(200);
    return new Uint8Array(await res.arrayBuffer());
  } finally {
    await workerd?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

test('a .mind.zip exported by a Durable Object in workerd restores in the browser', async ({ page }) => {
  const zip = await exportFromDurableObject();
  await page.goto('/e2e/fixtures/harness.html?auto=0&store=from-edge');
  await page.evaluate(() => window.hmConnect());
  const result = await page.evaluate(async ({ zip, query }) => {
    const hm = window.hm!;
    await hm.restoreSnapshot(new Uint8Array(zip));
    const stats = await hm.stats();
    return {
      memories: stats.memories,
      edges: stats.edges,
      semantic: stats.readiness.semantic,
      lexical: (await hm.recall('Order #4821', { mode: 'lexical', k: 1 })).map((h) => h.id),
      vector: (await hm.recall('anything', { mode: 'vector', k: 1, queryEmbedding: new Float32Array(query) })).map((h) => h.id),
      superseded: (await hm.get('adr-003'))?.status,
    };
  }, { zip: Array.from(zip), query: Array.from(hashVector('Rottnest island ferry order', 384)) });
  expect(result).toEqual({ memories: 3, edges: 1, semantic: 3, lexical: ['ferry'], vector: ['ferry'], superseded: 'historical' });
});
