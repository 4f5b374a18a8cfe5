/**
 * The catalog (every memory without its text) as bytes saved beside the other derived indexes,
 * so an open reads one value instead of having SQLite build, and JavaScript parse, a JSON text
 * of every row: that was ~140 ms of a 100k-memory store's cold open, most of it SQLite's.
 *
 * Layout: MAGIC, u32 version, u32 count n, then f64 no[n], created_at[n], valid_from[n],
 * valid_to[n] (NaN for none), then u32 lengths[4n] (id, kind, domain, metadata per memory, in
 * UTF-16 units; NONE for a kind or domain that is null), u32 byte length and the UTF-8 of every
 * string back to back in that order. Nothing is trusted: sizes are checked before they are
 * read, and each row must be what the store could hold, or the caller reads the rows instead.
 */
import type { Metadata } from '../types.js';
import { readLE, writeLE } from '../util/endian.js';
import type { CatalogEntry } from './catalog.js';
import type { Saved } from './saved-lexical.js';

export const CATALOG: Saved<CatalogEntry[]> = { name: 'catalog', label: 'catalog', load: (_legs, bytes) => decodeCatalog(bytes), size: (entries) => entries.length };

const MAGIC = Uint8Array.of(0x00, 0x68, 0x6d, 0x63, 0x61, 0x74, 0x0a, 0x00);
const VERSION = 1;
const NONE = 0xffffffff;
const HEAD = MAGIC.length + 8;

export function encodeCatalog(entries: Iterable<CatalogEntry>): Uint8Array {
  const list = [...entries];
  const n = list.length;
  const numbers = new Float64Array(4 * n);
  const lengths = new Uint32Array(4 * n);
  const strings: string[] = [];
  list.forEach((e, i) => {
    numbers[i] = e.no;
    numbers[n + i] = e.createdAt;
    numbers[2 * n + i] = e.validFrom;
    numbers[3 * n + i] = e.validTo ?? Number.NaN;
    [e.id, e.kind, e.domain, JSON.stringify(e.metadata)].forEach((part, j) => {
      lengths[4 * i + j] = part === null ? NONE : part.length;
      if (part !== null) strings.push(part);
    });
  });
  const text = new TextEncoder().encode(strings.join(''));
  const out = new Uint8Array(HEAD + 48 * n + 4 + text.length);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(MAGIC.length, VERSION, true);
  view.setUint32(MAGIC.length + 4, n, true);
  writeLE(out, HEAD, numbers);
  writeLE(out, HEAD + 32 * n, lengths);
  view.setUint32(HEAD + 48 * n, text.length, true);
  out.set(text, HEAD + 48 * n + 4);
  return out;
}

/** The entries `encodeCatalog` saved; throws when the bytes are not whole or an entry is not one a store holds. */
export function decodeCatalog(bytes: Uint8Array): CatalogEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < HEAD || !MAGIC.every((b, i) => bytes[i] === b)) throw new Error('not a saved catalog');
  const version = view.getUint32(MAGIC.length, true);
  if (version !== VERSION) throw new Error(`saved catalog version ${version}, this build reads ${VERSION}`);
  const n = view.getUint32(MAGIC.length + 4, true);
  const textAt = HEAD + 48 * n;
  if (textAt + 4 > bytes.length) throw new Error(`${n} rows run past the end`);
  const size = view.getUint32(textAt, true);
  if (textAt + 4 + size !== bytes.length) throw new Error(`the strings take ${size} bytes of ${bytes.length - textAt - 4}`);
  const numbers = new Float64Array(4 * n);
  const lengths = new Uint32Array(4 * n);
  readLE(bytes, HEAD, numbers);
  readLE(bytes, HEAD + 32 * n, lengths);
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(textAt + 4));
  const entries: CatalogEntry[] = new Array(n);
  let from = 0;
  const strings: Array<string | null> = [null, null, null, null];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < 4; j++) {
      const length = lengths[4 * i + j]!;
      if (length === NONE) strings[j] = null;
      else if (from + length > text.length) throw new Error(`row ${i}'s strings run past the end`);
      else strings[j] = text.slice(from, (from += length));
    }
    const [id, kind, domain, metadata] = strings;
    const no = numbers[i]!;
    const createdAt = numbers[n + i]!;
    const validFrom = numbers[2 * n + i]!;
    const validTo = numbers[3 * n + i]!;
    if (!Number.isSafeInteger(no) || !Number.isFinite(createdAt) || !Number.isFinite(validFrom) || !(Number.isNaN(validTo) || Number.isFinite(validTo)) || typeof id !== 'string' || typeof metadata !== 'string') {
      throw new Error(`row ${i} is malformed`);
    }
    // Most memories carry no metadata, and parsing their "{}" was a tenth of reading the catalog.
    const parsed: unknown = metadata === '{}' ? {} : JSON.parse(metadata);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`row ${i}'s metadata is not an object`);
    entries[i] = { no, id, kind: kind ?? null, domain: domain ?? null, metadata: parsed as Metadata, createdAt, validFrom, validTo: Number.isNaN(validTo) ? null : validTo };
  }
  if (from !== text.length) throw new Error(`the strings hold ${text.length} characters, the rows use ${from}`);
  return entries;
}
