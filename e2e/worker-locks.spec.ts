import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, expect, test } from '@playwright/test';

/**
 * Chromium itself refuses Web Locks when the profile blocks site storage (cookies blocked):
 * `navigator.locks.request` rejects with SecurityError (BroadcastChannel still works). That refusal
 * says nothing about who owns the store, so connect must fail with a coded error instead of making
 * this tab a follower of an owner that does not exist (what worker/host.ts did before c337656).
 */
test('a refused Web Lock is a STORAGE error at connect, not "another tab owns the store"', async ({ browserName }, testInfo) => {
  test.skip(browserName !== 'chromium', 'the storage-blocking profile setting is Chromium\'s');
  const profile = mkdtempSync(join(tmpdir(), 'hybridmind-locks-'));
  mkdirSync(join(profile, 'Default'));
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({ profile: { default_content_setting_values: { cookies: 2 } } }));
  const { launchOptions, baseURL } = testInfo.project.use;
  const context = await chromium.launchPersistentContext(profile, { ...launchOptions, baseURL });
  try {
    const page = await context.newPage();
    await page.goto('/e2e/fixtures/harness.html?auto=0&store=denied');
    expect(await page.evaluate(() => window.hmConnect().then((role) => role, () => 'refused'))).toBe('refused');
    const error = await page.evaluate(() => window.hmError);
    expect(error?.code).toBe('STORAGE');
    // Chromium's SecurityError text ("The request was denied.") follows the store's name.
    expect(error?.message).toMatch(/^connect: the Web Lock for store "denied" failed: \S/);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
