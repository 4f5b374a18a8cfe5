import { PAGE_SIZE, Pager, writeIndexTree, writeTableTree } from './btree.js';
import { compareRecords, encodeRecord, type ColumnOrder, type StoredValue } from './record.js';

/**
 * Writes a SQLite database file (format 4, UTF-8, rollback journal, 8192-byte pages) from a
 * description of its schema and content, with no SQLite engine at hand: the way a Durable
 * Object, whose runtime cannot start SQLite-WASM, hands out its database as bytes.
 */

/** A row of a rowid table: the record holds NULL where the table's INTEGER PRIMARY KEY column is. */
export interface TableContent {
  kind: 'table';
  rows: ReadonlyArray<{ rowid: bigint; record: readonly StoredValue[] }>;
}

/** Index entries (or a WITHOUT ROWID table's rows), each a record in the index's column layout. */
export interface IndexContent {
  kind: 'index';
  keys: ReadonlyArray<readonly StoredValue[]>;
  order: readonly ColumnOrder[];
}

/** One row of `sqlite_schema`; views and triggers have no content. */
export interface SchemaObject {
  type: 'table' | 'index' | 'view' | 'trigger';
  name: string;
  tblName: string;
  sql: string | null;
  content: TableContent | IndexContent | null;
}

const MAGIC = 'SQLite format 3\0';
/** What the header's "last written by" field says; readers use it only for diagnostics. */
const WRITER_VERSION = 3_045_001;

export function encodeDatabase(objects: readonly SchemaObject[]): Uint8Array {
  const pager = new Pager();
  const schemaRoot = pager.allocate();
  const roots = objects.map((o) => (o.content ? pager.allocate() : 0));
  objects.forEach((o, i) => {
    if (!o.content) return;
    if (o.content.kind === 'table') {
      const rows = [...o.content.rows].sort((a, b) => (a.rowid < b.rowid ? -1 : a.rowid > b.rowid ? 1 : 0));
      writeTableTree(pager, roots[i]!, rows.map((r) => ({ rowid: r.rowid, payload: encodeRecord(r.record) })));
    } else {
      const order = o.content.order;
      const keys = [...o.content.keys].sort((a, b) => compareRecords(a, b, order));
      writeIndexTree(pager, roots[i]!, keys.map(encodeRecord));
    }
  });
  const schemaRows = objects.map((o, i) => ({
    rowid: BigInt(i + 1),
    payload: encodeRecord([o.type, o.name, o.tblName, BigInt(roots[i]!), o.sql]),
  }));
  writeTableTree(pager, schemaRoot, schemaRows, 100);

  const file = pager.bytes();
  writeHeader(file, pager.count);
  return file;
}

function writeHeader(file: Uint8Array, pageCount: number): void {
  const view = new DataView(file.buffer, file.byteOffset, 100);
  for (let i = 0; i < MAGIC.length; i++) file[i] = MAGIC.charCodeAt(i);
  view.setUint16(16, PAGE_SIZE);
  file[18] = 1; // legacy (rollback journal) write version
  file[19] = 1; // and read version
  file[20] = 0; // bytes reserved per page
  file[21] = 64; // payload fractions, fixed by the format
  file[22] = 32;
  file[23] = 32;
  view.setUint32(24, 1); // file change counter
  view.setUint32(28, pageCount); // valid because the counter at 92 equals the one at 24
  view.setUint32(40, 1); // schema cookie
  view.setUint32(44, 4); // schema format 4
  view.setUint32(56, 1); // UTF-8
  view.setUint32(92, 1);
  view.setUint32(96, WRITER_VERSION);
}
