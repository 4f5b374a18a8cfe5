/**
 * Zip bombs shaped like the one issue 12 found: a snapshot whose store.db is a real database
 * followed by filler pages, its SQLite header made to agree with the padded size, its SHA-256
 * correct. The DEFLATE stream is assembled from byte-aligned pieces (raw deflate, sync flush), each
 * compressed once and repeated, so a 900 MiB store.db costs a few MB and one hashing pass to make.
 */
import { createHash, randomFillSync } from 'node:crypto';
import { constants, deflateRawSync } from 'node:zlib';
import { writeZip, type RawEntry } from './archive.js';

const MiB = 1024 * 1024;
/** The last, empty block of a DEFLATE stream (BFINAL=1, fixed Huffman, end-of-block). */
const FINAL_BLOCK = new Uint8Array([0x03, 0x00]);

export interface BombOptions {
  /** The snapshot's entries, store.db among them (it becomes the bomb's head). */
  entries: RawEntry[];
  /** store.db's inflated size (whole pages): the real database, then filler, then `tailBytes`. */
  storeDbBytes: number;
  /** Uncompressed ÷ compressed ratio of the filler, spread evenly over each page. */
  ratio: number;
  /**
   * Bytes of incompressible filler put after the dense filler, so the entry's overall ratio is
   * lower than its first megabytes' (a front-loaded bomb). 0 for a uniform bomb.
   */
  tailBytes?: number;
  /** Seed of the filler's noise. */
  seed?: number;
}

export interface Bomb {
  zip: Uint8Array;
  /** store.db's size over its compressed size, as the central directory declares them. */
  declaredRatio: number;
}

/** `data` as a byte-aligned piece of a DEFLATE stream: deflated at `level` (0 stores it), then a sync flush. */
const flushedPiece = (data: Uint8Array, level: number): Uint8Array => new Uint8Array(deflateRawSync(data, { level, finishFlush: constants.Z_SYNC_FLUSH }));
const syncPiece = (data: Uint8Array): Uint8Array => flushedPiece(data, 9);

/**
 * The real database's piece: deflated, unless that alone passes `ratio` (a small store's mostly
 * empty 32 KB pages do), then stored, so the head never lifts the entry's ratio, declared or
 * running, above its filler's.
 */
function headPiece(head: Uint8Array, ratio: number): Uint8Array {
  const deflated = syncPiece(head);
  return head.length / deflated.length <= ratio ? deflated : flushedPiece(head, 0);
}

/** A noise source that is the same on every run (fast-check is for arguments; this is bulk bytes). */
function noise(seed: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

/** One MiB of filler pages whose compressed piece comes within 1% of `ratio` (never above it). */
function fillerChunk(pageSize: number, ratio: number, seed: number): { chunk: Uint8Array; piece: Uint8Array } {
  const pages = MiB / pageSize;
  let low = 0;
  let high = pageSize;
  let best: { chunk: Uint8Array; piece: Uint8Array } | null = null;
  // More noise per page lowers the ratio; search the amount that lands just under the target.
  while (low <= high) {
    const perPage = (low + high) >> 1;
    const chunk = new Uint8Array(MiB);
    for (let p = 0; p < pages; p++) chunk.set(noise(seed + p, perPage), p * pageSize);
    const piece = syncPiece(chunk);
    if (MiB / piece.length <= ratio) {
      best = { chunk, piece };
      high = perPage - 1;
    } else {
      low = perPage + 1;
    }
  }
  return best!;
}

export function makeBomb(options: BombOptions): Bomb {
  const source = options.entries.find((e) => e.name === 'store.db')!.data;
  const pageSize = new DataView(source.buffer, source.byteOffset).getUint16(16);
  const head = source.slice();
  const view = new DataView(head.buffer);
  view.setUint32(28, options.storeDbBytes / pageSize);
  view.setUint32(92, view.getUint32(24));
  const tail = options.tailBytes ?? 0;
  const fillerBytes = options.storeDbBytes - head.length - tail;
  if (fillerBytes < 0 || options.storeDbBytes % pageSize !== 0 || tail % pageSize !== 0) throw new Error('makeBomb: store.db and its tail must be whole pages, the tail within store.db');
  const chunks = Math.floor(fillerBytes / MiB);
  const { chunk, piece } = fillerChunk(pageSize, options.ratio, options.seed ?? 12);
  const tailBytes = new Uint8Array(tail);
  if (tail > 0) randomFillSync(tailBytes);

  const hash = createHash('sha256').update(head);
  for (let i = 0; i < chunks; i++) hash.update(chunk);
  const rest = chunk.subarray(0, fillerBytes % MiB);
  hash.update(rest).update(tailBytes);
  const pieces = [headPiece(head, options.ratio), ...Array.from({ length: chunks }, () => piece), ...[rest, tailBytes].filter((b) => b.length > 0).map(syncPiece), FINAL_BLOCK];
  const payload = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    payload.set(p, at);
    at += p.length;
  }

  const sha256 = hash.digest('hex');
  const manifestEntry = options.entries.find((e) => e.name === 'manifest.json')!;
  const manifest = JSON.parse(new TextDecoder().decode(manifestEntry.data));
  for (const part of manifest.parts) if (part.name === 'store.db') Object.assign(part, { bytes: options.storeDbBytes, sha256 });
  const entries = options.entries.map((e): RawEntry => {
    if (e.name === 'manifest.json') return { ...e, data: new TextEncoder().encode(JSON.stringify(manifest, null, 2)) };
    // The sizes describe the bomb; `data` only feeds the CRC, which the reader does not trust anyway.
    if (e.name === 'store.db') return { ...e, data: head, payload, declaredSize: options.storeDbBytes, method: 8 };
    return e;
  });
  return { zip: writeZip(entries), declaredRatio: options.storeDbBytes / payload.length };
}
