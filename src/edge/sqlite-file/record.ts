/**
 * SQLite's record format (https://www.sqlite.org/fileformat2.html#record_format): a header of
 * varint serial types followed by the values, plus the ordering SQLite's indexes keep. Integers
 * are bigint so every 64-bit value survives; reals are number.
 */

export type StoredValue = null | bigint | number | string | Uint8Array;

/** How one index column is ordered; `coll` is SQLite's collation name. */
export interface ColumnOrder {
  desc: boolean;
  coll: 'BINARY' | 'NOCASE' | 'RTRIM';
}

const encoder = new TextEncoder();

export function varintLength(value: bigint): number {
  let v = BigInt.asUintN(64, value);
  if (v >> 56n) return 9;
  let n = 1;
  while ((v >>= 7n) > 0n) n++;
  return n;
}

/** Writes a big-endian varint of 1–9 bytes (the ninth byte carries 8 bits) and returns the next position. */
export function writeVarint(out: Uint8Array, pos: number, value: bigint): number {
  const v = BigInt.asUintN(64, value);
  if (v >> 56n) {
    out[pos + 8] = Number(v & 0xffn);
    let rest = v >> 8n;
    for (let i = 7; i >= 0; i--) {
      out[pos + i] = Number(rest & 0x7fn) | 0x80;
      rest >>= 7n;
    }
    return pos + 9;
  }
  const n = varintLength(v);
  let rest = v;
  for (let i = n - 1; i >= 0; i--) {
    out[pos + i] = Number(rest & 0x7fn) | (i === n - 1 ? 0 : 0x80);
    rest >>= 7n;
  }
  return pos + n;
}

/** Reads a varint at `pos`; `null` when it would run past `end`. */
export function readVarint(bytes: Uint8Array, pos: number, end: number): { value: bigint; next: number } | null {
  let value = 0n;
  for (let i = 0; i < 9; i++) {
    if (pos + i >= end) return null;
    const byte = bytes[pos + i]!;
    if (i === 8) return { value: BigInt.asIntN(64, (value << 8n) | BigInt(byte)), next: pos + 9 };
    value = (value << 7n) | BigInt(byte & 0x7f);
    if ((byte & 0x80) === 0) return { value: BigInt.asIntN(64, value), next: pos + i + 1 };
  }
  return null;
}

const INT_SIZES = [0, 1, 2, 3, 4, 6, 8] as const;

function intSerialType(v: bigint): number {
  if (v === 0n) return 8;
  if (v === 1n) return 9;
  for (let type = 1; type <= 5; type++) {
    const bits = BigInt(INT_SIZES[type]! * 8);
    if (v >= -(1n << (bits - 1n)) && v < 1n << (bits - 1n)) return type;
  }
  return 6;
}

interface Encoded {
  type: number;
  body: Uint8Array;
}

function encodeValue(value: StoredValue): Encoded {
  if (value === null) return { type: 0, body: new Uint8Array(0) };
  if (typeof value === 'bigint') {
    const type = intSerialType(value);
    const size = type >= 8 ? 0 : INT_SIZES[type]!;
    const body = new Uint8Array(size);
    let rest = value;
    for (let i = size - 1; i >= 0; i--) {
      body[i] = Number(BigInt.asUintN(8, rest));
      rest >>= 8n;
    }
    return { type, body };
  }
  if (typeof value === 'number') {
    const body = new Uint8Array(8);
    new DataView(body.buffer).setFloat64(0, value, false);
    return { type: 7, body };
  }
  if (typeof value === 'string') {
    const body = encoder.encode(value);
    return { type: 13 + 2 * body.length, body };
  }
  return { type: 12 + 2 * value.length, body: value };
}

export function encodeRecord(values: readonly StoredValue[]): Uint8Array {
  const parts = values.map(encodeValue);
  let typesLength = 0;
  for (const p of parts) typesLength += varintLength(BigInt(p.type));
  // The header length counts its own varint, whose length depends on the total.
  let own = 1;
  while (varintLength(BigInt(typesLength + own)) > own) own++;
  const headerLength = typesLength + own;
  const bodyLength = parts.reduce((n, p) => n + p.body.length, 0);
  const out = new Uint8Array(headerLength + bodyLength);
  let pos = writeVarint(out, 0, BigInt(headerLength));
  for (const p of parts) pos = writeVarint(out, pos, BigInt(p.type));
  for (const p of parts) {
    out.set(p.body, pos);
    pos += p.body.length;
  }
  return out;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Decodes a record; throws a plain Error naming the problem (the caller adds where it was). */
export function decodeRecord(payload: Uint8Array): StoredValue[] {
  const header = readVarint(payload, 0, payload.length);
  if (!header || header.value < 1n || header.value > BigInt(payload.length)) throw new Error('record header length out of range');
  const headerEnd = Number(header.value);
  const types: number[] = [];
  for (let pos = header.next; pos < headerEnd;) {
    const t = readVarint(payload, pos, headerEnd);
    if (!t || t.value < 0n || t.value > 0xffffffffn) throw new Error('unreadable serial type');
    types.push(Number(t.value));
    pos = t.next;
  }
  const values: StoredValue[] = [];
  let pos = headerEnd;
  for (const type of types) {
    if (type === 10 || type === 11) throw new Error(`reserved serial type ${type}`);
    const size = type === 0 || type === 8 || type === 9 ? 0 : type <= 6 ? INT_SIZES[type]! : type === 7 ? 8 : (type - (type % 2 === 0 ? 12 : 13)) / 2;
    if (pos + size > payload.length) throw new Error('record body shorter than its header says');
    const body = payload.subarray(pos, pos + size);
    pos += size;
    if (type === 0) values.push(null);
    else if (type === 8) values.push(0n);
    else if (type === 9) values.push(1n);
    else if (type <= 6) {
      let v = 0n;
      for (const b of body) v = (v << 8n) | BigInt(b);
      values.push(BigInt.asIntN(size * 8, v));
    } else if (type === 7) values.push(new DataView(body.buffer, body.byteOffset, 8).getFloat64(0, false));
    else if (type % 2 === 0) values.push(body.slice());
    else values.push(decoder.decode(body));
  }
  return values;
}

function storageClass(v: StoredValue): number {
  if (v === null) return 0;
  if (typeof v === 'bigint' || typeof v === 'number') return 1;
  return typeof v === 'string' ? 2 : 3;
}

/**
 * Compares by code point, which is the order of the UTF-8 bytes SQLite compares: a UTF-16
 * surrogate stands for a code point above every other BMP character.
 */
function compareText(a: string, b: string, coll: ColumnOrder['coll']): number {
  if (coll === 'RTRIM') {
    a = a.replace(/ +$/, '');
    b = b.replace(/ +$/, '');
  }
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (coll === 'NOCASE') {
      if (x >= 65 && x <= 90) x += 32;
      if (y >= 65 && y <= 90) y += 32;
    }
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** SQLite's order: NULL, then numbers by value, then text by collation, then blobs by bytes. */
export function compareValues(a: StoredValue, b: StoredValue, coll: ColumnOrder['coll']): number {
  const ca = storageClass(a);
  const cb = storageClass(b);
  if (ca !== cb) return ca - cb;
  if (ca === 0) return 0;
  if (ca === 1) return a! < b! ? -1 : a! > b! ? 1 : 0;
  if (ca === 2) return compareText(a as string, b as string, coll);
  return compareBytes(a as Uint8Array, b as Uint8Array);
}

export function compareRecords(a: readonly StoredValue[], b: readonly StoredValue[], order: readonly ColumnOrder[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const o = order[i] ?? { desc: false, coll: 'BINARY' };
    const c = compareValues(a[i]!, b[i]!, o.coll);
    if (c !== 0) return o.desc ? -c : c;
  }
  return a.length - b.length;
}
