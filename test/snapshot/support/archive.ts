import { deflateSync, unzipSync } from 'fflate';
import { sha256Hex } from '../../../src/snapshot/sha256.js';
import { SqliteWasmDriver } from '../../../src/storage/sqlite-wasm.js';

/** One entry as the hostile corpus wants it written, lies included. */
export interface RawEntry {
  name: string;
  data: Uint8Array;
  /** 0 stored, 8 deflate (default). */
  method?: 0 | 8;
  /** Replaces the compressed payload (e.g. a truncated stream); sizes still describe `data`. */
  payload?: Uint8Array;
  /** Declared uncompressed size in the central directory (default the real one). */
  declaredSize?: number;
  /** Name written in the local header (default `name`). */
  localName?: string;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A ZIP writer that writes whatever it is told: duplicates, unsafe names, lying sizes. */
export function writeZip(entries: RawEntry[], options: { comment?: Uint8Array } = {}): Uint8Array {
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const method = e.method ?? 8;
    const payload = e.payload ?? (method === 8 ? deflateSync(e.data) : e.data);
    const name = enc.encode(e.name);
    const localName = enc.encode(e.localName ?? e.name);
    const crc = crc32(e.data);
    const size = e.declaredSize ?? e.data.length;
    const local = new Uint8Array(30 + localName.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(6, 0x0800, true);
    lv.setUint16(8, method, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, payload.length, true);
    lv.setUint32(22, size >>> 0, true);
    lv.setUint16(26, localName.length, true);
    local.set(localName, 30);
    const head = new Uint8Array(46 + name.length);
    const cv = new DataView(head.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(8, 0x0800, true);
    cv.setUint16(10, method, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, payload.length, true);
    cv.setUint32(24, size >>> 0, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(42, offset, true);
    head.set(name, 46);
    central.push(head);
    chunks.push(local, payload);
    offset += local.length + payload.length;
  }
  const dirSize = central.reduce((n, c) => n + c.length, 0);
  const comment = options.comment ?? new Uint8Array(0);
  const end = new Uint8Array(22 + comment.length);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, dirSize, true);
  ev.setUint32(16, offset, true);
  ev.setUint16(20, comment.length, true);
  end.set(comment, 22);
  const out = new Uint8Array(offset + dirSize + end.length);
  let at = 0;
  for (const c of [...chunks, ...central, end]) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** A snapshot taken apart: the manifest as a plain object, the parts by name. */
export interface Unpacked {
  manifest: Record<string, any>;
  parts: Map<string, Uint8Array>;
}

export function unpack(zip: Uint8Array): Unpacked {
  const files = unzipSync(zip);
  const parts = new Map(Object.entries(files).filter(([name]) => name !== 'manifest.json'));
  return { manifest: JSON.parse(new TextDecoder().decode(files['manifest.json'])), parts };
}

/** Entries in snapshot order, with the manifest's part sizes and checksums recomputed (unless told not to). */
export async function entriesOf(u: Unpacked, options: { fixChecksums?: boolean; manifestBytes?: Uint8Array } = {}): Promise<RawEntry[]> {
  const manifest = structuredClone(u.manifest);
  if (options.fixChecksums !== false && Array.isArray(manifest['parts'])) {
    for (const part of manifest['parts']) {
      const data = u.parts.get(part.name);
      if (!data) continue;
      part.bytes = data.length;
      part.sha256 = await sha256Hex('test', data);
    }
  }
  const manifestBytes = options.manifestBytes ?? new TextEncoder().encode(JSON.stringify(manifest, null, 2));
  return [
    { name: 'manifest.json', data: manifestBytes },
    ...[...u.parts].map(([name, data]): RawEntry => ({ name, data, method: name === 'vectors.f32' ? 0 : 8 })),
  ];
}

export async function repack(u: Unpacked, options: { fixChecksums?: boolean; manifestBytes?: Uint8Array } = {}): Promise<Uint8Array> {
  return writeZip(await entriesOf(u, options));
}

export function clone(u: Unpacked): Unpacked {
  return { manifest: structuredClone(u.manifest), parts: new Map([...u.parts].map(([k, v]) => [k, v.slice()])) };
}

/** Mulberry32: small, fast, seeded — the corpus is the same on every run. */
export function prng(seed: number): { next(): number; int(n: number): number; pick<T>(xs: readonly T[]): T } {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n), pick: (xs) => xs[Math.floor(next() * xs.length)]! };
}

/** store.db bytes after running `statements` on them (foreign keys off, so anything can be written). */
export async function editDb(bytes: Uint8Array, statements: string[]): Promise<Uint8Array> {
  const db = await SqliteWasmDriver.open({ bytes });
  db.exec('PRAGMA foreign_keys = OFF');
  for (const sql of statements) db.exec(sql);
  const out = db.serialize();
  db.close();
  return out;
}

export async function withStoreDb(u: Unpacked, statements: string[]): Promise<Unpacked> {
  const c = clone(u);
  c.parts.set('store.db', await editDb(u.parts.get('store.db')!, statements));
  return c;
}
