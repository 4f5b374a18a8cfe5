/**
 * Snapshots across runtimes and OPFS backups: an archive exported by the browser's worker store
 * imports in Node (this test process) and, exported again by Node, restores in the browser with
 * the same answers; rotating backups in OPFS keep the newest valid ones and skip a corrupt one.
 */
import { expect, test } from '@playwright/test';
import { HybridMemory } from '../src/index.js';
import { hashVector } from '../test/support/hash-embedder.js';

const MEMORIES = [
  { id: 'adr-003', text: 'ADR-003: agent memory lives in IndexedDB', createdAt: '2026-01-01' },
  { id: 'adr-007', text: 'ADR-007: SQLite on OPFS is the source of truth for agent memory', createdAt: '2026-11-01' },
  { id: 'ferry', text: 'Order #4821 shipped to Rottnest island by ferry', createdAt: '2026-11-20' },
];

test('an archive exported in Chromium imports in Node and back, with the same answers', async ({ page }) => {
  await page.goto('/e2e/fixtures/harness.html?auto=0&store=snapshot-roundtrip');
  await page.evaluate(() => window.hmConnect({ model: false }));
  const vectors = MEMORIES.map((m) => Array.from(hashVector(m.text, 384)));
  const fromBrowser = await page.evaluate(async ({ memories, vectors }) => {
    const hm = window.hm!;
    await hm.storeMany(memories.map((m, i) => ({ ...m, embedding: new Float32Array(vectors[i]!) })));
    await hm.relate('adr-007', 'adr-003', 'SUPERSEDES');
    return Array.from(await hm.exportSnapshot());
  }, { memories: MEMORIES, vectors });

  const node = await HybridMemory.importSnapshot(new Uint8Array(fromBrowser), { embedder: null });
  const stats = await node.stats();
  expect(stats).toMatchObject({ memories: 3, edges: 1, readiness: { semantic: 3 } });
  expect((await node.get('adr-003'))!.status).toBe('historical');
  const nodeAnswer = (await node.recall('Order #4821', { mode: 'lexical', k: 1 })).map((h) => h.id);
  await node.store({ id: 'node-note', text: 'written in Node after the import', embedding: hashVector('node note', 384) });
  const fromNode = Array.from(await node.exportSnapshot());
  await node.close();

  const browser = await page.evaluate(async ({ zip, query }) => {
    const hm = window.hm!;
    await hm.restoreSnapshot(new Uint8Array(zip));
    return {
      memories: (await hm.stats()).memories,
      lexical: (await hm.recall('Order #4821', { mode: 'lexical', k: 1 })).map((h) => h.id),
      vector: (await hm.recall('x', { mode: 'vector', k: 1, queryEmbedding: new Float32Array(query) })).map((h) => h.id),
      node: (await hm.get('node-note'))?.text ?? null,
      old: (await hm.get('adr-003'))?.status,
    };
  }, { zip: fromNode, query: Array.from(hashVector(MEMORIES[2]!.text, 384)) });
  expect(browser).toEqual({ memories: 4, lexical: nodeAnswer, vector: ['ferry'], node: 'written in Node after the import', old: 'historical' });
});

test('OPFS backups keep the newest valid snapshots and restore past a corrupt one', async ({ page }) => {
  await page.goto('/e2e/fixtures/harness.html?auto=0&store=snapshot-backups');
  await page.evaluate(() => window.hmConnect({ model: false }));
  const result = await page.evaluate(async () => {
    const hm = window.hm!;
    const backups = await window.hmBackups(`backups-${Date.now()}`, 2);
    const names: string[] = [];
    for (const text of ['first memory', 'second memory', 'third memory']) {
      await hm.store({ text });
      names.push(await backups.backup(hm));
    }
    const kept = await backups.list();
    await hm.store({ text: 'written after the last backup' });
    await backups.store.write(kept[0]!.replace(/-(\d{4})\.mind\.zip$/, (_m, n: string) => `-${String(Number(n) + 1).padStart(4, '0')}.mind.zip`), new TextEncoder().encode('not a zip'));
    const restore = await backups.restoreNewestValid(hm);
    return { names, kept, restored: restore.restored, skipped: restore.skipped.map((s) => s.code), memories: (await hm.stats()).memories };
  });
  expect(result.kept).toEqual([result.names[2], result.names[1]]);
  expect(result.restored).toBe(result.names[2]);
  expect(result.skipped).toEqual(['CORRUPT']);
  expect(result.memories).toBe(3);
});
