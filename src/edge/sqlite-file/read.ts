import { messageOf } from '../../errors.js';
import { readSqliteHeader, SQLITE_HEADER_BYTES } from '../../validation/sqlite-header.js';
import { decodeRecord, readVarint, type StoredValue } from './record.js';

/**
 * Reads the rows out of a SQLite database file without a SQLite engine, for runtimes that cannot
 * start one (Cloudflare Workers importing a snapshot's store.db). It walks b-trees only; it does
 * not run SQL and trusts nothing: every page number, offset, length and chain is bounds-checked,
 * and every problem is thrown as an Error naming it.
 */

export interface SchemaEntry {
  type: string;
  name: string;
  tblName: string;
  rootpage: number;
  sql: string | null;
}

const MAX_DEPTH = 40;

export class SqliteFile {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  readonly pageSize: number;
  readonly #usable: number;
  readonly pageCount: number;
  readonly schema: SchemaEntry[];

  constructor(bytes: Uint8Array) {
    const header = readSqliteHeader(bytes.subarray(0, SQLITE_HEADER_BYTES), bytes.length);
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pageSize = header.pageSize;
    this.#usable = header.usable;
    this.pageCount = header.pageCount;
    this.schema = this.tableRows(1).map(({ values }, i) => {
      const [type, name, tblName, rootpage, sql] = values;
      if (typeof type !== 'string' || typeof name !== 'string' || typeof tblName !== 'string' || typeof rootpage !== 'bigint' || (sql !== null && typeof sql !== 'string')) {
        throw new Error(`has a malformed schema row ${i + 1}`);
      }
      if (rootpage < 0n || rootpage > BigInt(this.pageCount)) throw new Error(`schema row ${name} points at page ${rootpage}, outside the file`);
      return { type, name, tblName, rootpage: Number(rootpage), sql: sql ?? null };
    });
  }

  /** Rows of a rowid table, in rowid order. */
  tableRows(root: number): Array<{ rowid: bigint; values: StoredValue[] }> {
    const rows: Array<{ rowid: bigint; values: StoredValue[] }> = [];
    this.#walk(root, 'table', new Set(), 0, (payload, rowid) => rows.push({ rowid: rowid!, values: this.#record(payload, root) }));
    return rows;
  }

  /** Records of an index b-tree (a WITHOUT ROWID table's rows), in key order. */
  indexRecords(root: number): StoredValue[][] {
    const records: StoredValue[][] = [];
    this.#walk(root, 'index', new Set(), 0, (payload) => records.push(this.#record(payload, root)));
    return records;
  }

  #record(payload: Uint8Array, root: number): StoredValue[] {
    try {
      return decodeRecord(payload);
    } catch (error) {
      throw new Error(`has an unreadable record in the b-tree at page ${root}: ${messageOf(error)}`);
    }
  }

  #page(no: number, seen: Set<number>): { start: number; header: number } {
    if (!Number.isInteger(no) || no < 1 || no > this.pageCount) throw new Error(`refers to page ${no}, outside its ${this.pageCount} pages`);
    if (seen.has(no)) throw new Error(`refers to page ${no} twice (a loop or a shared page)`);
    seen.add(no);
    const start = (no - 1) * this.pageSize;
    return { start, header: start + (no === 1 ? 100 : 0) };
  }

  #walk(no: number, kind: 'table' | 'index', seen: Set<number>, depth: number, visit: (payload: Uint8Array, rowid: bigint | null) => void): void {
    if (depth > MAX_DEPTH) throw new Error('has a b-tree deeper than any real database');
    const { start, header } = this.#page(no, seen);
    const flag = this.#bytes[header];
    const expected = kind === 'table' ? [0x05, 0x0d] : [0x02, 0x0a];
    if (flag === undefined || !expected.includes(flag)) throw new Error(`page ${no} is not a ${kind} b-tree page (type ${flag})`);
    const leaf = flag === 0x0d || flag === 0x0a;
    const headerSize = leaf ? 8 : 12;
    const cells = this.#view.getUint16(header + 3);
    const end = start + this.#usable;
    if (header + headerSize + 2 * cells > end) throw new Error(`page ${no} claims ${cells} cells, more than fit`);
    for (let i = 0; i < cells; i++) {
      const offset = this.#view.getUint16(header + headerSize + 2 * i);
      let pos = start + offset;
      if (offset < headerSize || pos >= end) throw new Error(`page ${no} cell ${i} starts outside the page`);
      let child = 0;
      if (!leaf) {
        if (pos + 4 > end) throw new Error(`page ${no} cell ${i} is cut off`);
        child = this.#view.getUint32(pos);
        pos += 4;
      }
      if (kind === 'table' && !leaf) {
        if (!readVarint(this.#bytes, pos, end)) throw new Error(`page ${no} cell ${i} is cut off`);
        this.#walk(child, kind, seen, depth + 1, visit);
        continue;
      }
      const size = readVarint(this.#bytes, pos, end);
      if (!size || size.value < 0n || size.value > BigInt(this.#bytes.length)) throw new Error(`page ${no} cell ${i} has an impossible payload size`);
      pos = size.next;
      let rowid: bigint | null = null;
      if (kind === 'table') {
        const r = readVarint(this.#bytes, pos, end);
        if (!r) throw new Error(`page ${no} cell ${i} is cut off`);
        rowid = r.value;
        pos = r.next;
      }
      if (!leaf) this.#walk(child, kind, seen, depth + 1, visit);
      visit(this.#payload(no, i, pos, end, Number(size.value), kind === 'index', seen), rowid);
    }
    if (!leaf) this.#walk(this.#view.getUint32(header + 8), kind, seen, depth + 1, visit);
  }

  #payload(no: number, cell: number, pos: number, end: number, size: number, index: boolean, seen: Set<number>): Uint8Array {
    const u = this.#usable;
    const maxLocal = index ? Math.floor(((u - 12) * 64) / 255) - 23 : u - 35;
    const minLocal = Math.floor(((u - 12) * 32) / 255) - 23;
    let local = size;
    if (size > maxLocal) {
      const k = minLocal + ((size - minLocal) % (u - 4));
      local = k <= maxLocal ? k : minLocal;
    }
    if (pos + local + (local < size ? 4 : 0) > end) throw new Error(`page ${no} cell ${cell} runs past the page`);
    const out = new Uint8Array(size);
    out.set(this.#bytes.subarray(pos, pos + local));
    let filled = local;
    let next = local < size ? this.#view.getUint32(pos + local) : 0;
    while (filled < size) {
      const { start } = this.#page(next, seen);
      const take = Math.min(u - 4, size - filled);
      out.set(this.#bytes.subarray(start + 4, start + 4 + take), filled);
      filled += take;
      next = this.#view.getUint32(start);
    }
    if (next !== 0) throw new Error(`page ${no} cell ${cell} has an overflow chain longer than its payload`);
    return out;
  }
}
