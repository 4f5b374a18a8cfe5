import { expect, test } from '@playwright/test';

const SEED = 20261208;
const RUNS = 4;
const CALLS_PER_RUN = 300;

test('the worker client ends and answers every seeded hostile call as an embedded store in the page does', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto('/e2e/fixtures/differential.html');
  await page.waitForFunction(() => 'runDifferential' in window);
  const { differences, tally } = await page.evaluate(([seed, runs, calls]) => window.runDifferential(seed, runs, calls), [SEED, RUNS, CALLS_PER_RUN] as const);
  console.info(`worker-client differential, seed ${SEED}:`, JSON.stringify(tally));
  expect(Object.values(tally).reduce((sum, n) => sum + n, 0)).toBe(RUNS * CALLS_PER_RUN);
  expect(differences.join('\n')).toBe('');
});
