/**
 * An in-memory SQLite-WASM database keeps every page in the heap, so it is made with pages large
 * enough that 384-d vector rows leave little of them empty; bytes it is opened from keep the page
 * size they were written with.
 */
import { describe, expect, it } from 'vitest';
import { HybridMemory } from '../../src/index.js';
import type { SqlDriver } from '../../src/storage/driver.js';
import { SqliteWasmDriver } from '../../src/storage/sqlite-wasm.js';
import { loadSqlite3 } from '../../src/storage/sqlite3-module.js';
import { clusteredVectors } from '../support/clustered-vectors.js';

const DIM = 384;
const pageSize = (db: SqlDriver) => Number(db.all<{ page_size: number }>('PRAGMA page_size')[0]!.page_size);

describe('in-memory SQLite-WASM pages', () => {
  it('a new in-memory store packs its vectors with under 4% of their pages left empty', async () => {
    const driver = await SqliteWasmDriver.open();
    const mem = await HybridMemory.open({ storage: driver, embedder: null, dim: DIM, ann: false });
    try {
      expect(pageSize(driver)).toBe(32_768);
      await mem.storeMany(clusteredVectors(2000, { dim: DIM, seed: 3 }).map((embedding, i) => ({ id: `m${i}`, text: `note ${i}`, embedding })));
      const [stat] = driver.all<{ pages: number; payload: number }>("SELECT sum(pgsize) AS pages, sum(payload) AS payload FROM dbstat WHERE name = 'vectors'");
      // SQLite-WASM's default 8 KB pages hold five of these 1.5 KB rows: 6% of each page unused.
      expect(Number(stat!.pages) / Number(stat!.payload)).toBeLessThan(1.04);
    } finally {
      await mem.close();
    }
  });

  it('a database opened from bytes keeps the page size it was written with', async () => {
    const sqlite3 = await loadSqlite3();
    const raw = new sqlite3.oo1.DB(':memory:', 'c');
    let bytes: Uint8Array;
    try {
      raw.exec('PRAGMA page_size = 4096; CREATE TABLE t (x); INSERT INTO t VALUES (1)');
      bytes = sqlite3.capi.sqlite3_js_db_export(raw);
    } finally {
      raw.close();
    }
    const driver = await SqliteWasmDriver.open({ bytes });
    try {
      expect(pageSize(driver)).toBe(4096);
      expect(driver.all('SELECT x FROM t')).toEqual([{ x: 1 }]);
    } finally {
      driver.close();
    }
  });
});
