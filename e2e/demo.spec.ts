import { expect, test } from '@playwright/test';

test.describe('demo page', () => {
  test.beforeEach(async ({ page }, info) => {
    await page.goto(`/demo/?store=demo-${info.title.replace(/\W+/g, '-').slice(0, 40)}`);
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true', { timeout: 90_000 });
  });

  test('loads the sample and answers with per-leg ranks and status', async ({ page }) => {
    await expect(page.locator('#stats')).toContainText('23');
    await page.getByRole('button', { name: 'why did tracking stop for order #4821?' }).click();
    const first = page.locator('.hit').first();
    await expect(first).toContainText(/ops-1193|order-4821/);
    await expect(first.locator('.leg.lexical')).toBeVisible();
    await expect(page.locator('#graph .node').first()).toBeVisible();
    await expect(page.locator('#model')).toContainText('all-MiniLM-L6-v2', { timeout: 60_000 });
  });

  test('as-of date brings the superseded ADR back as current', async ({ page }) => {
    await page.fill('#q', 'where does agent memory live?');
    await page.click('#search-form button[type=submit]');
    await expect(page.locator('.hit[data-id="adr-003"] .status-pill')).toHaveText('historical');
    await page.fill('#asof', '2025-03-01');
    await page.locator('#asof').dispatchEvent('change');
    await expect(page.locator('.hit[data-id="adr-003"] .status-pill')).toHaveText('current');
    await expect(page.locator('.hit[data-id="adr-007"]')).toHaveCount(0);
  });

  test('lexical mode with weights finds an exact ticket id', async ({ page }) => {
    await page.selectOption('#mode', 'lexical');
    await page.fill('#q', 'OPS-1201');
    await page.click('#search-form button[type=submit]');
    await expect(page.locator('.hit').first()).toHaveAttribute('data-id', /ops-1201|fix-1201/);
    await expect(page.locator('#meta')).toContainText('legs: lexical');
  });

  test('adds a memory and a relation, then finds it through the graph', async ({ page }) => {
    await page.fill('#add-text', 'ADR-012: every dependency is pinned to an exact version.');
    await page.fill('#add-id', 'adr-012');
    await page.click('#add-form button[type=submit]');
    await expect(page.locator('#toast')).toContainText('Stored adr-012');
    await page.fill('#rel-from', 'adr-012');
    await page.selectOption('#rel-type', 'DEPENDS_ON');
    await page.fill('#rel-to', 'adr-007');
    await page.click('#relate-form button[type=submit]');
    await expect(page.locator('#toast')).toContainText('adr-012 DEPENDS_ON adr-007');
    await page.fill('#q', 'pinned dependency versions');
    await page.click('#search-form button[type=submit]');
    await page.locator('.hit[data-id="adr-012"]').click();
    await expect(page.locator('#graph')).toContainText('adr-007');
    await page.screenshot({ path: 'test-results/e2e/demo-graph.png', fullPage: true });
  });
});
