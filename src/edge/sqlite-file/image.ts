import { HybridMindError } from '../../errors.js';
import type { SqlDriver, SqlValue } from '../../storage/driver.js';
import type { ColumnOrder, StoredValue } from './record.js';
import type { SchemaObject } from './write.js';

/**
 * Reads a live database's schema and rows through a `SqlDriver`, in the shape `encodeDatabase`
 * writes: each table's rows as SQLite stores them (exact storage classes, read with `typeof`),
 * and each index's entries in its own column layout (`PRAGMA index_xinfo`). Works on any SQLite
 * that allows these pragmas, Durable Object SQLite included.
 */

const METHOD = 'SqlDriver.serialize';

/** How a table's rows sit in its b-tree. */
export interface TableLayout {
  columns: string[];
  /** The INTEGER PRIMARY KEY column, which aliases the rowid and is stored as NULL; -1 if none. */
  aliasCid: number;
  /** For a WITHOUT ROWID table, the cids in the order its records hold them (primary key first). */
  withoutRowid: number[] | null;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function unsupported(message: string): HybridMindError {
  return new HybridMindError('UNSUPPORTED', METHOD, message);
}

/** Internal tables a platform keeps beside the user's (Cloudflare's `_cf_*`, SQLite's statistics), with their indexes. */
export const SKIP_INTERNAL = "tbl_name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND tbl_name NOT LIKE 'sqlite\\_stat%' ESCAPE '\\'";

export function tableLayout(db: SqlDriver, table: string): TableLayout {
  const columns = db.all<{ cid: number; name: string; type: string; pk: number; hidden: number }>('SELECT cid, name, type, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid', [table]);
  if (columns.some((c) => Number(c.hidden) !== 0)) throw unsupported(`table ${table} has generated or hidden columns`);
  const listed = db.all<{ wr: number }>("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", [table])[0];
  const pkIndex = db.all<{ name: string }>("SELECT name FROM pragma_index_list(?) WHERE origin = 'pk'", [table])[0];
  let withoutRowid: number[] | null = null;
  if (listed && Number(listed.wr) === 1) {
    if (!pkIndex) throw unsupported(`table ${table} is WITHOUT ROWID but has no primary key index`);
    withoutRowid = db.all<{ cid: number }>('SELECT cid FROM pragma_index_xinfo(?) ORDER BY seqno', [pkIndex.name]).map((c) => Number(c.cid));
  }
  const pk = columns.filter((c) => Number(c.pk) > 0);
  // Only a lone "INTEGER PRIMARY KEY" without a backing index aliases the rowid.
  const aliasCid = !withoutRowid && pk.length === 1 && String(pk[0]!.type).toUpperCase() === 'INTEGER' && !pkIndex ? Number(pk[0]!.cid) : -1;
  return { columns: columns.map((c) => String(c.name)), aliasCid, withoutRowid };
}

function stored(value: SqlValue | bigint | undefined, type: unknown): StoredValue {
  switch (type) {
    case 'integer':
      return typeof value === 'bigint' ? value : BigInt(value as number);
    case 'real':
      return Number(value);
    case 'text':
      return String(value);
    case 'blob':
      return value instanceof Uint8Array ? value : new Uint8Array(0);
    default:
      return null;
  }
}

interface TableRows {
  layout: TableLayout;
  /** Column values by cid, the rowid alias holding the rowid. */
  rows: Array<{ rowid: bigint; values: StoredValue[] }>;
}

function readTable(db: SqlDriver, table: string): TableRows {
  const layout = tableLayout(db, table);
  const select = layout.columns.map((c, i) => `${quote(c)} AS v${i}, typeof(${quote(c)}) AS t${i}`).join(', ');
  const sql = layout.withoutRowid ? `SELECT 0 AS r, ${select} FROM ${quote(table)}` : `SELECT _rowid_ AS r, ${select} FROM ${quote(table)} ORDER BY _rowid_`;
  const rows = db.all(sql).map((row) => {
    const rowid = layout.withoutRowid ? 0n : (stored(row['r'], 'integer') as bigint);
    const values = layout.columns.map((_, i) => stored(row[`v${i}`], row[`t${i}`]));
    if (layout.aliasCid >= 0) values[layout.aliasCid] = rowid;
    return { rowid, values };
  });
  return { layout, rows };
}

const COLLATIONS = new Set(['BINARY', 'NOCASE', 'RTRIM']);

function indexContent(db: SqlDriver, index: string, table: TableRows): SchemaObject['content'] {
  const layout = db.all<{ cid: number; desc: number; coll: string }>('SELECT cid, desc, coll FROM pragma_index_xinfo(?) ORDER BY seqno', [index]);
  const order: ColumnOrder[] = layout.map((c) => {
    const coll = String(c.coll).toUpperCase();
    if (Number(c.cid) === -2) throw unsupported(`index ${index} is on an expression`);
    if (!COLLATIONS.has(coll)) throw unsupported(`index ${index} uses collation ${c.coll}`);
    return { desc: Number(c.desc) === 1, coll: coll as ColumnOrder['coll'] };
  });
  const keys = table.rows.map((r) => layout.map((c) => (Number(c.cid) === -1 ? r.rowid : r.values[Number(c.cid)]!)));
  return { kind: 'index', keys, order };
}

export function databaseImage(db: SqlDriver): SchemaObject[] {
  const master = db.all<{ type: string; name: string; tbl_name: string; sql: string | null }>(
    `SELECT type, name, tbl_name, sql FROM sqlite_master WHERE ${SKIP_INTERNAL} ORDER BY rowid`,
  );
  const tables = new Map<string, TableRows>();
  const rowsOf = (table: string): TableRows => {
    let t = tables.get(table);
    if (!t) tables.set(table, (t = readTable(db, table)));
    return t;
  };

  return master.map((m): SchemaObject => {
    const base = { type: m.type as SchemaObject['type'], name: m.name, tblName: m.tbl_name, sql: m.sql };
    if (m.type === 'table') {
      const t = rowsOf(m.name);
      if (t.layout.withoutRowid) {
        const pk = db.all<{ name: string }>("SELECT name FROM pragma_index_list(?) WHERE origin = 'pk'", [m.name])[0]!;
        return { ...base, content: indexContent(db, pk.name, t) };
      }
      return { ...base, content: { kind: 'table', rows: t.rows.map((r) => ({ rowid: r.rowid, record: r.values.map((v, cid) => (cid === t.layout.aliasCid ? null : v)) })) } };
    }
    if (m.type === 'index') {
      const partial = db.all<{ partial: number }>('SELECT partial FROM pragma_index_list(?) WHERE name = ?', [m.tbl_name, m.name])[0];
      if (partial && Number(partial.partial) === 1) throw unsupported(`partial index ${m.name} cannot be written without evaluating its WHERE clause`);
      return { ...base, content: indexContent(db, m.name, rowsOf(m.tbl_name)) };
    }
    return { ...base, content: null };
  });
}
