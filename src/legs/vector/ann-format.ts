import { HybridMindError } from '../../errors.js';
import type { HnswParams } from './hnsw-index.js';
import { piecesBytes, type PartedBytes } from '../../util/parted-bytes.js';
import { stripVectors } from './hnsw-links.js';

/**
 * The persisted form of an approximate index: a header that ties the bytes to the vectors they
 * were built from, then the graph. Layout (little-endian):
 * "HMAN" | u32 version | u32 dim | u32 count | u32 digestA | u32 digestB | u32 checksum |
 * u32 m | u32 efConstruction | u32 graphBytes | u32 deletedCount | count × i32 no |
 * deletedCount × i32 no (removed, still occupying hnswlib slots) | count × 2 u32 digest entry
 * (from version 2) | graph.
 *
 * Version 3 keeps the graph without the vectors the store holds (`stripVectors`): 15 MB instead
 * of 160 MB at 100k 384-d vectors, in the database, its snapshots and a reopen's read. Versions 1
 * and 2 kept hnswlib's serialisation whole; they are still read, and stripped as they are.
 * Version 2 added each vector's digest entry, so bytes saved before the last few writes can be
 * brought up to date (the changed vectors re-added, the removed ones marked deleted) instead of
 * being thrown away for a full rebuild; version 1 bytes serve only an exact match.
 */
const MAGIC = 0x4e414d48; // "HMAN" read as a little-endian u32
const VERSION = 3;
const WHOLE_GRAPH_VERSION = 2;
const WITHOUT_ENTRIES_VERSION = 1;
const HEADER = 44;

export interface AnnRecord {
  dim: number;
  /** What the index was built from (see `VectorDigest`): stale bytes are never served. */
  digest: [number, number];
  params: Pick<HnswParams, 'm' | 'efConstruction'>;
  nos: Int32Array;
  deleted: Int32Array;
  /** Per `nos[i]`, the two words its vector adds to the digest (`VectorDigest.entries`); null in version 1 bytes. */
  entries: Uint32Array | null;
  /** hnswlib's graph in the stripped form (`hnsw-links.ts`). */
  graph: Uint8Array;
}

/**
 * The bytes `decodeAnn` reads, in two pieces: the header with the numbers and digest entries, then
 * the graph as given, uncopied.
 */
export function encodeAnn(record: AnnRecord & { entries: Uint32Array }): PartedBytes {
  const { nos, deleted, entries, graph } = record;
  if (entries.length !== 2 * nos.length) throw new Error(`encodeAnn: ${entries.length} digest words for ${nos.length} vectors`);
  const labels = nos.length + deleted.length;
  const head = new Uint8Array(HEADER + labels * 4 + entries.length * 4);
  const view = new DataView(head.buffer);
  const fields = [MAGIC, VERSION, record.dim, nos.length, record.digest[0], record.digest[1], 0, record.params.m, record.params.efConstruction, graph.length, deleted.length];
  fields.forEach((value, i) => view.setUint32(i * 4, value >>> 0, true));
  for (let i = 0; i < nos.length; i++) view.setInt32(HEADER + i * 4, nos[i]!, true);
  for (let i = 0; i < deleted.length; i++) view.setInt32(HEADER + (nos.length + i) * 4, deleted[i]!, true);
  for (let i = 0; i < entries.length; i++) view.setUint32(HEADER + (labels + i) * 4, entries[i]!, true);
  view.setUint32(24, checksum(head.subarray(HEADER), graph), true);
  return piecesBytes([head, graph]);
}

/** Parses and verifies bytes from `encodeAnn`; anything inconsistent is `CORRUPT`. */
export function decodeAnn(bytes: Uint8Array): AnnRecord {
  const corrupt = (what: string) => new HybridMindError('CORRUPT', 'ann.load', what);
  if (bytes.length < HEADER) throw corrupt(`index bytes are ${bytes.length} long, shorter than the ${HEADER}-byte header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u32 = (i: number) => view.getUint32(i * 4, true);
  if (u32(0) !== MAGIC) throw corrupt('not a HybridMind ANN index (bad magic)');
  const version = u32(1);
  if (version < WITHOUT_ENTRIES_VERSION || version > VERSION) throw corrupt(`unsupported ANN format version ${version}, expected ${WITHOUT_ENTRIES_VERSION} to ${VERSION}`);
  const count = u32(3);
  const graphBytes = u32(9);
  const deletedCount = u32(10);
  const entryWords = version >= WHOLE_GRAPH_VERSION ? 2 * count : 0;
  const at = HEADER + (count + deletedCount + entryWords) * 4;
  const expected = at + graphBytes;
  if (bytes.length !== expected) throw corrupt(`expected ${expected} bytes, received ${bytes.length}`);
  const sum = checksum(bytes.subarray(HEADER));
  if (sum !== u32(6)) throw corrupt(`checksum mismatch: stored ${u32(6)}, computed ${sum}`);
  const nos = new Int32Array(count);
  for (let i = 0; i < count; i++) nos[i] = view.getInt32(HEADER + i * 4, true);
  const deleted = new Int32Array(deletedCount);
  for (let i = 0; i < deletedCount; i++) deleted[i] = view.getInt32(HEADER + (count + i) * 4, true);
  const entries = version >= WHOLE_GRAPH_VERSION ? new Uint32Array(entryWords) : null;
  for (let i = 0; i < entryWords; i++) entries![i] = view.getUint32(HEADER + (count + deletedCount + i) * 4, true);
  return {
    dim: u32(2),
    digest: [u32(4), u32(5)],
    params: { m: u32(7), efConstruction: u32(8) },
    nos,
    deleted,
    entries,
    graph: version === VERSION ? bytes.subarray(at) : stripVectors(bytes.subarray(at), u32(2)),
  };
}

/**
 * FNV-1a over 32-bit words (bytes for the tail): catches torn or truncated writes at ~1 GB/s in
 * JS, which a 15 MB graph needs; it is not a cryptographic hash. Over `pieces` as if joined, so
 * every piece but the last must be whole words.
 */
export function checksum(...pieces: Uint8Array[]): number {
  let h = 0x811c9dc5;
  pieces.forEach((bytes, p) => {
    const words = bytes.byteLength >>> 2;
    if (p < pieces.length - 1 && words * 4 !== bytes.length) throw new Error(`checksum: piece ${p} is ${bytes.length} bytes, not whole words`);
    h = (bytes.byteOffset & 3) === 0 ? fnvWords(h, new Uint32Array(bytes.buffer, bytes.byteOffset, words)) : fnvUnaligned(h, bytes, words);
    for (let i = words * 4; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  });
  return h >>> 0;
}

/**
 * The aligned words in a loop of their own: choosing between the typed array and a DataView at
 * every word ran at about half the speed (160 MB, a whole-graph HNSW save at 100k vectors: 100–139 → 71–88 ms).
 */
function fnvWords(h: number, words: Uint32Array): number {
  for (let i = 0; i < words.length; i++) h = Math.imul(h ^ words[i]!, 0x01000193);
  return h;
}

function fnvUnaligned(h: number, bytes: Uint8Array, words: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < words; i++) h = Math.imul(h ^ view.getUint32(i * 4, true), 0x01000193);
  return h;
}

/**
 * An order-independent fingerprint of a set of (no, vector) pairs, updated in O(dim) per change:
 * two 32-bit sums of per-entry hashes with different seeds. It stands for the store generation
 * of the vectors: equal digests mean the saved index was built from exactly these vectors.
 * Each entry's hash is kept, so replacing or removing a vector needs only its number: a flat
 * index that re-scores from the store (see `FlatVectorIndex.release`) no longer has the old
 * vector once the store holds the new one.
 */
export class VectorDigest {
  a = 0;
  b = 0;
  /** Entry number → its pair's index in `#hashes`; freed indexes are reused. */
  readonly #at = new Map<number, number>();
  #hashes = new Uint32Array(0);
  #free: number[] = [];

  /** Adds the entry, or replaces the one `no` had. */
  set(no: number, vector: Float32Array): void {
    this.delete(no);
    const [x, y] = entryHash(no, vector);
    this.a = (this.a + x) >>> 0;
    this.b = (this.b + y) >>> 0;
    const at = this.#free.pop() ?? this.#at.size;
    if (2 * at + 2 > this.#hashes.length) {
      const grown = new Uint32Array(Math.max(64, 2 * this.#hashes.length));
      grown.set(this.#hashes);
      this.#hashes = grown;
    }
    this.#hashes[2 * at] = x;
    this.#hashes[2 * at + 1] = y;
    this.#at.set(no, at);
  }

  delete(no: number): void {
    const at = this.#at.get(no);
    if (at === undefined) return;
    this.a = (this.a - this.#hashes[2 * at]!) >>> 0;
    this.b = (this.b - this.#hashes[2 * at + 1]!) >>> 0;
    this.#at.delete(no);
    this.#free.push(at);
  }

  /** The two words `nos` each add to the digest, in that order (what a saved quantized run keeps); each must be held. */
  entries(nos: Int32Array): Uint32Array {
    const out = new Uint32Array(nos.length * 2);
    for (let i = 0; i < nos.length; i++) {
      const at = this.#at.get(nos[i]!);
      if (at === undefined) throw new Error(`VectorDigest.entries: no entry for ${nos[i]}`);
      out[2 * i] = this.#hashes[2 * at]!;
      out[2 * i + 1] = this.#hashes[2 * at + 1]!;
    }
    return out;
  }

  /** Replaces everything held with saved `entries` of `nos` (from `entries`), as if each vector had been `set`. */
  adopt(nos: Int32Array, entries: Uint32Array): void {
    this.reset();
    this.#hashes = entries.slice();
    let a = 0;
    let b = 0;
    for (let i = 0; i < nos.length; i++) {
      this.#at.set(nos[i]!, i);
      a = (a + entries[2 * i]!) >>> 0;
      b = (b + entries[2 * i + 1]!) >>> 0;
    }
    this.a = a;
    this.b = b;
  }

  reset(): void {
    this.a = 0;
    this.b = 0;
    this.#at.clear();
    this.#free = [];
  }

  equals(digest: readonly [number, number]): boolean {
    return this.a === digest[0] && this.b === digest[1];
  }

  has(no: number): boolean {
    return this.#at.has(no);
  }

  /** Whether `no` is held with the vector whose entry is `x, y` (two words of `entries`). */
  holds(no: number, x: number, y: number): boolean {
    const at = this.#at.get(no);
    return at !== undefined && this.#hashes[2 * at] === x && this.#hashes[2 * at + 1] === y;
  }
}

function entryHash(no: number, vector: Float32Array): [number, number] {
  const words = new Uint32Array(vector.buffer, vector.byteOffset, vector.length);
  let x = Math.imul(0x811c9dc5 ^ no, 0x01000193);
  let y = Math.imul(0x9747b28c ^ no, 0x5bd1e995);
  for (let i = 0; i < words.length; i++) {
    x = Math.imul(x ^ words[i]!, 0x01000193);
    y = Math.imul(y ^ words[i]!, 0x5bd1e995);
    y ^= y >>> 15;
  }
  return [x >>> 0, y >>> 0];
}
