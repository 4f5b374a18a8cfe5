/**
 * Large derived values (a saved HNSW graph, the lexical index, the vector codes) kept as parts
 * of at most {@link PART_BYTES}: part 0 under the value's name (where a one-row save put the
 * whole value, still read), part i under `name#i`. One value of hundreds of MB made SQLite hold
 * copies of it whole in its heap to write and to read it, and WebAssembly memory never shrinks:
 * an in-memory SQLite-WASM that wrote and read back one 160 MB value (HNSW over 100k vectors)
 * grew to 555 MiB, in 1 MiB parts to 180 MiB (the value itself is 160). Past 10⁹ bytes (HNSW
 * over 1M vectors) SQLite refuses to bind one at all.
 */
import { isParted, joinParts, wholeBytes, type PartedBytes } from '../util/parted-bytes.js';
import { eachRow, type SqlDriver, type SqlValue } from './driver.js';

export const PART_BYTES = 1 << 20;

/** The tables holding parted values: both have `name` and `bytes` columns. */
export type PartTable = 'ann_index' | 'derived_index';

/** Every part of the value named by its two parameters (the same name twice: not every driver numbers parameters; names carry no GLOB metacharacters, they are the library's own). */
const PARTS_OF = "(name = ? OR name GLOB ? || '#*')";

/**
 * Replaces the value under `name` with `bytes`, cut into parts, each row also holding `columns`;
 * one transaction, so a reader sees the old value or the new one.
 *
 * A part is written over its row rather than deleted and inserted: SQLite then overwrites a row of
 * the same size in place and writes only the pages whose bytes differ, so saving a value that
 * changed in a few places (the saved indexes after one new memory) writes those pages, not the
 * whole value (42 MB of WAL for 40 unchanged 1 MiB parts deleted and inserted, 0.06 MB upserted).
 */
export function writeParts(db: SqlDriver, table: PartTable, name: string, columns: Record<string, SqlValue>, bytes: Uint8Array | PartedBytes, partBytes = PART_BYTES): void {
  const extra = Object.keys(columns);
  const upsert =
    `INSERT INTO ${table} (name, bytes${extra.map((c) => `, ${c}`).join('')}) VALUES (?, ?${extra.map(() => ', ?').join('')}) ` +
    `ON CONFLICT (name) DO UPDATE SET bytes = excluded.bytes${extra.map((c) => `, ${c} = excluded.${c}`).join('')}`;
  const values = Object.values(columns);
  db.transaction(() => {
    const written = new Set<string>();
    cutParts(isParted(bytes) ? bytes : wholeBytes(bytes), partBytes, (part, index) => {
      const partName = index === 0 ? name : `${name}#${index}`;
      db.exec(upsert, [partName, part, ...values]);
      written.add(partName);
    });
    // What a longer value left past the new end, and any row that only looks like a part.
    for (const { name: stale } of db.all<{ name: string }>(`SELECT name FROM ${table} WHERE ${PARTS_OF}`, [name, name])) {
      if (!written.has(stale)) db.exec(`DELETE FROM ${table} WHERE name = ?`, [stale]);
    }
  });
}

/**
 * Hands `value` to `write` in parts of `partBytes` (the last shorter; one empty part for an empty
 * value), each a view of its piece where it lies in one, a copy only where it spans two.
 */
function cutParts(value: PartedBytes, partBytes: number, write: (part: Uint8Array, index: number) => void): void {
  const broken = () => new Error(`writeParts: the pieces do not make the ${value.length} bytes the value says it holds`);
  let index = 0;
  let pending: Uint8Array | null = null;
  let filled = 0;
  const whole = value.read((piece) => {
    for (let at = 0; at < piece.length;) {
      const size = Math.min(partBytes, value.length - index * partBytes);
      if (size <= 0) throw broken();
      if (pending === null && piece.length - at >= size) {
        write(piece.subarray(at, at + size), index++);
        at += size;
        continue;
      }
      pending ??= new Uint8Array(size);
      const n = Math.min(size - filled, piece.length - at);
      pending.set(piece.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === size) {
        write(pending, index++);
        pending = null;
        filled = 0;
      }
    }
  });
  if (!whole || pending !== null || Math.min(index * partBytes, value.length) !== value.length) throw broken();
  if (index === 0) write(new Uint8Array(0), 0);
}

/**
 * The value under `name`, its parts joined; only rows whose `where` column equals its value
 * count. Null when there is none, or when its parts are not 0, 1, 2, … blobs (a damaged or
 * half-foreign table): the caller then rebuilds what the value held.
 */
export function readParts(db: SqlDriver, table: PartTable, name: string, where?: { column: string; value: SqlValue }): Uint8Array | null {
  const parted = partsOf(db, table, name, where);
  return parted && joinParts(parted);
}

/**
 * The value under `name` (as in `readParts`) for a reader that takes it part by part, each a view
 * of the database's memory where the driver has `visitRows`: null when there is none; its `read`
 * is false when the parts are not 0, 1, 2, … blobs adding up to its length.
 */
export function partsOf(db: SqlDriver, table: PartTable, name: string, where?: { column: string; value: SqlValue }): PartedBytes | null {
  const filter = where ? ` AND ${where.column} = ?` : '';
  const also: SqlValue[] = where ? [where.value] : [];
  const size = db.all<{ n: number; total: number | null }>(`SELECT count(*) AS n, sum(length(bytes)) AS total FROM ${table} WHERE ${PARTS_OF}${filter}`, [name, name, ...also])[0];
  const count = Number(size?.n ?? 0);
  if (count === 0) return null;
  const length = Number(size!.total);
  // One lookup per part rather than one ordered query, which SQLite answers by sorting the rows
  // and so holding every part in its heap at once.
  const sql = `SELECT bytes FROM ${table} WHERE name = ?${filter}`;
  return {
    length,
    read(visit) {
      let at = 0;
      let parts = 0;
      let stopped = false;
      const take = ([bytes]: readonly SqlValue[]) => {
        if (!(bytes instanceof Uint8Array) || at + bytes.length > length) return;
        stopped = visit(bytes, at) === false;
        at += bytes.length;
        parts++;
      };
      for (let part = 0; part < count && parts === part && !stopped; part++) eachRow(db, sql, [part === 0 ? name : `${name}#${part}`, ...also], take);
      return !stopped && parts === count && at === length;
    },
  };
}
