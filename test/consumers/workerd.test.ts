/**
 * The Cloudflare Worker example (examples/cloudflare-worker) as an app would use it: its files in a
 * project that installed the packed tarball and esbuild, bundled by its own build.mjs (which also
 * creates ./data), served by the real workerd. Stats answer while no embeddings server runs.
 */
import { copyFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkerd, type Workerd } from '../edge/support/workerd.js';
import { freePort } from './support/browser.js';
import { installConsumer, ROOT, runOk } from './support/consumer.js';

const EXAMPLE = join(ROOT, 'examples/cloudflare-worker');
const EXAMPLE_FILES = ['worker.ts', 'http.ts', 'embedder.ts', 'build.mjs', 'config.capnp'];
let dir: string;
let workerd: Workerd;

beforeAll(async () => {
  ({ dir } = await installConsumer('workerd'));
  for (const file of EXAMPLE_FILES) await copyFile(join(EXAMPLE, file), join(dir, file));
  await runOk('node', ['build.mjs'], { cwd: dir });
  // config.capnp's ./data is relative to where workerd is started; this test starts it elsewhere.
  // Nothing listens on the embeddings port: the server is down.
  workerd = await startWorkerd(join(dir, 'config.capnp'), ['-d', `do-storage=${join(dir, 'data')}`, '-e', `embeddings=127.0.0.1:${await freePort()}`]);
});

afterAll(async () => {
  await workerd?.stop();
});

const call = async (path: string, body?: unknown) => {
  const res = await fetch(`${workerd.url}${path}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('the Cloudflare Worker example from the packed package', () => {
  it('bundles hybridmind/edge and hybridmind/kernel.wasm from node_modules, and creates ./data', async () => {
    expect(await readdir(join(dir, 'dist'))).toEqual(['kernel.wasm', 'worker.js']);
    expect(await readdir(dir)).toContain('data');
  });

  it('answers stats, stores and recalls lexically while no embeddings server runs', async () => {
    const stats = await call('/m/alice/stats');
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ memories: 0, storage: 'durable-object-sqlite' });
    expect((await call('/m/alice/store', { id: 'adr-007', text: 'ADR-007: SQLite on OPFS is the source of truth' })).status).toBe(201);
    const recall = await call('/m/alice/recall', { query: 'ADR-007', mode: 'lexical' });
    expect(recall.status).toBe(200);
    expect((recall.body['hits'] as Array<{ id: string }>).map((h) => h.id)).toEqual(['adr-007']);
  });
});
