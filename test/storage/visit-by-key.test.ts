/**
 * `visitByKey` runs one statement per key through each driver's fast path (SQLite-WASM's C API,
 * better-sqlite3's raw rows): a recall reads its hits' texts this way, so every value type, a key
 * with no row or several, and a statement reused with other keys must come back as `all` gives them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridMindError } from '../../src/errors.js';
import type { SqlDriver, SqlValue } from '../../src/storage/driver.js';
import { SqliteFileDriver } from '../../src/storage/node-file.js';
import { SqliteWasmDriver } from '../../src/storage/sqlite-wasm.js';

const dir = mkdtempSync(join(tmpdir(), 'hybridmind-visit-by-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const drivers: Array<[string, () => Promise<SqlDriver>]> = [
  ['SQLite-WASM', () => SqliteWasmDriver.open()],
  ['better-sqlite3 file', () => SqliteFileDriver.open(join(dir, `rows-${Math.random()}.db`))],
];

/** Blobs may be views valid only during the call (or Buffers): copied to plain arrays, as a caller that keeps them does. */
const plain = (values: readonly SqlValue[]): SqlValue[] => values.map((v) => (v instanceof Uint8Array ? new Uint8Array(v) : v));

/** Runs `use` on a new database of this driver, closed after. */
async function withDb(open: () => Promise<SqlDriver>, use: (db: SqlDriver) => void): Promise<void> {
  const db = await open();
  try {
    use(db);
  } finally {
    db.close();
  }
}

/** What `fn` threw, or null. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return null;
}

function visited(db: SqlDriver, sql: string, keys: number[]): Array<[number, SqlValue[]]> {
  const rows: Array<[number, SqlValue[]]> = [];
  db.visitByKey!(sql, keys, (key, values) => rows.push([key, plain(values)]));
  return rows;
}

describe.each(drivers)('visitByKey (%s)', (_, open) => {
  it('hands each key its rows, in the order of the keys, with every value type as all() reads it', () =>
    withDb(open, (db) => {
      db.exec('CREATE TABLE t (no INTEGER PRIMARY KEY, text TEXT, n INTEGER, r REAL, b BLOB, z)');
      db.exec('INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)', [7, 'sept — ✓', 1_700_000_000_000, 0.25, new Uint8Array([1, 2, 3]), null]);
      db.exec('INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)', [-3, '', -42, -1.5, new Uint8Array(0), 'x']);
      db.exec('INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)', [2_147_483_647, 'last', 0, 1e300, new Uint8Array([255]), 5]);
      const sql = 'SELECT text, n, r, b, z FROM t WHERE no = ?';
      const rows = visited(db, sql, [2_147_483_647, 99, 7, -3, 7]);
      expect(rows.map(([key]) => key)).toEqual([2_147_483_647, 7, -3, 7]);
      const byAll = (no: number) => plain(Object.values(db.all(sql, [no])[0]!));
      for (const [key, values] of rows) expect(values).toEqual(byAll(key));
      expect(rows[1]![1]).toEqual(['sept — ✓', 1_700_000_000_000, 0.25, new Uint8Array([1, 2, 3]), null]);
      // The cached statement again, with fewer keys and none: nothing of the last call's binding stays.
      expect(visited(db, sql, [-3]).map(([key, values]) => [key, values[0]])).toEqual([[-3, '']]);
      expect(visited(db, sql, [])).toEqual([]);
    }));

  it('hands a key every row its statement returns', () =>
    withDb(open, (db) => {
      db.exec('CREATE TABLE e (src INTEGER, dst INTEGER)');
      for (const [src, dst] of [[1, 10], [2, 20], [1, 11], [1, 12]] as const) db.exec('INSERT INTO e VALUES (?, ?)', [src, dst]);
      expect(visited(db, 'SELECT dst FROM e WHERE src = ? ORDER BY dst', [1, 3, 2])).toEqual([[1, [10]], [1, [11]], [1, [12]], [2, [20]]]);
    }));

  it('refuses a key that is not an int32, and reports SQL errors as STORAGE naming the method', () =>
    withDb(open, (db) => {
      db.exec('CREATE TABLE t (no INTEGER PRIMARY KEY, text TEXT)');
      db.exec("INSERT INTO t VALUES (1, 'one')");
      for (const key of [1.5, 2 ** 31, Number.NaN]) {
        const error = thrown(() => visited(db, 'SELECT text FROM t WHERE no = ?', [1, key]));
        expect(error).toBeInstanceOf(HybridMindError);
        expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
        expect((error as Error).message).toContain('SqlDriver.visitByKey');
        expect((error as Error).message).toContain(String(key));
      }
      // The refused call left the statement usable.
      expect(visited(db, 'SELECT text FROM t WHERE no = ?', [1])).toEqual([[1, ['one']]]);
      const error = thrown(() => visited(db, 'SELECT text FROM missing WHERE no = ?', [1]));
      expect(error).toMatchObject({ code: 'STORAGE', method: 'SqlDriver.visitByKey' });
      expect((error as Error).message).toMatch(/missing/);
    }));
});
