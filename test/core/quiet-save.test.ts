/**
 * A store that is never closed (a Durable Object evicted, a tab closed) still saves its derived
 * indexes once writes go quiet, so its next open loads them instead of rebuilding them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HybridMemory, SqliteWasmDriver, type SqlDriver } from '../../src/index.js';
import { DEFAULT_SAVE_AFTER_MS, inMemory, resolveSaveDelay } from '../../src/memory/quiet-save.js';
import { SqliteFileDriver } from '../../src/storage/node-file.js';
import { clusteredVectors } from '../support/clustered-vectors.js';
import { ids, openMemory, recorder } from '../support/memory.js';
import { notingDriver } from '../support/noting-driver.js';
import { until } from '../support/until.js';

const SAVED = 'saved the derived indexes after writes went quiet';
const vectors = clusteredVectors(60, { dim: 32, seed: 5 });
const items = vectors.slice(0, 50).map((embedding, i) => ({ id: `m${i}`, text: `Ticket OPS-${100 + i} about ${i % 2 ? 'billing' : 'search'} service`, embedding }));

let stores: HybridMemory[] = [];
afterEach(async () => {
  for (const s of stores) await s.close();
  stores = [];
});

let dir: string;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'hybridmind-quiet-save-'))));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function answers(mem: HybridMemory): Promise<string[][]> {
  const queries = ['OPS-107', 'billing service', 'search'];
  return Promise.all(queries.map(async (q, i) => ids(await mem.recall(q, { k: 5, queryEmbedding: vectors[50 + i]! }))));
}

describe('saving the derived indexes when writes go quiet', () => {
  it('lets a store that was never closed reopen from its saved indexes, and saves again after later writes', async () => {
    const driver = await SqliteWasmDriver.open();
    const log = recorder();
    const mem = await openMemory({ storage: driver, embedder: null, saveIndexesAfterMs: 20, logger: log.logger });
    stores.push(mem);
    await mem.storeMany(items.slice(0, 40));
    await mem.relate('m1', 'm2', 'DEPENDS_ON');
    await until(() => log.messages.includes(SAVED));
    const stamps = () => driver.all<{ name: string; stamp: string }>("SELECT name, stamp FROM derived_index WHERE name NOT LIKE '%#%' ORDER BY name");
    const first = stamps();
    expect(first.map((r) => r.name)).toEqual(['catalog', 'edge-types', 'entities', 'lexical', 'quantized']);

    await mem.storeMany(items.slice(40));
    await until(() => log.messages.filter((m) => m === SAVED).length === 2);
    expect(stamps().map((r) => r.stamp)).not.toEqual(first.map((r) => r.stamp));

    // The database as the process left it, without close() or an export (both of which save).
    const reopenedLog = recorder();
    const reopened = await openMemory({ storage: await SqliteWasmDriver.open({ bytes: driver.serialize!() }), embedder: null, logger: reopenedLog.logger });
    stores.push(reopened);
    expect(reopenedLog.messages).toEqual(expect.arrayContaining(['loaded the saved lexical index', 'loaded the saved entity index', 'opened the dense leg from its saved codes; vectors are read from the store when needed']));
    expect(await answers(reopened)).toEqual(await answers(mem));
  });

  it('saves after an open that had to rebuild, so a store only read from stops rebuilding', async () => {
    const source = await openMemory({ embedder: null, saveIndexesAfterMs: false });
    stores.push(source);
    await source.storeMany(items);
    // An export saves the indexes; drop them to stand for a store whose last writer never saved.
    const bare = await SqliteWasmDriver.open({ bytes: await source.exportDatabase() });
    bare.exec('DELETE FROM derived_index');
    const log = recorder();
    const mem = await openMemory({ storage: bare, embedder: null, saveIndexesAfterMs: 10, logger: log.logger });
    stores.push(mem);
    expect(log.messages).not.toContain('loaded the saved lexical index');
    await until(() => log.messages.includes(SAVED));
    expect(bare.all('SELECT name FROM derived_index').length).toBeGreaterThan(0);
  });

  it('saves nothing in the background with false, and none is left pending after close', async () => {
    const driver: SqlDriver = await SqliteWasmDriver.open();
    const log = recorder();
    const mem = await openMemory({ storage: driver, embedder: null, saveIndexesAfterMs: false, logger: log.logger });
    await mem.storeMany(items);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(driver.all('SELECT name FROM derived_index')).toEqual([]);
    expect(log.messages).not.toContain(SAVED);

    const closing = recorder();
    const other = await openMemory({ embedder: null, saveIndexesAfterMs: 30, logger: closing.logger });
    await other.storeMany(items);
    await other.close();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(closing.messages).not.toContain(SAVED);
    expect(closing.messages.filter((m) => /could not save/.test(m))).toEqual([]);
  });

  it('defaults to a delay for a database file and to none for an in-memory database', async () => {
    const memory = await SqliteWasmDriver.open();
    const file = await SqliteFileDriver.open(join(dir, 'store.db'));
    try {
      expect(resolveSaveDelay(undefined, !inMemory(memory))).toBeNull();
      expect(resolveSaveDelay(undefined, !inMemory(file))).toBe(DEFAULT_SAVE_AFTER_MS);
      expect(resolveSaveDelay(false, !inMemory(file))).toBeNull();
      expect(resolveSaveDelay(250, !inMemory(memory))).toBe(250);
    } finally {
      memory.close();
      file.close();
    }
  });

  it('holds the HNSW graph of an in-memory database back until an export writes it, where a reopen finds it', async () => {
    const annVectors = clusteredVectors(261, { dim: 32, seed: 6 });
    const annItems = annVectors.map((embedding, i) => ({ id: `a${i}`, text: `note ${i}`, embedding }));
    const graphParts = (driver: SqlDriver) => driver.all<{ n: number }>('SELECT count(*) AS n FROM ann_index')[0]!.n;
    const built = (log: ReturnType<typeof recorder>) => log.messages.some((m) => m.startsWith('ann: HNSW built over 260'));

    const memory = await SqliteWasmDriver.open();
    const quiet = recorder();
    const mem = await openMemory({ storage: memory, embedder: null, ann: { threshold: 200, saveDelayMs: 0 }, logger: quiet.logger });
    stores.push(mem);
    await mem.storeMany(annItems.slice(0, 260));
    await until(() => built(quiet));
    // Only an export reads an in-memory database's saved indexes: written when built, the graph was ~16 MB more of its pages at 100k.
    expect(graphParts(memory)).toBe(0);
    await mem.store(annItems[260]!);
    const bytes = await mem.exportDatabase();
    expect(graphParts(memory)).toBeGreaterThan(0);
    const reopenedLog = recorder();
    const reopened = await openMemory({ storage: await SqliteWasmDriver.open({ bytes }), embedder: null, ann: { threshold: 200 }, logger: reopenedLog.logger });
    stores.push(reopened);
    await reopened.ready();
    await until(() => reopenedLog.messages.some((m) => m.startsWith('ann: HNSW restored from saved bytes')));
  });

  it('saves the derived indexes at close into a file (the HNSW graph when built), and writes nothing into an in-memory database, built or closing', async () => {
    /** The driver, recording every statement that writes a saved index. */
    const recording = (inner: SqlDriver, saves: string[]) => notingDriver(inner, /INTO (derived_index|ann_index)/, saves);
    const annVectors = clusteredVectors(240, { dim: 32, seed: 7 });
    const annItems = annVectors.map((embedding, i) => ({ id: `c${i}`, text: `closing note ${i}`, embedding }));
    for (const inFile of [false, true]) {
      const saves: string[] = [];
      const path = join(dir, 'closing.db');
      const inner = inFile ? await SqliteFileDriver.open(path) : await SqliteWasmDriver.open();
      const log = recorder();
      const mem = await openMemory({ storage: recording(inner, saves), embedder: null, ann: { threshold: 200 }, saveIndexesAfterMs: false, logger: log.logger });
      await mem.storeMany(annItems);
      await until(() => log.messages.some((m) => m.startsWith('ann: HNSW built over 240')));
      if (!inFile) {
        await mem.close();
        expect(saves).toEqual([]);
        continue;
      }
      expect(saves.length).toBeGreaterThan(0);
      expect(saves.every((sql) => sql.includes('INTO ann_index'))).toBe(true);
      const built = saves.length;
      await mem.close();
      expect(saves.slice(built).length).toBeGreaterThan(0);
      expect(saves.slice(built).every((sql) => sql.includes('INTO derived_index'))).toBe(true);
      const reopened = await SqliteFileDriver.open(path);
      try {
        const names = reopened.all<{ name: string }>("SELECT name FROM derived_index UNION ALL SELECT name FROM ann_index").map((r) => r.name);
        expect(names).toEqual(expect.arrayContaining(['lexical', 'entities', 'quantized', 'dense']));
      } finally {
        reopened.close();
      }
    }
  });

  it('leaves graph changes out of the quiet save, and a reopen after no close serves the saved graph with them in its tail', async () => {
    const annVectors = clusteredVectors(262, { dim: 32, seed: 8 });
    const annItems = annVectors.map((embedding, i) => ({ id: `q${i}`, text: `quiet note ${i}`, embedding }));
    const path = join(dir, 'few-changes.db');
    const graphWrites: string[] = [];
    const inner = await SqliteFileDriver.open(path);
    const driver: SqlDriver = {
      name: inner.name,
      exec: (sql, params) => (/INTO ann_index/.test(sql) && graphWrites.push(sql), inner.exec(sql, params)),
      all: (sql, params) => inner.all(sql, params),
      transaction: (fn) => inner.transaction(fn),
      close: () => inner.close(),
    };
    const log = recorder();
    // The graph's own repair timer is out of the way: what is checked is the store's quiet save.
    const mem = await openMemory({ storage: driver, embedder: null, ann: { threshold: 200, saveDelayMs: 2 ** 30 }, saveIndexesAfterMs: 10, logger: log.logger });
    await mem.storeMany(annItems.slice(0, 260));
    await until(() => log.messages.some((m) => m.startsWith('ann: HNSW built over 260')));
    const afterBuild = graphWrites.length;
    expect(afterBuild).toBeGreaterThan(0);
    const quietSaves = () => log.messages.filter((m) => m === SAVED).length;
    const before = quietSaves();
    // Two changes in 261 vectors: under a hundredth of the graph.
    await mem.store(annItems[260]!);
    await mem.forget('q5');
    await until(() => quietSaves() > before);
    expect(graphWrites.length).toBe(afterBuild);
    // Not closed, as a tab or an evicted Durable Object is not: the next open repairs the saved graph.
    inner.close();
    const reopenedLog = recorder();
    const reopened = await openMemory({ storage: path, embedder: null, ann: { threshold: 200 }, logger: reopenedLog.logger });
    stores.push(reopened);
    await until(() => reopenedLog.messages.some((m) => m.startsWith('ann: HNSW restored from saved bytes')));
    expect(reopenedLog.messages.some((m) => m.startsWith('ann: bringing'))).toBe(false);
    expect(ids(await reopened.recall('quiet note', { mode: 'vector', k: 1, queryEmbedding: annVectors[260]! }))).toEqual(['q260']);
    expect(ids(await reopened.recall('quiet note', { mode: 'vector', k: 20, queryEmbedding: annVectors[5]! }))).not.toContain('q5');
  });

  /** A file store's driver noting each saved index's name as it is written to the derived files. */
  async function notingSaves(path: string, events: string[], onPart: (name: string) => void = () => {}): Promise<SqlDriver> {
    const inner = await SqliteFileDriver.open(path);
    const files = inner.derived!;
    return {
      name: inner.name,
      exec: (sql, params) => inner.exec(sql, params),
      all: (sql, params) => inner.all(sql, params),
      transaction: (fn) => inner.transaction(fn),
      derived: {
        ...files,
        write: (name, stamp, bytes) => {
          events.push(name);
          onPart(name);
          files.write(name, stamp, bytes);
        },
      },
      close: () => inner.close(),
    };
  }

  it('saves a part per slice of background work, so other work runs between the parts', async () => {
    const events: string[] = [];
    const log = recorder();
    const mem = await openMemory({ storage: await notingSaves(join(dir, 'sliced.db'), events), embedder: null, saveIndexesAfterMs: 10, logger: log.logger });
    stores.push(mem);
    await mem.storeMany(items);
    let ticking = true;
    const tick = () => {
      events.push('tick');
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    await until(() => log.messages.includes(SAVED));
    ticking = false;
    expect(events.filter((e) => e !== 'tick')).toEqual(['lexical', 'entities', 'catalog', 'edge-types', 'quantized']);
    const between = (from: string, to: string) => events.slice(events.indexOf(from), events.indexOf(to));
    expect(between('lexical', 'entities')).toContain('tick');
    expect(between('edge-types', 'quantized')).toContain('tick');
  });

  it('stops a quiet save that a write overtakes, and saves again once that write goes quiet', async () => {
    const events: string[] = [];
    const log = recorder();
    const path = join(dir, 'overtaken.db');
    let mem!: HybridMemory;
    let overtaken = false;
    // The write lands between the save's first part and its next.
    const driver = await notingSaves(path, events, (name) => {
      if (name !== 'lexical' || overtaken) return;
      overtaken = true;
      void mem.store(items[49]!);
    });
    mem = await openMemory({ storage: driver, embedder: null, saveIndexesAfterMs: 10, logger: log.logger });
    await mem.storeMany(items.slice(0, 49));
    await until(() => log.messages.includes(SAVED));
    expect(events).toEqual(['lexical', 'lexical', 'entities', 'catalog', 'edge-types', 'quantized']);
    expect(log.messages.filter((m) => m === SAVED)).toHaveLength(1);
    const expected = await answers(mem);
    await mem.close();
    // The quiet save left nothing for close to write.
    expect(events).toHaveLength(6);
    const reopenedLog = recorder();
    const reopened = await openMemory({ storage: path, embedder: null, logger: reopenedLog.logger });
    stores.push(reopened);
    expect(reopenedLog.messages).toEqual(expect.arrayContaining(['loaded the saved lexical index', 'loaded the saved entity index', 'loaded the saved catalog']));
    expect(await answers(reopened)).toEqual(expected);
  });

  it('refuses a delay that is not a whole number of ms or false, naming open and the value', async () => {
    for (const bad of [-1, 1.5, '5000', true, null, 2 ** 31]) {
      await expect(HybridMemory.open({ embedder: null, saveIndexesAfterMs: bad as never })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/open.*saveIndexesAfterMs/),
      });
    }
  });
});
