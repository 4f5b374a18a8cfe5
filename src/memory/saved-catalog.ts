/**
 * The catalog (every memory without its text) as bytes saved beside the other derived indexes,
 * so an open reads one value instead of having SQLite build, and JavaScript parse, a JSON text
 * of every row: that was ~140 ms of a 100k-memory store's cold open, most of it SQLite's.
 *
 * Layout: MAGIC, u32 version, u32 count n, then f64 no[c], created_at[c], valid_from[c],
 * valid_to[c] (NaN for none), then u32 lengths[4c] (id, kind, domain, metadata per memory, in
 * UTF-16 units; NONE for a kind or domain that is null), u32 byte length and the UTF-8 of every
 * string back to back in that order. Version 1 has c = n; version 2 has room to grow,
 * c = `capacityOf(n)` with zeros past n, so one new memory leaves the bytes before the strings'
 * end where they were (see `util/capacity.ts`). Nothing is trusted: sizes are checked before
 * they are read, and each row must be what the store could hold, or the caller reads the rows instead.
 */
import type { Metadata } from '../types.js';
import { capacityOf } from '../util/capacity.js';
import { readLE, writeLE } from '../util/endian.js';
import { NumberPositions } from '../util/number-positions.js';
import { NO_METADATA, type CatalogEntry, type EntryFilter } from './catalog-entry.js';
import { joined, type Saved } from './saved-lexical.js';
import { emptyWindow, widen, type ValidityWindow } from './validity-window.js';

export const CATALOG: Saved<SavedCatalog> = { name: 'catalog', label: 'catalog', load: (_legs, parts) => decodeCatalog(joined(parts)), size: (saved) => saved.count };

const MAGIC = Uint8Array.of(0x00, 0x68, 0x6d, 0x63, 0x61, 0x74, 0x0a, 0x00);
/** Versions read: 1 (sections of the count), 2 (sections with room); 2 is written. */
const VERSION = 2;
const NONE = 0xffffffff;
const HEAD = MAGIC.length + 8;
/** The number columns after `no`, in saved order (see `SavedCatalog.column`). */
export const CREATED_AT = 1;
export const VALID_FROM = 2;
export const VALID_TO = 3;

export function encodeCatalog(entries: Iterable<CatalogEntry>): Uint8Array {
  const writer = new CatalogWriter();
  for (const e of entries) writer.entry(e);
  return writer.bytes();
}

/** Rows in the order they come, each an entry or saved rows copied as they were saved, then the bytes `encodeCatalog` writes for them. */
export class CatalogWriter {
  /** no, created_at, valid_from, valid_to (NaN for none) per row, a column each. */
  readonly #columns: [number[], number[], number[], number[]] = [[], [], [], []];
  readonly #lengths: number[] = [];
  readonly #strings: string[] = [];

  entry(e: CatalogEntry): void {
    this.row(e.no, e.createdAt, e.validFrom, e.validTo ?? Number.NaN);
    for (const part of [e.id, e.kind, e.domain, JSON.stringify(e.metadata)]) {
      this.#lengths.push(part === null ? NONE : part.length);
      if (part !== null) this.#strings.push(part);
    }
  }

  /** A row's numbers; its four string lengths and its strings follow through `lengths` and `text`. */
  row(no: number, createdAt: number, validFrom: number, validTo: number): void {
    const [nos, created, from, to] = this.#columns;
    nos.push(no);
    created.push(createdAt);
    from.push(validFrom);
    to.push(validTo);
  }

  lengths(id: number, kind: number, domain: number, metadata: number): void {
    this.#lengths.push(id, kind, domain, metadata);
  }

  text(strings: string): void {
    this.#strings.push(strings);
  }

  bytes(): Uint8Array {
    const n = this.#columns[0].length;
    const room = capacityOf(n);
    const text = new TextEncoder().encode(this.#strings.join(''));
    const out = new Uint8Array(HEAD + 48 * room + 4 + text.length);
    const view = new DataView(out.buffer);
    out.set(MAGIC, 0);
    view.setUint32(MAGIC.length, VERSION, true);
    view.setUint32(MAGIC.length + 4, n, true);
    this.#columns.forEach((column, c) => writeLE(out, HEAD + 8 * room * c, Float64Array.from(column)));
    writeLE(out, HEAD + 32 * room, Uint32Array.from(this.#lengths));
    view.setUint32(HEAD + 48 * room, text.length, true);
    out.set(text, HEAD + 48 * room + 4);
    return out;
  }
}

/**
 * A saved catalog as read: the columns and strings stay as they are, and an entry is made only
 * when asked for. Making all 100k objects (and the maps over them) at open was a fifth of a
 * cold open, for a recall that reads ten of them.
 */
export class SavedCatalog {
  readonly count: number;
  /** no[count], created_at[count], valid_from[count], valid_to[count] (NaN for none). */
  readonly #numbers: Float64Array;
  readonly #lengths: Uint32Array;
  /** Where each row's id starts in `#text`; its kind, domain and metadata follow. */
  readonly #starts: Uint32Array;
  readonly #text: string;
  /** Rows whose metadata is not `{}`, parsed (and so checked) when read. */
  readonly #metadata: Map<number, Metadata>;
  /** Memory number → row. */
  readonly rows: NumberPositions;
  /** Over every row. */
  readonly window: ValidityWindow;

  constructor(count: number, numbers: Float64Array, lengths: Uint32Array, starts: Uint32Array, text: string, metadata: Map<number, Metadata>, rows: NumberPositions, window: ValidityWindow) {
    this.count = count;
    this.rows = rows;
    this.window = window;
    this.#numbers = numbers;
    this.#lengths = lengths;
    this.#starts = starts;
    this.#text = text;
    this.#metadata = metadata;
  }

  no(row: number): number {
    return this.#numbers[row]!;
  }

  createdAt(row: number): number {
    return this.#numbers[CREATED_AT * this.count + row]!;
  }

  validFrom(row: number): number {
    return this.#numbers[VALID_FROM * this.count + row]!;
  }

  /** One number column, by row (`VALID_TO` holds NaN for "still true"): a view, not a copy. */
  column(which: typeof CREATED_AT | typeof VALID_FROM | typeof VALID_TO): Float64Array {
    return this.#numbers.subarray(which * this.count, (which + 1) * this.count);
  }

  id(row: number): string {
    const from = this.#starts[row]!;
    return this.#text.slice(from, from + this.#lengths[4 * row]!);
  }

  /** Whether the row's fields match `filter`, compared where they lie in the strings: nothing is sliced out. */
  matches(row: number, filter: EntryFilter): boolean {
    const text = this.#text;
    const idAt = this.#starts[row]!;
    const idLength = this.#lengths[4 * row]!;
    if (filter.idPrefix !== null && !(filter.idPrefix.length <= idLength && text.startsWith(filter.idPrefix, idAt))) return false;
    const kindAt = idAt + idLength;
    const kindLength = this.#lengths[4 * row + 1]!;
    if (filter.kind !== undefined && !labelAt(text, kindAt, kindLength, filter.kind)) return false;
    const domainLength = this.#lengths[4 * row + 2]!;
    return filter.domain === undefined || labelAt(text, kindLength === NONE ? kindAt : kindAt + kindLength, domainLength, filter.domain);
  }

  entry(row: number): CatalogEntry {
    let at = this.#starts[row]! + this.#lengths[4 * row]!;
    const optional = (j: number): string | null => {
      const length = this.#lengths[4 * row + j]!;
      if (length === NONE) return null;
      return this.#text.slice(at, (at += length));
    };
    const kind = optional(1);
    const domain = optional(2);
    const to = this.#numbers[VALID_TO * this.count + row]!;
    return {
      no: this.no(row),
      id: this.id(row),
      kind,
      domain,
      metadata: this.#metadata.get(row) ?? NO_METADATA,
      createdAt: this.createdAt(row),
      validFrom: this.validFrom(row),
      validTo: Number.isNaN(to) ? null : to,
    };
  }

  /**
   * Rows `from` up to `to` as they were saved, to `writer`: their strings lie back to back, so
   * they go as one piece, and no entry is made (a catalog saved again after a few changes).
   */
  copyRows(from: number, to: number, writer: CatalogWriter): void {
    if (from >= to) return;
    for (let row = from; row < to; row++) {
      writer.row(this.no(row), this.createdAt(row), this.validFrom(row), this.#numbers[VALID_TO * this.count + row]!);
      writer.lengths(this.#lengths[4 * row]!, this.#lengths[4 * row + 1]!, this.#lengths[4 * row + 2]!, this.#lengths[4 * row + 3]!);
    }
    writer.text(this.#text.slice(this.#starts[from], to < this.count ? this.#starts[to] : this.#text.length));
  }

  *entries(): IterableIterator<CatalogEntry> {
    for (let row = 0; row < this.count; row++) yield this.entry(row);
  }
}

/** The catalog `encodeCatalog` saved; throws when the bytes are not whole or a row is not one a store holds. */
export function decodeCatalog(bytes: Uint8Array): SavedCatalog {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < HEAD || !MAGIC.every((b, i) => bytes[i] === b)) throw new Error('not a saved catalog');
  const version = view.getUint32(MAGIC.length, true);
  if (version !== 1 && version !== VERSION) throw new Error(`saved catalog version ${version}, this build reads 1 and ${VERSION}`);
  const n = view.getUint32(MAGIC.length + 4, true);
  const room = version === 1 ? n : capacityOf(n);
  const textAt = HEAD + 48 * room;
  if (textAt + 4 > bytes.length) throw new Error(`${n} rows run past the end`);
  const size = view.getUint32(textAt, true);
  if (textAt + 4 + size !== bytes.length) throw new Error(`the strings take ${size} bytes of ${bytes.length - textAt - 4}`);
  const numbers = new Float64Array(4 * n);
  const lengths = new Uint32Array(4 * n);
  for (let c = 0; c < 4; c++) readLE(bytes, HEAD + 8 * room * c, numbers.subarray(c * n, (c + 1) * n));
  readLE(bytes, HEAD + 32 * room, lengths);
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(textAt + 4));
  const starts = new Uint32Array(n);
  const metadata = new Map<number, Metadata>();
  const window = emptyWindow();
  let run = true;
  let from = 0;
  for (let i = 0; i < n; i++) {
    starts[i] = from;
    if (lengths[4 * i] === NONE || lengths[4 * i + 3] === NONE) throw new Error(`row ${i} has no id or no metadata`);
    for (let j = 0; j < 4; j++) {
      const length = lengths[4 * i + j]!;
      if (length === NONE) continue;
      if (from + length > text.length) throw new Error(`row ${i}'s strings run past the end`);
      from += length;
    }
    const no = numbers[i]!;
    const createdAt = numbers[n + i]!;
    const validFrom = numbers[2 * n + i]!;
    const validTo = numbers[3 * n + i]!;
    // Written out rather than called per row (an open runs this loop before it is compiled):
    // x − x is 0 only for a finite x, and validTo may also be NaN (x !== x) for "still true".
    // A store's rows are numbered from 1; a negative number (only in a crafted file) would index the validity columns from their end.
    if (!(no % 1 === 0 && no >= 0 && no <= Number.MAX_SAFE_INTEGER) || createdAt - createdAt !== 0 || validFrom - validFrom !== 0 || !(validTo - validTo === 0 || validTo !== validTo)) {
      throw new Error(`row ${i} is malformed`);
    }
    widen(window, createdAt, validFrom, validTo);
    run &&= no === numbers[0]! + i;
    const metadataLength = lengths[4 * i + 3]!;
    // Most memories carry no metadata; only the others are parsed.
    if (metadataLength === 2 && text.charCodeAt(from - 2) === 0x7b && text.charCodeAt(from - 1) === 0x7d) continue;
    const parsed: unknown = JSON.parse(text.slice(from - metadataLength, from));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`row ${i}'s metadata is not an object`);
    metadata.set(i, parsed as Metadata);
  }
  if (from !== text.length) throw new Error(`the strings hold ${text.length} characters, the rows use ${from}`);
  const rows = run ? NumberPositions.run(numbers[0] ?? 0, n) : NumberPositions.of(numbers.subarray(0, n));
  if (rows === null) throw new Error('a memory number appears twice');
  return new SavedCatalog(n, numbers, lengths, starts, text, metadata, rows, window);
}

/** Whether the optional label of `length` (NONE: absent) at `at` in `text` is `label` (null: absent). */
function labelAt(text: string, at: number, length: number, label: string | null): boolean {
  return label === null ? length === NONE : length === label.length && text.startsWith(label, at);
}
