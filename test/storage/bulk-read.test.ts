/**
 * `readVectorsByNo` is what a dense scan without f32 copies re-scores from: whatever order SQLite
 * visits the rows in, each vector must land in the slot of the number asked for.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readVectorsByNo } from '../../src/storage/bulk-read.js';
import type { SqlDriver } from '../../src/storage/driver.js';
import { SqliteFileDriver } from '../../src/storage/node-file.js';
import { SqliteWasmDriver } from '../../src/storage/sqlite-wasm.js';

const dir = mkdtempSync(join(tmpdir(), 'hybridmind-bulk-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const drivers: Array<[string, () => Promise<SqlDriver>]> = [
  ['SQLite-WASM', () => SqliteWasmDriver.open()],
  ['better-sqlite3 file', () => SqliteFileDriver.open(join(dir, `vectors-${++files}.db`))],
];

const vectorOf = (no: number, dim: number) => Float32Array.from({ length: dim }, (_, i) => no * 1_000 + i);

describe.each(drivers)('readVectorsByNo (%s)', (_, open) => {
  it('puts each vector where its number was asked for, NaN where the store has none', async () => {
    const dim = 5;
    const db = await open();
    try {
      db.exec('CREATE TABLE vectors (no INTEGER PRIMARY KEY, vector BLOB NOT NULL)');
      // Inserted out of order, so neither rowid nor insertion order matches the order asked.
      for (const no of [40, 7, 1_000, 3, 512]) db.exec('INSERT INTO vectors VALUES (?, ?)', [no, new Uint8Array(vectorOf(no, dim).buffer)]);
      const asked = [512, 3, 99, 1_000, 40];
      const into = new Float32Array(asked.length * dim);
      expect(readVectorsByNo(db, asked, into)).toBe(4);
      asked.forEach((no, i) => {
        const got = into.subarray(i * dim, (i + 1) * dim);
        if (no === 99) expect(Array.from(got).every(Number.isNaN)).toBe(true);
        else expect(got).toEqual(vectorOf(no, dim));
      });
      expect(readVectorsByNo(db, [], new Float32Array(0))).toBe(0);
    } finally {
      db.close();
    }
  });

  it('fills every position of a number asked twice, and refuses a vector of another width as CORRUPT', async () => {
    const dim = 5;
    const db = await open();
    try {
      db.exec('CREATE TABLE vectors (no INTEGER PRIMARY KEY, vector BLOB NOT NULL)');
      for (const no of [2, 9]) db.exec('INSERT INTO vectors VALUES (?, ?)', [no, new Uint8Array(vectorOf(no, dim).buffer)]);
      const into = new Float32Array(3 * dim);
      readVectorsByNo(db, [9, 2, 9], into);
      expect(into.subarray(0, dim)).toEqual(vectorOf(9, dim));
      expect(into.subarray(dim, 2 * dim)).toEqual(vectorOf(2, dim));
      expect(into.subarray(2 * dim)).toEqual(vectorOf(9, dim));
      db.exec('INSERT INTO vectors VALUES (?, ?)', [4, new Uint8Array(vectorOf(4, dim - 1).buffer)]);
      expect(() => readVectorsByNo(db, [2, 4], new Float32Array(2 * dim))).toThrow(expect.objectContaining({ code: 'CORRUPT' }));
    } finally {
      db.close();
    }
  });
});
