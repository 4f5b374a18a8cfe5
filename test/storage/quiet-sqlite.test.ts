/**
 * A failing statement reaches the caller as a coded error and nowhere else: SQLite-WASM's oo1 layer
 * would also print each one to the console, which a library must not do to its users' consoles.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HybridMindError } from '../../src/errors.js';
import { SqliteWasmDriver } from '../../src/storage/sqlite-wasm.js';
import { loadSqlite3 } from '../../src/storage/sqlite3-module.js';

/**
 * What the module warns through, as an app's `sqlite3ApiConfig` sets it: the module binds its
 * `warn` once, when it first loads, so a spy on `console.warn` would see it or not depending on
 * which test loaded it first.
 */
const warnings: unknown[][] = [];
const record = (...args: unknown[]) => void warnings.push(args);

beforeAll(async () => {
  (globalThis as { sqlite3ApiConfig?: unknown }).sqlite3ApiConfig = { warn: record, error: record };
  const sqlite3 = (await loadSqlite3()) as unknown as { config: { warn: (...args: unknown[]) => void } };
  sqlite3.config.warn('probe');
  // Were the module loaded before this file set its config, the assertions below would prove nothing.
  expect(warnings).toEqual([['probe']]);
});

beforeEach(() => {
  warnings.length = 0;
});

/** A database of one table with enough rows for several pages, as bytes. */
async function someBytes(): Promise<Uint8Array> {
  const db = await SqliteWasmDriver.open();
  db.exec('CREATE TABLE t (x TEXT)');
  for (let i = 0; i < 200; i++) db.exec('INSERT INTO t VALUES (?)', [`row ${i} `.repeat(20)]);
  const bytes = db.serialize();
  db.close();
  return bytes;
}

describe('SQLite-WASM statement failures', () => {
  it('throws a constraint failure as STORAGE without writing to the console', async () => {
    const db = await SqliteWasmDriver.open();
    db.exec('CREATE TABLE u (x INTEGER UNIQUE)');
    db.exec('INSERT INTO u VALUES (1)');
    let thrown: unknown;
    try {
      db.exec('INSERT INTO u VALUES (1)');
    } catch (error) {
      thrown = error;
    }
    db.close();
    expect(thrown).toBeInstanceOf(HybridMindError);
    expect((thrown as HybridMindError).code).toBe('STORAGE');
    expect((thrown as HybridMindError).message).toMatch(/UNIQUE constraint failed/);
    expect(warnings).toEqual([]);
  });

  it('throws a damaged page as CORRUPT without writing to the console', async () => {
    const bytes = await someBytes();
    const pageSize = new DataView(bytes.buffer, bytes.byteOffset).getUint16(16);
    // Page 2, the table's first page, gets a b-tree page type SQLite does not know.
    bytes[pageSize] = 0x7f;
    let thrown: unknown;
    try {
      const db = await SqliteWasmDriver.open({ bytes });
      try {
        db.all('SELECT count(*) AS n FROM t');
      } finally {
        db.close();
      }
    } catch (caught) {
      thrown = caught;
    }
    expect(thrown).toBeInstanceOf(HybridMindError);
    expect((thrown as HybridMindError).code).toBe('CORRUPT');
    expect(warnings).toEqual([]);
  });

  it('still passes the module\'s other warnings on', async () => {
    const sqlite3 = (await loadSqlite3()) as unknown as { config: { warn: (...args: unknown[]) => void } };
    sqlite3.config.warn('Ignoring inability to install OPFS sqlite3_vfs:', 'a reason');
    expect(warnings).toEqual([['Ignoring inability to install OPFS sqlite3_vfs:', 'a reason']]);
  });
});
