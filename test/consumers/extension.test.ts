/**
 * An MV3 extension built with Vite from the packed tarball (model shipped inside), loaded into
 * Chromium with --load-extension: store → reload → recall with the dense leg under the extension CSP.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, pageResult } from './support/browser.js';
import { installConsumer, runOk, viteBuild } from './support/consumer.js';

let dir: string;

beforeAll(async () => {
  ({ dir } = await installConsumer('extension'));
  await runOk('npx', ['hybridmind', 'model', 'fetch'], { cwd: dir });
  await viteBuild(dir);
});

describe('an MV3 extension from the packed package', () => {
  it('ships the model and the worker files in dist/', async () => {
    const dist = await readdir(join(dir, 'dist'));
    expect(dist).toEqual(expect.arrayContaining(['manifest.json', 'background.js', 'page.html', 'models', 'assets']));
  });

  it('stores, reloads and recalls with the dense leg, with no CSP violation', async () => {
    const profile = await mkdtemp(join(tmpdir(), 'hybridmind-ext-'));
    const extension = join(dir, 'dist');
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      // Playwright's own headless switch starts the old headless mode, which has no extensions.
      headless: false,
      args: [...CHROMIUM_ARGS, `--disable-extensions-except=${extension}`, `--load-extension=${extension}`],
    });
    try {
      const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 30_000 }));
      const id = new URL(worker.url()).host;
      const page = await context.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy|unsafe-eval|EvalError/i.test(m.text())) violations.push(m.text());
      });
      const first = await pageResult(page, `chrome-extension://${id}/page.html`);
      expect(first).toMatchObject({ memories: 2, model: { state: 'ready', error: null } });
      expect(first.legsRun).toContain('vector');
      expect(first.ids[0]).toBe('ticket');
      expect(await pageResult(page, null)).toEqual(first);
      expect(violations).toEqual([]);
    } finally {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    }
  });
});
