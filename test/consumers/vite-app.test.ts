/**
 * A Vite app that installed the packed tarball (and vite, nothing else): `hybridmind/client` on the
 * page, the prebuilt `hybridmind/worker`, `hybridmind/vite` serving the model. Driven in Chromium
 * through store → reload → recall with the dense leg, under the dev server and under
 * `vite build` + `vite preview`; and the engine itself bundled into a page from the main entry.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, pageResult, serveVite } from './support/browser.js';
import { installConsumer, runOk, viteBuild } from './support/consumer.js';

let dir: string;
let browser: Browser;

beforeAll(async () => {
  ({ dir } = await installConsumer('vite-app'));
  await runOk('npx', ['hybridmind', 'model', 'fetch'], { cwd: dir });
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

async function storeReloadRecall(url: string): Promise<void> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const first = await pageResult(page, url);
    expect(first.memories).toBe(2);
    expect(first.legsRun).toContain('vector');
    expect(first.ids[0]).toBe('adr-007');
    const again = await pageResult(page, null);
    expect(again).toEqual(first);
  } finally {
    await context.close();
  }
}

describe('a Vite app from the packed package', () => {
  it('works under the dev server', async () => {
    const server = await serveVite(dir, []);
    try {
      await storeReloadRecall(server.url);
    } finally {
      await server.stop();
    }
  });

  it('works after vite build, under vite preview, with the model copied into the build', async () => {
    await viteBuild(dir);
    expect((await readdir(join(dir, 'dist/models/Xenova/all-MiniLM-L6-v2/onnx')))).toEqual(['model_quantized.onnx']);
    const server = await serveVite(dir, ['preview']);
    try {
      await storeReloadRecall(server.url);
    } finally {
      await server.stop();
    }
  });

  it('bundles the engine itself into a page from the main entry, with no warning about the package, and answers there', async () => {
    // `engine/` builds `import { HybridMemory } from 'hybridmind'`, which reaches the Node-only
    // helpers (local model folders, snapshot files) lazily: their built-ins must not warn either.
    const root = join(dir, 'engine');
    await viteBuild(root);
    const server = await serveVite(root, ['preview']);
    const context = await browser.newContext();
    try {
      const result = await pageResult(await context.newPage(), server.url);
      expect(result.memories).toBe(2);
      expect(result.legsRun).toContain('lexical');
      expect(result.ids[0]).toBe('adr-007');
    } finally {
      await context.close();
      await server.stop();
    }
  });

  it('ships a worker without the page-only preload helper, whose error path reads `window`', async () => {
    // Vite wraps an app entry's dynamic imports in it; in a worker a chunk that failed to load then
    // reported "window is not defined" instead of its own error.
    const root = join(dir, 'node_modules/hybridmind/dist/worker');
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.js'));
    expect(files).toContain('memory.worker.js');
    for (const file of files) expect(await readFile(join(root, file), 'utf8'), file).not.toContain('vite:preloadError');
  });

  it('installs no ONNX runtime package, no transformers.js and no MCP SDK', async () => {
    const installed = await readdir(join(dir, 'node_modules'));
    for (const heavy of ['onnxruntime-node', 'onnxruntime-web', '@huggingface', '@modelcontextprotocol']) expect(installed).not.toContain(heavy);
  });
});
