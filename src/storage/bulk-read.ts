/**
 * Reading a whole store at open in a few large values instead of row by row: through a WASM
 * binding every row costs a round of calls per column, which made reading 10k rows several times
 * slower than SQLite's own work. SQLite assembles each chunk itself, as one JSON text (rows) or
 * one blob (vectors), and the caller parses it once.
 *
 * These read the truth, not a derived copy, so nothing here can be stale. A database whose
 * columns hold what JSON cannot carry (a blob where text belongs: only a crafted or damaged file)
 * makes them throw; the caller then reads row by row as before.
 */
import { HybridMindError } from '../errors.js';
import { eachRow, type SqlDriver } from './driver.js';
import { blobToVector, type EdgeRow, type MemoryRow } from './repository.js';

/**
 * Rows per JSON chunk and bytes of vectors per blob chunk: one value stays under the 2 MB Durable
 * Object SQLite allows for typical rows (a chunk of very long texts fails there and is read row by row).
 */
const ROWS_PER_CHUNK = 2_000;
const VECTOR_BYTES_PER_CHUNK = 1 << 20;
/** The smallest rowid SQLite allows (-2^63, exact as a double): chunks start at a bound so SQLite seeks to it. */
export const FIRST_NO = -(2 ** 63);

/** What `fast` returns, or `slow`'s when it throws: a bulk read, then the row-by-row read of the same rows. */
export function fallback<T>(fast: () => T, slow: () => T): T {
  try {
    return fast();
  } catch {
    return slow();
  }
}

/** Rows of `columns` from `table` in `no` order, as arrays in column order. */
function jsonRows(db: SqlDriver, table: string, columns: string): unknown[][] {
  const out: unknown[][] = [];
  let from = FIRST_NO;
  for (;;) {
    const chunk = jsonChunk(db, table, columns, from, ROWS_PER_CHUNK);
    for (const r of chunk.rows) out.push(r);
    if (chunk.rows.length < ROWS_PER_CHUNK) return out;
    from = chunk.last + 1;
  }
}

/**
 * Up to `limit` rows of `columns` (which name `no`) from `table` with `no` from `from` to `until`,
 * in `no` order, as arrays in column order, and the last row's `no`.
 */
export function jsonChunk(db: SqlDriver, table: string, columns: string, from: number, limit: number, until?: number): { rows: unknown[][]; last: number } {
  const row = db.all<{ rows: string; last: number | null }>(
    `SELECT json_group_array(json_array(${columns})) AS rows, max(no) AS last FROM (SELECT ${columns} FROM ${table} WHERE no >= ?${until === undefined ? '' : ' AND no <= ?'} ORDER BY no LIMIT ?)`,
    until === undefined ? [from, limit] : [from, until, limit],
  )[0]!;
  return { rows: JSON.parse(row.rows) as unknown[][], last: Number(row.last) };
}

export type CatalogRow = Omit<MemoryRow, 'text'>;

/** Every memory without its text: what the catalog holds. */
export function readCatalogRows(db: SqlDriver): CatalogRow[] {
  return jsonRows(db, 'memories', 'no, id, kind, domain, metadata, created_at, valid_from, valid_to').map((r) => ({
    no: r[0] as number,
    id: r[1] as string,
    kind: r[2] as string | null,
    domain: r[3] as string | null,
    metadata: r[4] as string,
    created_at: r[5] as number,
    valid_from: r[6] as number,
    valid_to: r[7] as number | null,
  }));
}

/** Every memory's text by number. */
export function readTexts(db: SqlDriver): Map<number, string> {
  return new Map(jsonRows(db, 'memories', 'no, text').map((r) => [r[0] as number, r[1] as string]));
}

/** What the graph leg keeps of an edge: an open reads no more (metadata and the supersession bookkeeping stay in the store). */
export type GraphEdgeRow = Pick<EdgeRow, 'id' | 'src' | 'dst' | 'type' | 'weight' | 'created_at'>;

/** Every edge, as the graph leg keeps it. */
export function readGraphEdges(db: SqlDriver): GraphEdgeRow[] {
  return jsonRows(db, 'edges', 'no, id, src, dst, type, weight, created_at').map((r) => ({
    id: r[1] as string,
    src: r[2] as number,
    dst: r[3] as number,
    type: r[4] as string,
    weight: r[5] as number,
    created_at: r[6] as number,
  }));
}

/**
 * Every vector in `no` order, handed to `add` a chunk at a time: its numbers and its vectors back
 * to back in one `Float32Array` over the chunk's bytes (no view or object per vector). `group_concat`
 * appends the blobs' bytes as they are (a UTF-8 database converts nothing), and both aggregates see
 * the rows in the same order, so the i-th number owns the i-th slice; a total that is not
 * `count × width` means the blobs are not all one width, and the caller reads row by row. The
 * vectors handed to `add` may be a view of the driver's memory, valid only during the call.
 */
export function readVectors(db: SqlDriver, width: number, add: (nos: number[], vectors: Float32Array) => void): void {
  const perChunk = Math.max(1, Math.floor(VECTOR_BYTES_PER_CHUNK / width));
  const sql = "SELECT json_group_array(no) AS nos, CAST(group_concat(vector, '') AS BLOB) AS bytes, sum(length(vector)) AS total, count(*) AS n FROM (SELECT no, vector FROM vectors WHERE no >= ? ORDER BY no LIMIT ?)";
  let from = FIRST_NO;
  for (let more = true; more; ) {
    more = false;
    // Through `visitRows` the chunk is viewed where SQLite holds it and copied once, by `add`.
    eachRow(db, sql, [from, perChunk], ([nosJson, bytes, total, count]) => {
      const n = Number(count);
      if (n === 0) return;
      const nos = JSON.parse(nosJson as string) as number[];
      if (!(bytes instanceof Uint8Array) || Number(total) !== n * width || bytes.byteLength !== n * width || nos.length !== n) {
        throw new Error(`vectors are not all ${width} bytes wide`);
      }
      add(nos, bytes.byteOffset % 4 === 0 ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4) : blobToVector(bytes));
      more = n === perChunk;
      from = nos[n - 1]! + 1;
    });
  }
}

/**
 * The stored vectors of `nos`, back to back in `into` in the order asked (the `vector` column, the
 * index's own form); a number without one gets NaN, and one asked twice fills both places. Returns
 * how many places were filled. One statement for any count, the blobs concatenated as
 * `readVectors` does: what a dense index that no longer holds float32 copies re-scores from. (One
 * lookup per number through `visitByKey` measured ~16% faster on SQLite-WASM and ~14% slower on
 * better-sqlite3, which makes a Buffer per blob: 145 vectors of a 100k store, 0.37 vs 0.44 ms and
 * 0.73 vs 0.64.)
 */
export function readVectorsByNo(db: SqlDriver, nos: readonly number[], into: Float32Array): number {
  if (nos.length === 0) return 0;
  const dim = into.length / nos.length;
  const [row] = db.all<{ nos: string; bytes: Uint8Array | null }>(
    // No ORDER BY: both aggregates see the rows in one order, and sorting rows that carry their
    // blobs took a third of a 145-vector read (0.41 → 0.27 ms at 100k).
    "SELECT json_group_array(no) AS nos, CAST(group_concat(vector, '') AS BLOB) AS bytes FROM vectors WHERE no IN (SELECT value FROM json_each(?))",
    [JSON.stringify(nos)],
  );
  const found = JSON.parse(row?.nos ?? '[]') as number[];
  const bytes = row?.bytes ?? new Uint8Array(0);
  if (bytes.byteLength !== found.length * dim * 4) {
    throw new HybridMindError('CORRUPT', 'readVectors', `the vectors of ${found.length} memories take ${bytes.byteLength} bytes, not ${found.length} × ${dim * 4}`);
  }
  const vectors = blobToVector(bytes);
  const place = new Map(found.map((no, j) => [no, j]));
  into.fill(Number.NaN);
  let filled = 0;
  nos.forEach((no, i) => {
    const j = place.get(no);
    if (j === undefined) return;
    into.set(vectors.subarray(j * dim, (j + 1) * dim), i * dim);
    filled++;
  });
  return filled;
}
