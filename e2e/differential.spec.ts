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

test('calls sent to the worker client together end as they do one at a time on an embedded store', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto('/e2e/fixtures/differential.html');
  await page.waitForFunction(() => 'runDifferential' in window);
  for (const kind of ['hostile', 'well-formed'] as const) {
    const { differences } = await page.evaluate(([seed, k]) => window.runDifferential(seed, 2, 300, k, true), [SEED, kind] as const);
    expect(differences.join('\n'), kind).toBe('');
  }
});
