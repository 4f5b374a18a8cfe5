import { expect, test, type Page } from '@playwright/test';

/** Opens the harness on `store` and waits until its worker has the store. */
async function open(page: Page, store: string, options: Record<string, unknown> = {}): Promise<string> {
  await page.goto(`/e2e/fixtures/harness.html?auto=0&store=${store}`);
  return page.evaluate((o) => window.hmConnect(o), options);
}

test('store → recall in the worker, with coded errors across the boundary', async ({ page }) => {
  expect(await open(page, 'basic')).toBe('owner');
  const result = await page.evaluate(async () => {
    const hm = window.hm!;
    await hm.storeMany([
      { id: 'adr-003', text: 'ADR-003: agent memory lives in IndexedDB', createdAt: '2025-01-01' },
      { id: 'adr-007', text: 'ADR-007: SQLite-WASM on OPFS is the source of truth for agent memory', createdAt: '2025-06-01' },
      { id: 'order', text: 'Order #4821 shipped late because the carrier lost the parcel' },
    ]);
    await hm.relate('adr-007', 'adr-003', 'SUPERSEDES');
    await hm.ready();
    const hits = await hm.recall('where does the agent keep its memory?', { k: 3 });
    const vector = new Float32Array(384).fill(0.05);
    await hm.store({ id: 'with-vector', text: 'a memory with its own vector', embedding: vector });
    const errors: Array<string | undefined> = [];
    // What the structured clone refuses never leaves the page, and is an argument error as on an embedded store.
    const uncloneable = [
      () => hm.store((() => 'a function') as never),
      () => hm.store({ text: 'x', metadata: { tag: Symbol('s') } } as never),
      () => hm.recall('x', { filter: { metadata: { f: () => 1 } } } as never),
      () => hm.recall('x', { k: () => 3 } as never),
    ];
    for (const bad of [() => hm.store({ id: 'adr-007', text: 'again' }), () => hm.get(''), () => hm.edges('nope'), ...uncloneable]) {
      errors.push(await bad().then(() => undefined, (e: { name: string; code: string }) => `${e.name}:${e.code}`));
    }
    return {
      ids: hits.map((h) => h.id),
      statuses: Object.fromEntries(hits.map((h) => [h.id, h.status])),
      legs: Object.keys(hits[0]!.legs),
      transferred: vector.byteLength === 0,
      errors,
      stats: await hm.stats(),
    };
  });
  expect(result.ids.slice(0, 2).sort()).toEqual(['adr-003', 'adr-007']);
  expect(result.ids[0]).toBe('adr-007');
  expect(result.statuses['adr-003']).toBe('historical');
  expect(result.legs).toContain('vector');
  expect(result.transferred).toBe(true);
  expect(result.errors).toEqual(['HybridMindError:CONFLICT', 'HybridMindError:INVALID_ARGUMENT', 'HybridMindError:NOT_FOUND', ...Array(4).fill('HybridMindError:INVALID_ARGUMENT')]);
  expect(result.stats).toMatchObject({ memories: 4, storage: expect.stringContaining('hybridmind-basic') });
});

test('reload: the same memories and the same recall answers', async ({ page }) => {
  await open(page, 'reload');
  const before = await page.evaluate(async () => {
    const hm = window.hm!;
    await hm.storeMany(Array.from({ length: 40 }, (_, i) => ({ id: `m${i}`, text: `Memory ${i}: ${['deploy on Tuesday', 'ticket OPS-11' + i, 'carrier webhook', 'refund over 500 EUR'][i % 4]}` })));
    await hm.ready();
    return { hits: (await hm.recall('which deploy days are allowed?', { k: 5 })).map((h) => [h.id, h.score]), count: (await hm.stats()).memories };
  });
  await page.reload();
  await page.evaluate(() => window.hmConnect());
  const after = await page.evaluate(async () => {
    const hm = window.hm!;
    await hm.ready();
    return { hits: (await hm.recall('which deploy days are allowed?', { k: 5 })).map((h) => [h.id, h.score]), count: (await hm.stats()).memories };
  });
  expect(after).toEqual(before);
});

test('derived indexes are saved as OPFS files beside the store and read back from them on the next open', async ({ page }) => {
  await open(page, 'derived');
  const query = (q: string) => page.evaluate(async (text) => (await window.hm!.recall(text, { k: 5 })).map((h) => [h.id, h.score]), q);
  await page.evaluate(async () => {
    const hm = window.hm!;
    await hm.storeMany(Array.from({ length: 40 }, (_, i) => ({ id: `m${i}`, text: `Memory ${i}: ${['deploy on Tuesday', 'ticket OPS-11' + i, 'carrier webhook', 'refund over 500 EUR'][i % 4]}` })));
    await hm.ready();
  });
  const before = await query('which deploy days are allowed?');
  // Closing saves the derived indexes and releases the files' access handles.
  await page.evaluate(() => window.hm!.close());
  const files = () =>
    page.evaluate(async () => {
      let dir = await navigator.storage.getDirectory();
      for (const part of ['.hybridmind', 'derived', 'derived']) dir = await dir.getDirectoryHandle(part);
      const out: Record<string, number> = {};
      for (const name of ['lexical', 'entities', 'catalog', 'quantized']) out[name] = (await (await dir.getFileHandle(`${name}.bin`)).getFile()).size;
      return out;
    });
  for (const size of Object.values(await files())) expect(size).toBeGreaterThan(256);
  // The closed store's worker still holds its database's pool: a reload ends it, as a new visit would.
  const reopen = async () => {
    await page.reload();
    await page.evaluate(() => window.hmConnect());
    const answer = await query('which deploy days are allowed?');
    const logs = await page.evaluate(() => window.hmEvents.flatMap((e) => (e.type === 'model' && e.status.startsWith('log:') ? [e.file ?? ''] : [])));
    return { answer, logs };
  };
  const intact = await reopen();
  expect(intact.answer).toEqual(before);
  expect(intact.logs.filter((m) => m.includes('saved'))).toEqual([]);
  // A stamp changed in the lexical file is noticed at the next open: the file is what the open reads.
  await page.evaluate(() => window.hm!.close());
  await page.evaluate(async () => {
    let dir = await navigator.storage.getDirectory();
    for (const part of ['.hybridmind', 'derived', 'derived']) dir = await dir.getDirectoryHandle(part);
    const handle = await dir.getFileHandle('lexical.bin');
    const bytes = new Uint8Array(await (await handle.getFile()).arrayBuffer());
    bytes[24] = 'x'.charCodeAt(0);
    const writable = await handle.createWritable();
    await writable.write(bytes);
    await writable.close();
  });
  const stale = await reopen();
  expect(stale.answer).toEqual(before);
  expect(stale.logs).toContainEqual(expect.stringContaining('the saved lexical index is from another store generation; rebuilding it'));
});

test('two tabs on one store: the second goes through the owner, BUSY on request, hand-over on close', async ({ context }) => {
  const a = await context.newPage();
  const b = await context.newPage();
  expect(await open(a, 'shared')).toBe('owner');
  expect(await open(b, 'shared')).toBe('follower');
  await b.evaluate(() => window.hm!.store({ id: 'from-b', text: 'Written in tab B, stored by tab A' }));
  expect(await a.evaluate(async () => (await window.hm!.get('from-b'))?.text)).toBe('Written in tab B, stored by tab A');

  const c = await context.newPage();
  await c.goto('/e2e/fixtures/harness.html?auto=0&store=shared');
  const busy = await c.evaluate(() => window.hmConnect({ multiTab: 'fail' }).then(() => 'connected', () => window.hmError));
  expect(busy).toMatchObject({ code: 'BUSY' });

  await a.close();
  await expect.poll(() => b.evaluate(() => window.hm!.role()), { timeout: 30_000 }).toBe('owner');
  const afterHandover = await b.evaluate(async () => {
    await window.hm!.store({ id: 'after', text: 'Written after tab A closed' });
    return (await window.hm!.stats()).memories;
  });
  expect(afterHandover).toBe(2);
});

test('recall latency inside the worker (printed, not asserted)', async ({ page }) => {
  await open(page, 'latency');
  const timing = await page.evaluate(async () => {
    const hm = window.hm!;
    const topics = ['deploy', 'carrier webhook', 'refund', 'OPFS storage', 'ticket triage', 'tablet offline mode', 'invoice export', 'alerting'];
    await hm.storeMany(Array.from({ length: 1000 }, (_, i) => ({ text: `Note ${i} about ${topics[i % topics.length]} and order #${4000 + i}` })));
    const t0 = performance.now();
    await hm.ready();
    const enrichMs = performance.now() - t0;
    const measure = async (q: string, options: () => object) => {
      const times: number[] = [];
      for (let i = 0; i < 15; i++) {
        const o = options(); // a fresh object each time: a query vector is transferred, so it is used up
        const t = performance.now();
        await hm.recall(q, o);
        times.push(performance.now() - t);
      }
      return times.sort((x, y) => x - y)[7]!;
    };
    return {
      enrichMs,
      hybrid: await measure('what did we decide about carrier webhooks?', () => ({ k: 10 })),
      lexical: await measure('order #4821', () => ({ k: 10, mode: 'lexical' })),
      vectorPrecomputed: await measure('x', () => ({ k: 10, mode: 'vector', queryEmbedding: new Float32Array(384).fill(0.05) })),
    };
  });
  console.log(`[latency] 1000 memories in the worker (headless Chromium): embedding all ${timing.enrichMs.toFixed(0)} ms; median recall, page round trip included: hybrid (query embedded) ${timing.hybrid.toFixed(1)} ms, lexical ${timing.lexical.toFixed(1)} ms, vector with a given query vector ${timing.vectorPrecomputed.toFixed(1)} ms`);
});
