import type { EdgeSource, GraphEdge } from '../legs/types.js';
import { fallback, FIRST_NO, jsonChunk } from './bulk-read.js';
import type { SqlDriver, SqlRow } from './driver.js';

/** Edges per chunk of a fill: taking one is a few ms, well inside a background slice. */
const FILL_CHUNK = 500;
const COLUMNS = 'no, id, src, dst, type, weight, created_at';

/**
 * The store's edges for a graph leg that fills in the background (`GraphLeg.fill`): those stored
 * when this is called, a chunk at a time in `no` order, and the edges around given memories as
 * stored when asked. Values JSON cannot carry (only a crafted or damaged file) are read row by
 * row instead, as an open always could.
 */
export function storedEdges(db: SqlDriver): EdgeSource {
  const last = db.all<{ last: number | null }>('SELECT max(no) AS last FROM edges')[0]?.last ?? null;
  let from = FIRST_NO;
  let done = last === null;
  return {
    empty: last === null,
    next() {
      if (done) return [];
      const rows = fallback(
        () => jsonChunk(db, 'edges', COLUMNS, from, FILL_CHUNK, Number(last)).rows,
        () => valuesOf(db.all(`SELECT ${COLUMNS} FROM edges WHERE no >= ? AND no <= ? ORDER BY no LIMIT ?`, [from, Number(last), FILL_CHUNK])),
      );
      if (rows.length < FILL_CHUNK) done = true;
      else from = Number(rows[rows.length - 1]![0]) + 1;
      return rows.map(edgeOf);
    },
    around(nos) {
      if (nos.length === 0) return [];
      const list = JSON.stringify(nos);
      // One index each for either end; in `no` order, the order a full fill adds them in.
      const select = `SELECT ${COLUMNS} FROM edges WHERE src IN (SELECT value FROM json_each(?)) UNION SELECT ${COLUMNS} FROM edges WHERE dst IN (SELECT value FROM json_each(?)) ORDER BY no`;
      const rows = fallback(
        () => JSON.parse(db.all<{ rows: string }>(`SELECT json_group_array(json_array(${COLUMNS})) AS rows FROM (${select})`, [list, list])[0]!.rows) as unknown[][],
        () => valuesOf(db.all(select, [list, list])),
      );
      return rows.map(edgeOf);
    },
  };
}

function valuesOf(rows: SqlRow[]): unknown[][] {
  return rows.map((row) => Object.values(row));
}

function edgeOf(r: unknown[]): GraphEdge {
  return { id: r[1] as string, from: Number(r[2]), to: Number(r[3]), type: r[4] as string, weight: Number(r[5]), createdAt: Number(r[6]) };
}
