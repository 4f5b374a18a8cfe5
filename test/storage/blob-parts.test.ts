import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { partsOf, readParts, writeParts } from '../../src/storage/blob-parts.js';
import type { SqlDriver } from '../../src/storage/driver.js';
import { SqliteFileDriver } from '../../src/storage/node-file.js';
import { migrate } from '../../src/storage/schema.js';
import { piecesBytes, type PartedBytes } from '../../src/util/parted-bytes.js';
import { SqliteWasmDriver } from '../../src/storage/sqlite-wasm.js';

const dir = mkdtempSync(join(tmpdir(), 'hybridmind-parts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const drivers: Array<[string, () => Promise<SqlDriver>]> = [
  ['SQLite-WASM', () => SqliteWasmDriver.open()],
  ['better-sqlite3 file', () => SqliteFileDriver.open(join(dir, `${files++}.db`))],
];

const bytesOf = (length: number, seed: number) => Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff);
const rowsOf = (db: SqlDriver, table: string) => db.all<{ name: string; n: number }>(`SELECT name, length(bytes) AS n FROM ${table} ORDER BY name`);

describe.each(drivers)('values kept in parts (%s)', (_, open) => {
  /** A fresh store with the library's schema, closed after `use`. */
  async function withDb(use: (db: SqlDriver) => void): Promise<void> {
    const db = await open();
    migrate(db);
    try {
      use(db);
    } finally {
      db.close();
    }
  }

  it('reads back every length, across part boundaries, and a shorter value leaves no stale parts', () =>
    withDb((db) => {
      for (const length of [0, 1, 99, 100, 101, 1_000, 1_050]) {
        const value = bytesOf(length, length);
        writeParts(db, 'ann_index', 'dense', { updated_at: 1 }, value, 100);
        expect(readParts(db, 'ann_index', 'dense')).toEqual(value);
        expect(rowsOf(db, 'ann_index')).toHaveLength(Math.max(1, Math.ceil(length / 100)));
      }
      writeParts(db, 'ann_index', 'dense', { updated_at: 2 }, bytesOf(150, 3), 100);
      expect(rowsOf(db, 'ann_index')).toEqual([{ name: 'dense', n: 100 }, { name: 'dense#1', n: 50 }]);
      // Parts of another value with a name that starts the same are not this value's.
      writeParts(db, 'ann_index', 'dense2', { updated_at: 2 }, bytesOf(250, 4), 100);
      expect(readParts(db, 'ann_index', 'dense')).toEqual(bytesOf(150, 3));
      expect(readParts(db, 'ann_index', 'dense2')).toEqual(bytesOf(250, 4));
      expect(readParts(db, 'ann_index', 'sparse')).toBeNull();
    }));

  it('writes a value given in pieces as the same parts as the joined value, wherever the pieces break', () =>
    withDb((db) => {
      const value = bytesOf(1_050, 7);
      for (const cuts of [[0], [30], [100], [130, 160], [0, 0, 1_050], [99, 101, 700, 1_049]]) {
        const ends = [...cuts, value.length];
        const pieces = ends.map((end, i) => value.subarray(i === 0 ? 0 : ends[i - 1]!, end));
        writeParts(db, 'ann_index', 'dense', { updated_at: 1 }, piecesBytes(pieces), 100);
        expect(readParts(db, 'ann_index', 'dense')).toEqual(value);
        expect(rowsOf(db, 'ann_index').map((r) => r.n).sort((a, b) => a - b)).toEqual([50, ...Array(10).fill(100)]);
      }
      // Pieces that are not the length they say: refused, and the value kept stays as it was.
      for (const [length, piece] of [[300, 200], [150, 250]] as const) {
        const parted: PartedBytes = { length, read: (visit) => visit(bytesOf(piece, 1), 0) !== false };
        expect(() => writeParts(db, 'ann_index', 'dense', { updated_at: 1 }, parted, 100)).toThrowError(`the pieces do not make the ${length} bytes`);
        expect(readParts(db, 'ann_index', 'dense')).toEqual(value);
      }
      writeParts(db, 'ann_index', 'dense', { updated_at: 1 }, piecesBytes([]), 100);
      expect(rowsOf(db, 'ann_index')).toEqual([{ name: 'dense', n: 0 }]);
    }));

  it('reads a one-row value an earlier version saved, and nothing from parts that do not run 0, 1, 2, …', () =>
    withDb((db) => {
      db.exec('INSERT INTO ann_index (name, bytes, updated_at) VALUES (?, ?, 0)', ['dense', bytesOf(5_000, 1)]);
      expect(readParts(db, 'ann_index', 'dense')).toEqual(bytesOf(5_000, 1));

      writeParts(db, 'ann_index', 'dense', { updated_at: 1 }, bytesOf(450, 2), 100);
      db.exec("DELETE FROM ann_index WHERE name = 'dense#2'");
      expect(readParts(db, 'ann_index', 'dense')).toBeNull();
      writeParts(db, 'ann_index', 'dense', { updated_at: 1 }, bytesOf(450, 2), 100);
      db.exec("UPDATE ann_index SET bytes = 'text, not a blob' WHERE name = 'dense#3'");
      expect(readParts(db, 'ann_index', 'dense')).toBeNull();
      writeParts(db, 'ann_index', 'dense', { updated_at: 1 }, bytesOf(450, 2), 100);
      db.exec("INSERT INTO ann_index (name, bytes, updated_at) VALUES ('dense#x', x'00', 1)");
      expect(readParts(db, 'ann_index', 'dense')).toBeNull();
    }));

  it('hands a reader the parts in order with their offsets, and stops where the reader says', () =>
    withDb((db) => {
      const value = bytesOf(450, 3);
      writeParts(db, 'ann_index', 'dense', { updated_at: 1 }, value, 100);
      const parted = partsOf(db, 'ann_index', 'dense')!;
      expect(parted.length).toBe(450);
      const seen: Array<[number, number[]]> = [];
      expect(parted.read((bytes, at) => void seen.push([at, [...bytes]]))).toBe(true);
      expect(seen.map(([at]) => at)).toEqual([0, 100, 200, 300, 400]);
      expect(seen.flatMap(([, bytes]) => bytes)).toEqual([...value]);
      let visits = 0;
      expect(parted.read(() => (++visits === 2 ? false : undefined))).toBe(false);
      expect(visits).toBe(2);
      db.exec("DELETE FROM ann_index WHERE name = 'dense#2'");
      expect(partsOf(db, 'ann_index', 'dense')!.read(() => undefined)).toBe(false);
      expect(partsOf(db, 'ann_index', 'sparse')).toBeNull();
    }));

  it('counts only the parts whose column matches, so a value half rewritten under another stamp is not read', () =>
    withDb((db) => {
      writeParts(db, 'derived_index', 'lexical', { stamp: 'g1' }, bytesOf(250, 5), 100);
      expect(readParts(db, 'derived_index', 'lexical', { column: 'stamp', value: 'g1' })).toEqual(bytesOf(250, 5));
      expect(readParts(db, 'derived_index', 'lexical', { column: 'stamp', value: 'g2' })).toBeNull();
      db.exec("UPDATE derived_index SET stamp = 'g2' WHERE name = 'lexical#1'");
      expect(readParts(db, 'derived_index', 'lexical', { column: 'stamp', value: 'g1' })).toBeNull();
      expect(readParts(db, 'derived_index', 'lexical', { column: 'stamp', value: 'g2' })).toBeNull();
    }));

  it('keeps the old value when writing the new one fails part way', () =>
    withDb((db) => {
      writeParts(db, 'ann_index', 'dense', { updated_at: 1 }, bytesOf(250, 6), 100);
      // A NOT NULL column left null fails the first insert, after the old parts were deleted.
      expect(() => writeParts(db, 'ann_index', 'dense', { updated_at: null }, bytesOf(300, 7), 100)).toThrow();
      expect(readParts(db, 'ann_index', 'dense')).toEqual(bytesOf(250, 6));
    }));
});

describe('values kept in parts, written again (better-sqlite3 file, WAL)', () => {
  it('writes only the pages whose bytes changed, not the whole value', async () => {
    const db = await SqliteFileDriver.open(join(dir, `${files++}.db`));
    migrate(db);
    try {
      const value = bytesOf(20 * 65_536, 9);
      writeParts(db, 'derived_index', 'quantized', { stamp: 'g1 m1:1' }, value, 65_536);
      /** WAL frames (pages) written by `write`, from an emptied log. */
      const framesOf = (write: () => void): number => {
        db.all('PRAGMA wal_checkpoint(TRUNCATE)');
        write();
        return Number(db.all<{ log: number }>('PRAGMA wal_checkpoint(PASSIVE)')[0]!.log);
      };
      const changed = value.slice();
      changed[700_000] = 0xff - changed[700_000]!;
      const pages = value.length / Number(db.all<{ page_size: number }>('PRAGMA page_size')[0]!.page_size);
      const frames = framesOf(() => writeParts(db, 'derived_index', 'quantized', { stamp: 'g2 m2:2' }, changed, 65_536));
      // The rows' new stamps (a few leaf pages), the one page with the changed byte, the commit.
      expect(frames).toBeGreaterThan(0);
      expect(frames).toBeLessThan(pages / 20);
      expect(readParts(db, 'derived_index', 'quantized', { column: 'stamp', value: 'g2 m2:2' })).toEqual(changed);
      // A value that moved by one byte is (nearly) every page again, and still reads back whole.
      const shifted = new Uint8Array(changed.length);
      shifted.set(changed.subarray(0, changed.length - 1), 1);
      expect(framesOf(() => writeParts(db, 'derived_index', 'quantized', { stamp: 'g3 m3:3' }, shifted, 65_536))).toBeGreaterThan(pages * 0.9);
      expect(readParts(db, 'derived_index', 'quantized', { column: 'stamp', value: 'g3 m3:3' })).toEqual(shifted);
    } finally {
      db.close();
    }
  });
});
