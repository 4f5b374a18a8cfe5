import { expect, test } from '@playwright/test';

const SEED = 20261208;

for (const [kind, runs, calls] of [['hostile', 4, 300], ['well-formed', 2, 400]] as const) {
  test(`the worker client ends and answers ${runs} × ${calls} seeded ${kind} calls as an embedded store in the page does`, async ({ page }) => {
    test.setTimeout(180_000);
    await page.goto('/e2e/fixtures/differential.html');
    await page.waitForFunction(() => 'runDifferential' in window);
    const { differences, tally } = await page.evaluate(([seed, r, c, k]) => window.runDifferential(seed, r, c, k), [SEED, runs, calls, kind] as const);
    console.info(`worker-client differential, ${kind} calls, seed ${SEED}:`, JSON.stringify(tally));
    expect(Object.values(tally).reduce((sum, n) => sum + n, 0)).toBe(runs * calls);
    expect(differences.join('\n')).toBe('');
  });
}
