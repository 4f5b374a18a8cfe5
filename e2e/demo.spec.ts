/**
 * The demo page as a person uses it, in Chromium with the real worker, SQLite on OPFS and the
 * real model: search and why a hit ranks, results that follow readiness, the memory browser,
 * importing notes, and the layout at desktop and phone sizes. Screenshots of the main states go
 * to test-results/e2e/demo-screens/ for a reviewer to look at.
 */
import { join } from 'node:path';
import { expect, test, type Page, type TestInfo } from '@playwright/test';

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

async function open(page: Page, info: TestInfo, hash = ''): Promise<void> {
  const store = `demo-${info.title.replace(/\W+/g, '-').slice(0, 40)}-${info.project.name || 'c'}`;
  await page.goto(`/demo/?store=${store}${hash}`);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true', { timeout: 90_000 });
}

/** Waits until every memory is searchable by meaning and the answer shown was computed after that. */
async function untilEmbedded(page: Page): Promise<void> {
  await expect(page.locator('#enrich')).toContainText('all done', { timeout: 90_000 });
  await expect(page.locator('#meta')).toHaveAttribute('data-pending', '0');
}

async function shot(page: Page, info: TestInfo, name: string): Promise<void> {
  const path = join(info.project.outputDir, 'demo-screens', `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  await info.attach(name, { path, contentType: 'image/png' });
}

test.describe('desktop', () => {
  test.use({ viewport: DESKTOP });

  test('why a hit ranks: the graph weight puts order-4821 above the cause both text legs rank first', async ({ page }, info) => {
    await open(page, info);
    await untilEmbedded(page);
    await page.getByRole('button', { name: 'why did tracking stop for order #4821?' }).click();
    await expect(page.locator('#hits')).toHaveAttribute('data-query', 'why did tracking stop for order #4821?');
    const top = page.locator('.hit').first();
    await expect(top).toHaveAttribute('data-id', 'order-4821');
    const cause = page.locator('.hit[data-id="ops-1193"]');
    // Meaning and words both rank the cause first…
    await expect(cause.locator('.leg.vector b')).toHaveText('#1');
    await expect(cause.locator('.leg.lexical b')).toHaveText('#1');
    // …and the chips show the words as typed, not their stems.
    await expect(cause.locator('.leg.lexical')).toContainText('tracking');
    await expect(cause.locator('.leg.lexical')).not.toContainText('track,');

    await top.getByRole('button', { name: 'Why #1?' }).click();
    const why = top.locator('.explain');
    await expect(why.locator('tr[data-leg="vector"]')).toContainText('closest in meaning');
    await expect(why.locator('tr[data-leg="lexical"]')).toContainText('“#4821”');
    await expect(why.locator('tr[data-leg="graph"]')).toContainText('1.5 ÷ (60+');
    await expect(why.locator('tr[data-leg="time"]')).toContainText('time factor');
    await expect(why.locator('.path')).toContainText('ops-1193 —REFERENCES→ order-4821');
    const decided = why.locator('.compare[data-other="ops-1193"]');
    await expect(decided).toHaveAttribute('data-decided-by', 'graph');
    await expect(decided).toContainText('links leg (graph, weight 1.5)');
    // The explained parts add up to the score shown.
    const sum = await why.locator('.add').allTextContents();
    const score = Number(await top.locator('.score span').first().textContent());
    expect(sum.reduce((s, t) => s + Number(t.replace('+', '')), 0)).toBeCloseTo(score, 3);
    await expect(page.locator('#graph-title')).toContainText('order-4821');
    await shot(page, info, 'desktop-1-why-a-hit-ranks');

    // With the graph weight at 0 the text legs decide, and the cause comes first.
    await page.locator('.settings summary').click();
    await page.locator('#w-graph').evaluate((input: HTMLInputElement) => {
      input.value = '0';
      input.dispatchEvent(new Event('change'));
    });
    await expect(page.locator('.hit').first()).toHaveAttribute('data-id', 'ops-1193');
  });

  test('results and status lines follow readiness; model progress only moves forward', async ({ page }, info) => {
    await page.addInitScript(() => {
      const log: Array<{ model: string; bar: string; enrich: string; meta: string }> = [];
      (window as unknown as { statusLog: typeof log }).statusLog = log;
      const record = () => {
        const text = (id: string) => document.getElementById(id)?.textContent ?? '';
        log.push({ model: text('model'), bar: (document.getElementById('model-bar') as HTMLElement | null)?.style.width ?? '', enrich: text('enrich'), meta: text('meta') });
      };
      new MutationObserver(record).observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['style'] });
    });
    await open(page, info);
    await untilEmbedded(page);
    await expect(page.locator('#meta')).toContainText('legs: vector, lexical, graph, time');
    await expect(page.locator('#meta')).not.toContainText('not yet searchable');
    await expect(page.locator('#stats dd[data-key="searchable by meaning"]')).toHaveText('all 23');
    await expect(page.locator('#model')).toContainText('all-MiniLM-L6-v2');
    const log = await page.evaluate(() => (window as unknown as { statusLog: Array<{ model: string; bar: string; enrich: string; meta: string }> }).statusLog);
    const widths = log.map((l) => parseFloat(l.bar)).filter((w) => !Number.isNaN(w));
    expect(widths.length).toBeGreaterThan(1);
    for (let i = 1; i < widths.length; i++) expect(widths[i]).toBeGreaterThanOrEqual(widths[i - 1]!);
    for (const l of log) {
      const files = /(\d+)\/(\d+) files/.exec(l.model);
      if (files && files[1] !== files[2]) expect(l.model).not.toContain('100%');
      if (l.enrich.includes('all done')) expect(l.meta).not.toContain('not yet searchable');
    }
    // Before the embeddings were in, the page said so, and it answered anyway.
    expect(log.some((l) => /\d+ not yet searchable by meaning/.test(l.meta))).toBe(true);
    expect(log.some((l) => l.model.includes('loading') && l.model.includes('files'))).toBe(true);
  });

  test('memory browser: page, filter, edit, edges, history with as-of, forget', async ({ page }, info) => {
    await open(page, info);
    await page.getByRole('tab', { name: 'Memories' }).click();
    await expect(page.locator('#b-count')).toHaveText('1–20 of 23 memories');
    await page.getByRole('button', { name: 'Next →' }).click();
    await expect(page.locator('#b-count')).toHaveText('21–23 of 23 memories');
    await expect(page.locator('#b-list .mem')).toHaveCount(3);
    await page.fill('#b-kind', 'adr');
    await expect(page.locator('#b-count')).toHaveText('1–3 of 3 memories');
    await page.fill('#b-kind', '');
    await page.fill('#b-id', 'ops-');
    await expect(page.locator('#b-list .mem')).toHaveCount(2);
    await page.fill('#b-id', '');
    await page.fill('#b-domain', 'orders');
    await expect(page.locator('#b-count')).toHaveText('1–4 of 4 memories');
    await page.fill('#b-domain', '');

    // History: adr-003 was superseded; its as-of view answers as the store did then.
    await page.fill('#b-id', 'adr-00');
    await page.locator('#b-list .mem[data-id="adr-003"]').click();
    const detail = page.locator('#b-detail');
    await expect(detail.locator('.status-pill')).toHaveText('historical');
    await expect(detail.locator('.history')).toContainText('Superseded by adr-007');
    await expect(detail.locator('.pill')).toHaveText(/searchable by meaning|words & links only/);
    await shot(page, info, 'desktop-2-memory-browser');
    await detail.locator('[data-action="as-of"]').click();
    await expect(page.locator('#tab-search')).toBeVisible();
    await expect(page.locator('#asof')).toHaveValue('2025-06-11');
    await expect(page.locator('.hit[data-id="adr-003"] .status-pill')).toHaveText('current');
    await expect(page.locator('.hit[data-id="adr-007"]')).toHaveCount(0);

    // Edit.
    await page.getByRole('tab', { name: 'Memories' }).click();
    await page.fill('#b-id', 'pref-tone');
    await page.locator('#b-list .mem[data-id="pref-tone"]').click();
    // The panel still shows adr-003's editor until pref-tone's reads come back: typing before then
    // went into the editor about to be replaced (a flaky failure here).
    await expect(detail.locator('h3.id')).toHaveText('pref-tone');
    await page.fill('#e-text', 'Maria prefers short status updates with the ticket number and the ETA in the subject line.');
    await page.fill('#e-kind', 'person');
    // A change elsewhere in the store re-reads the list; with focus outside the editor, the unsaved
    // edit must survive it.
    await page.locator('#b-count').click();
    await page.evaluate(() => (window as unknown as { demoMemory: { update(id: string, patch: object): Promise<unknown> } }).demoMemory.update('pref-tone', { domain: 'people-ops' }));
    await expect(page.locator('#b-list .mem[data-id="pref-tone"] .facet')).toHaveText('preference · people-ops');
    await expect(page.locator('#e-text')).toHaveValue(/and the ETA in the subject/);
    await detail.getByRole('button', { name: 'Save' }).click();
    await expect(page.locator('#notice')).toContainText('Saved pref-tone');
    await expect(page.locator('#b-list .mem[data-id="pref-tone"]')).toContainText('ETA in the subject');
    await expect(page.locator('#b-list .mem[data-id="pref-tone"] .facet')).toHaveText('person · people-ops');

    // Edges: remove one, add one.
    await page.fill('#b-id', 'order-4821');
    await page.locator('#b-list .mem[data-id="order-4821"]').click();
    await expect(detail.locator('h3.id')).toHaveText('order-4821');
    await expect(detail.locator('.edges h4')).toHaveText('Edges (2)');
    await detail.getByRole('button', { name: 'remove refund-flow REFERENCES order-4821' }).click();
    await expect(detail.locator('.edges h4')).toHaveText('Edges (1)');
    await page.selectOption('#x-dir', 'out');
    await page.selectOption('#x-type', 'DEPENDS_ON');
    await page.fill('#x-other', 'svc-tracking');
    await detail.getByRole('button', { name: 'Add edge' }).click();
    await expect(detail.locator('li[data-edge="order-4821 DEPENDS_ON svc-tracking"]')).toBeVisible();
    await page.fill('#x-other', 'no-such-memory');
    await detail.getByRole('button', { name: 'Add edge' }).click();
    await expect(page.locator('#notice')).toContainText('NOT_FOUND');

    // Forget asks once more, then the memory and its edges are gone.
    await page.fill('#b-id', '');
    await page.locator('#b-list .mem[data-id="order-4812"]').click();
    // Until order-4812's panel is up, the forget button there is order-4821's.
    await expect(detail.locator('h3.id')).toHaveText('order-4812');
    await detail.locator('[data-action="forget"]').click();
    await expect(detail.locator('[data-action="forget"]')).toContainText('Really forget order-4812?');
    await detail.locator('[data-action="forget"]').click();
    await expect(page.locator('#b-count')).toHaveText('1–20 of 22 memories');
    expect(await page.evaluate(() => (window as unknown as { demoMemory: { get(id: string): Promise<unknown> } }).demoMemory.get('order-4812'))).toBeNull();
  });

  test('import: pasted Markdown, a dropped JSONL chat, a bulk import with progress, a .mind.zip, the sample in one click', async ({ page }, info) => {
    // A thousand memories are embedded on this (shared, two-core) machine while the test goes on.
    test.setTimeout(400_000);
    await open(page, info);
    await page.getByRole('tab', { name: 'Add & import' }).click();
    const notes = [
      '---', 'title: ops notes', '---',
      '# Runbook: carrier webhooks', 'Rotate the webhook secret in the vault first, then in the carrier portal.',
      '## Paging', 'Page the on-call engineer when no tracking events arrive for two hours.',
      '# Retro 2025-06', 'Freezer tablets drop Wi-Fi; scans must queue locally.',
    ].join('\n');
    await page.fill('#paste', notes);
    await page.getByRole('button', { name: 'Import text' }).click();
    await expect(page.locator('#import-status')).toContainText('Imported 3 memories from pasted text');

    const chat = [
      { role: 'user', content: 'Can we move the Friday deploy of the refund flow?', timestamp: '2025-08-20T09:00:00Z' },
      { role: 'assistant', content: 'Friday deploys need a second reviewer; Thursday works without one.', timestamp: '2025-08-20T09:00:05Z' },
    ].map((t) => JSON.stringify(t)).join('\n');
    await page.evaluate((text) => {
      const data = new DataTransfer();
      data.items.add(new File([text], 'chat.jsonl', { type: 'application/jsonl' }));
      document.getElementById('drop')!.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, chat);
    await expect(page.locator('#import-status')).toContainText('Imported 2 memories from chat.jsonl');

    // Bulk: 1,000 sections in batches; the progress bar and the line pass through intermediate values.
    await page.evaluate(() => {
      const seen: number[] = [];
      (window as unknown as { progressSeen: number[] }).progressSeen = seen;
      const bar = document.getElementById('import-progress') as HTMLProgressElement;
      new MutationObserver(() => seen.push(bar.value)).observe(bar, { attributes: true });
      const status = document.getElementById('import-status')!;
      new MutationObserver(() => seen.push(Number(/(\d+) of 1000/.exec(status.textContent ?? '')?.[1] ?? -1))).observe(status, { childList: true, characterData: true, subtree: true });
    });
    const bulk = Array.from({ length: 1000 }, (_, i) => `# Note ${i}\nShipment batch ${i} left the Leipzig hub on day ${i % 30}.`).join('\n\n');
    await page.locator('#files').setInputFiles({ name: 'bulk.md', mimeType: 'text/markdown', buffer: Buffer.from(bulk) });
    await expect(page.locator('#import-status')).toContainText('Imported 1000 memories from bulk.md', { timeout: 240_000 });
    const seen = await page.evaluate(() => (window as unknown as { progressSeen: number[] }).progressSeen);
    expect(seen.filter((v) => v > 0 && v < 1000).length).toBeGreaterThanOrEqual(3);
    await shot(page, info, 'desktop-3-import');

    // Importing the same note again skips what is already there instead of failing or duplicating.
    await page.fill('#paste', notes);
    await page.getByRole('button', { name: 'Import text' }).click();
    await expect(page.locator('#import-status')).toContainText('Imported 0 memories from pasted text, 3 already there');

    await page.getByRole('tab', { name: 'Search' }).click();
    await page.fill('#q', 'who gets paged when tracking events stop arriving?');
    await page.click('#search-form button[type=submit]');
    await expect(page.locator('.hit[data-id="pasted/paging"]')).toBeVisible();
    await expect(page.locator('.hit[data-id="pasted/paging"] .leg.lexical')).toContainText('arriving');

    // A snapshot exported here restores into another store (replacing its contents).
    await page.getByRole('tab', { name: 'Add & import' }).click();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export .mind.zip' }).click();
    const zipPath = join(info.outputDir, 'export.mind.zip');
    await (await download).saveAs(zipPath);
    const other = await page.context().newPage();
    await other.goto(`/demo/?store=${encodeURIComponent(`demo-restore-${Date.now()}`)}#import`);
    await expect(other.locator('body')).toHaveAttribute('data-ready', 'true', { timeout: 90_000 });
    await other.locator('#files').setInputFiles(zipPath);
    await expect(other.locator('#import-status')).toContainText('Restored export.mind.zip');
    await expect(other.locator('#stats dd[data-key="memories"]')).toHaveText('1028');

    // The sample is one click away even after it was edited away.
    await other.evaluate(() => (window as unknown as { demoMemory: { forget(id: string): Promise<void> } }).demoMemory.forget('ops-1193'));
    await other.getByRole('button', { name: 'Load the sample project' }).click();
    await expect(other.locator('#notice')).toContainText('Sample project loaded: 23 memories, 17 relations (1 of the memories were new)');
    await other.close();
  });

  test('layout: / serves the demo, graph beside the hits with labels that do not overlap, zoom and pan', async ({ page }, info) => {
    await page.goto(`/?store=demo-layout-desktop`);
    await expect(page).toHaveURL(/\/demo\/\?store=demo-layout-desktop/);
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true', { timeout: 90_000 });
    const hits = (await page.locator('#hits').boundingBox())!;
    const graph = (await page.locator('#graph').boundingBox())!;
    expect(graph.x).toBeGreaterThan(hits.x + hits.width - 1);
    expect(graph.y + graph.height).toBeLessThan(DESKTOP.height);
    // adr-007 may already be drawn (the first hit): blank the title so the wait below is for the
    // click's own draw, which sets the title and redraws in one step. A redraw landing after the
    // zoom click reset the viewBox (failed once on a clean-clone run).
    await page.locator('#graph-title').evaluate((title) => (title.textContent = ''));
    await page.locator('.hit[data-id="adr-007"]').click();
    await expect(page.locator('#graph-title')).toContainText('adr-007');
    await expectNoOverlap(page);
    const before = await page.locator('#graph').getAttribute('viewBox');
    await page.click('#zoom-in');
    const zoomed = await page.locator('#graph').getAttribute('viewBox');
    expect(Number(zoomed!.split(' ')[2])).toBeLessThan(Number(before!.split(' ')[2]));
    // Asking for the memory shown again draws nothing new: the zoom stays.
    await page.locator('.hit[data-id="adr-007"]').click();
    await page.waitForTimeout(500);
    await expect(page.locator('#graph')).toHaveAttribute('viewBox', zoomed!);
    await page.mouse.move(graph.x + 40, graph.y + 40);
    await page.mouse.down();
    await page.mouse.move(graph.x + 140, graph.y + 90, { steps: 5 });
    await page.mouse.up();
    const panned = await page.locator('#graph').getAttribute('viewBox');
    expect(Number(panned!.split(' ')[0])).toBeLessThan(Number(zoomed!.split(' ')[0]));
    await page.click('#zoom-fit');
    await expect(page.locator('#graph')).toHaveAttribute('viewBox', before!);
    await shot(page, info, 'desktop-4-graph');
    await page.locator('#graph .node[data-id="adr-009"]').click();
    await expect(page.locator('#graph-title')).toContainText('adr-009');
    await expect(page.locator('.hit[data-id="adr-009"]')).toHaveClass(/selected/);
  });
});

/** No two visible labels in the graph overlap on screen. */
async function expectNoOverlap(page: Page): Promise<void> {
  const boxes = await page.locator('#graph text').evaluateAll((nodes) => nodes.map((n) => {
    const r = n.getBoundingClientRect();
    return { text: n.textContent, x: r.x, y: r.y, w: r.width, h: r.height };
  }));
  expect(boxes.length).toBeGreaterThan(2);
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!;
      const b = boxes[j]!;
      const overlap = a.x < b.x + b.w - 1 && b.x < a.x + a.w - 1 && a.y < b.y + b.h - 1 && b.y < a.y + a.h - 1;
      expect(overlap, `${a.text} overlaps ${b.text}`).toBe(false);
    }
  }
}

test.describe('phone', () => {
  test.use({ viewport: PHONE });

  test('search comes first, then hits, graph and store; explanation and browser fit the screen', async ({ page }, info) => {
    await open(page, info);
    // Embeddings arriving re-run the question and re-render the hits (open explanations kept): a
    // hit located before that and used after it is gone from the page.
    await untilEmbedded(page);
    const q = (await page.locator('#q').boundingBox())!;
    expect(q.y + q.height).toBeLessThan(PHONE.height / 2);
    const order = await Promise.all(['#search-form', '#hits', '#graph', '#stats'].map(async (s) => (await page.locator(s).boundingBox())!.y));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    await shot(page, info, 'phone-1-search');
    await page.locator('.hit').first().getByRole('button', { name: /Why #1\?/ }).click();
    await expect(page.locator('.hit').first().locator('.explain')).toBeVisible();
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth).toBeLessThanOrEqual(PHONE.width);
    await page.locator('.hit').first().scrollIntoViewIfNeeded();
    await shot(page, info, 'phone-2-explanation');
    await page.locator('#graph').scrollIntoViewIfNeeded();
    await expectNoOverlap(page);
    await shot(page, info, 'phone-3-graph');
    await page.getByRole('tab', { name: 'Memories' }).click();
    await page.locator('#b-list .mem').first().click();
    await expect(page.locator('#b-detail .editor')).toBeVisible();
    await shot(page, info, 'phone-4-browser');
    await page.getByRole('tab', { name: 'Add & import' }).click();
    await shot(page, info, 'phone-5-import');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  });
});
