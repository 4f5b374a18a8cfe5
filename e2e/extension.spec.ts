import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, expect, test } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS } from '../playwright.config.js';

const EXTENSION = resolve('e2e/fixtures/extension/dist');

test('an MV3 extension page stores and recalls under the extension CSP', async () => {
  const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'hm-ext-')), {
    executablePath: CHROMIUM,
    // Playwright's own headless switch would start the old headless mode, which has no extensions.
    headless: false,
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${EXTENSION}`, `--load-extension=${EXTENSION}`],
  });
  try {
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 30_000 }));
    const id = new URL(worker.url()).host;
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|unsafe-eval|EvalError/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(`chrome-extension://${id}/page.html`);
    await expect(page.locator('body')).toHaveAttribute('data-done', 'true', { timeout: 90_000 });
    const result = await page.evaluate(() => (window as unknown as { result: { ok: boolean; ids: string[]; error?: string } }).result);
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.ids[0]).toBe('ticket');
    expect(violations).toEqual([]);

    await page.reload();
    await expect(page.locator('body')).toHaveAttribute('data-done', 'true', { timeout: 90_000 });
    expect(await page.evaluate(() => (window as unknown as { result: { memories: number } }).result.memories)).toBe(3);
  } finally {
    await context.close();
  }
});
