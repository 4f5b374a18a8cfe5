/**
 * importSnapshotInto, the import path for runtimes without SQLite-WASM, judged against
 * HybridMemory.importSnapshot (which reads store.db with SQLite-WASM): on every archive below both
 * must agree — accepted, or refused with the same code — and a refusal must leave the target's
 * rows exactly as they were. The target here is a SQLite-WASM driver; workerd.test.ts runs the
 * same path on a Durable Object.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DurableObjectDriver, type DurableObjectStorageLike } from '../../src/edge/durable-object-driver.js';
import { importSnapshotInto } from '../../src/edge/import-snapshot.js';
import { HybridMemory, HybridMindError, type ErrorCode } from '../../src/index.js';
import type { SqlDriver } from '../../src/storage/driver.js';
import { SqliteWasmDriver } from '../../src/storage/sqlite-wasm.js';
import { HashEmbedder } from '../support/hash-embedder.js';
import { clone, repack, unpack, withStoreDb, type Unpacked } from '../snapshot/support/archive.js';

const DIM = 16;
const embedder = new HashEmbedder(DIM);
let good: Uint8Array;
let parts: Unpacked;

async function target(): Promise<{ driver: SqliteWasmDriver; rows: () => string }> {
  const mem = await HybridMemory.open({ embedder, ann: false });
  await mem.store({ id: 'existing', text: 'the target already holds this memory' });
  await mem.ready();
  const driver = await SqliteWasmDriver.open({ bytes: await mem.exportDatabase() });
  await mem.close();
  const rows = () => JSON.stringify(['meta', 'memories', 'vectors', 'edges'].map((t) => driver.all(`SELECT * FROM ${t} ORDER BY 1`)), (_, v) => (v instanceof Uint8Array ? [...v] : v));
  return { driver, rows };
}

/** Just enough of `ctx.storage` over a SQLite-WASM driver to call `serialize()` through the Durable Object driver. */
function storageOf(db: SqliteWasmDriver): DurableObjectStorageLike {
  return { sql: { exec: (query, ...bindings) => ({ toArray: () => db.all(query, bindings as never[]) as never }) }, transactionSync: (fn) => db.transaction(fn) };
}

async function codeOf(run: () => Promise<unknown>): Promise<ErrorCode | 'ok'> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    if (error instanceof HybridMindError) return error.code;
    throw error;
  }
}

beforeAll(async () => {
  const mem = await HybridMemory.open({ embedder, ann: false });
  await mem.storeMany([
    { id: 'adr-003', text: 'ADR-003: agent memory lives in IndexedDB' },
    { id: 'adr-007', text: 'ADR-007: SQLite on OPFS is the source of truth', metadata: { team: 'core' } },
    { id: 'ferry', text: 'Order #4821 shipped to Rottnest island by ferry' },
  ]);
  await mem.relate('adr-007', 'adr-003', 'SUPERSEDES');
  await mem.ready();
  good = await mem.exportSnapshot();
  parts = unpack(good);
  await mem.close();
});

describe('importSnapshotInto', () => {
  it('replaces the content; a store opened over the driver answers like one imported with SQLite-WASM', async () => {
    const { driver } = await target();
    const manifest = await importSnapshotInto(driver, good, { embedder });
    expect(manifest.counts).toEqual({ memories: 3, edges: 1, vectors: 3 });
    const mem = await HybridMemory.open({ storage: driver, embedder, ann: false });
    const reference = await HybridMemory.importSnapshot(good, { embedder, ann: false });
    try {
      expect(await mem.get('existing')).toBeNull();
      expect((await mem.stats()).readiness.semantic).toBe(3);
      const query = 'where does agent memory live?';
      expect((await mem.recall(query)).map((h) => [h.id, h.status])).toEqual((await reference.recall(query)).map((h) => [h.id, h.status]));
    } finally {
      await mem.close();
      await reference.close();
    }
  });

  const tampered: Array<[string, () => Promise<Uint8Array>]> = [
    ['an edge pointing at a missing memory', async () => repack(await withStoreDb(parts, ['INSERT INTO edges (id, src, dst, type, weight, valid_from, created_at) VALUES (\'e-x\', 1, 999, \'RELATES_TO\', 1, 0, 0)']))],
    ['a memory time that is text', async () => repack(await withStoreDb(parts, ["UPDATE memories SET created_at = 'yesterday' WHERE id = 'ferry'"]))],
    ['metadata that is not a JSON object', async () => repack(await withStoreDb(parts, ["UPDATE memories SET metadata = '[1]' WHERE id = 'ferry'"]))],
    ['a vector of the wrong length', async () => repack(await withStoreDb(parts, ['UPDATE vectors SET vector = x\'00000000\' WHERE no = 1']))],
    ['an extra table', async () => repack(await withStoreDb(parts, ['CREATE TABLE evil (x)']))],
    ['a trigger', async () => repack(await withStoreDb(parts, ['CREATE TRIGGER t AFTER INSERT ON memories BEGIN SELECT 1; END']))],
    ['a memory missing from store.db', async () => repack(await withStoreDb(parts, ["DELETE FROM memories WHERE id = 'ferry'"]))],
    ['a text edited in store.db only', async () => repack(await withStoreDb(parts, ["UPDATE memories SET text = 'changed' WHERE id = 'ferry'"]))],
    ['a newer schema version', async () => repack(await withStoreDb(parts, ["UPDATE meta SET value = '99' WHERE key = 'schema_version'"]))],
    ['store.db that is not a database', async () => {
      const c = clone(parts);
      c.parts.set('store.db', new TextEncoder().encode('SQLite format 3\0'.padEnd(8192, 'x')));
      return repack(c);
    }],
    ['store.db with a b-tree page overwritten', async () => {
      const c = clone(parts);
      const db = c.parts.get('store.db')!;
      const pageSize = new DataView(db.buffer, db.byteOffset).getUint16(16);
      db.fill(0xff, pageSize + 8, pageSize + 200);
      return repack(c);
    }],
    ['store.db cut short', async () => {
      const c = clone(parts);
      const db = c.parts.get('store.db')!;
      c.parts.set('store.db', db.subarray(0, new DataView(db.buffer, db.byteOffset).getUint16(16)));
      return repack(c);
    }],
    ['a derived HNSW blob (ignored, not trusted)', async () => repack(await withStoreDb(parts, ["INSERT INTO ann_index (name, bytes, updated_at) VALUES ('hnsw', x'deadbeef', 0)"]))],
  ];

  it.each(tampered)('agrees with importSnapshot on %s, and leaves the target as it was when refusing', async (_, make) => {
    const bytes = await make();
    const expected = await codeOf(async () => (await HybridMemory.importSnapshot(bytes, { embedder, ann: false })).close());
    const { driver, rows } = await target();
    const before = rows();
    const got = await codeOf(() => importSnapshotInto(driver as SqlDriver, bytes, { embedder }));
    expect(got).toBe(expected);
    if (got !== 'ok') expect(rows()).toBe(before);
    else expect(driver.all('SELECT count(*) AS n FROM ann_index')).toEqual([{ n: 0 }]);
    driver.close();
  });

  it('leaves tables that are not the store\'s alone (a Durable Object\'s _cf_KV)', async () => {
    const { driver } = await target();
    driver.exec("CREATE TABLE _cf_KV (key TEXT PRIMARY KEY, value BLOB); INSERT INTO _cf_KV VALUES ('k', x'01')");
    await importSnapshotInto(driver, good, { embedder });
    expect(driver.all('SELECT key FROM _cf_KV')).toEqual([{ key: 'k' }]);
    expect(driver.all('SELECT count(*) AS n FROM memories')).toEqual([{ n: 3 }]);
    // And an export from such a database leaves them out, indexes included.
    const copy = await SqliteWasmDriver.open({ bytes: new DurableObjectDriver(storageOf(driver)).serialize() });
    expect(copy.all("SELECT name FROM sqlite_master WHERE tbl_name LIKE '%cf%'")).toEqual([]);
    expect(copy.all('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    copy.close();
    driver.close();
  });

  it('refuses a snapshot of another model before touching the target', async () => {
    const { driver, rows } = await target();
    const before = rows();
    await expect(importSnapshotInto(driver, good, { embedder: new HashEmbedder(8) })).rejects.toMatchObject({ code: 'DIMENSION_MISMATCH' });
    await expect(importSnapshotInto(driver, good, { embedder: { id: 'other', dim: DIM, embed: embedder.embed.bind(embedder) } })).rejects.toMatchObject({ code: 'MODEL_MISMATCH' });
    expect(rows()).toBe(before);
    driver.close();
  });
});
