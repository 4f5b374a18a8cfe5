/**
 * The first 100 bytes of a SQLite database file, judged against the size the file must have.
 * Shared by every reader of database bytes from outside (a snapshot's store.db while it is still
 * inflating, `open({ storage: { bytes } })`, the edge's pure-TypeScript reader), so a file padded
 * or cut to another size is refused from its header — before a hostile archive is inflated.
 */

export const SQLITE_HEADER_BYTES = 100;
const MAGIC = 'SQLite format 3\0';

const u16 = (b: Uint8Array, at: number): number => (b[at]! << 8) | b[at + 1]!;
const u32 = (b: Uint8Array, at: number): number => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;

export interface SqliteHeader {
  pageSize: number;
  /** Bytes per page available to b-trees (page size minus the reserved tail). */
  usable: number;
  pageCount: number;
}

/** Reads the header of a `size`-byte database; throws an Error saying what is wrong ("is …", "has …"). */
export function readSqliteHeader(head: Uint8Array, size: number): SqliteHeader {
  if (size < 512 || head.length < SQLITE_HEADER_BYTES) throw new Error(`is ${size} bytes, too short for a SQLite database`);
  for (let i = 0; i < MAGIC.length; i++) if (head[i] !== MAGIC.charCodeAt(i)) throw new Error('is not a SQLite database (bad header)');
  const raw = u16(head, 16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) throw new Error(`has an invalid page size ${raw}`);
  const usable = pageSize - head[20]!;
  if (usable < 480) throw new Error('reserves too many bytes per page');
  if (size % pageSize !== 0) throw new Error(`is ${size} bytes, not a whole number of ${pageSize}-byte pages`);
  const pageCount = size / pageSize;
  // The in-header page count is authoritative when its "valid-for" stamp matches the change counter.
  const declared = u32(head, 28);
  if (declared !== 0 && u32(head, 92) === u32(head, 24) && declared !== pageCount) {
    throw new Error(`declares ${declared} pages in its header but is ${pageCount} pages long`);
  }
  if (u32(head, 36) >= pageCount) throw new Error(`declares ${u32(head, 36)} free pages of its ${pageCount}`);
  const encoding = u32(head, 56);
  if (encoding !== 1) throw new Error(`uses text encoding ${encoding}; only UTF-8 (1) is read`);
  return { pageSize, usable, pageCount };
}
