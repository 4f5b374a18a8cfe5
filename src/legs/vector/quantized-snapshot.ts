/**
 * The int8 codes and error bounds of a flat index, saved so that an open copies them instead of
 * quantizing every vector again (the largest per-vector cost of opening a store once the vectors
 * are read). The store keeps these bytes stamped with its generation, like the lexical index, so
 * they are only offered back for the vectors they were made from.
 *
 * Layout: "HMVQ", format version, dim and count as little-endian u32; then `count` i32 memory
 * numbers in ascending order, zero padding to a multiple of 8 bytes, `count × META` f64 bounds
 * and `count × stride` i8 codes, all little-endian (the order an open reads vectors in).
 * Version 2 appends `count × 2` u32: each vector's entry in the HNSW digest (`VectorDigest`), so an
 * open can check a saved HNSW graph against these vectors without reading them.
 * Versions 3 (without digest entries) and 4 (with) lay every section out for `capacityOf(count)`
 * vectors, zero past `count` (`util/capacity.ts` says why: a 100k store's quiet save rewrote all
 * 41 MB of its codes after one new memory).
 */
import { HybridMindError, show } from '../../errors.js';
import { META, strideOf } from './quantize.js';
import { capacityOf } from '../../util/capacity.js';
import { LITTLE_ENDIAN } from '../../util/endian.js';
import { isParted, readSections, wholeBytes, type PartedBytes } from '../../util/parted-bytes.js';

const MAGIC = [0x48, 0x4d, 0x56, 0x51] as const;
/** Version 1: codes and bounds. Version 2: also each vector's digest entry. Versions 3 and 4: as 1 and 2, with room to grow. */
const VERSIONS = [1, 2, 3, 4] as const;
const HEADER = 16;

const withDigests = (version: number) => version === 2 || version === 4;

/** Codes and bounds of the vectors `nos`, in that order. */
export interface QuantizedRun {
  nos: Int32Array;
  meta: Float64Array;
  codes: Int8Array;
  /** Per vector, its two digest words (`VectorDigest.entries`); null in version 1 bytes. */
  digests: Uint32Array | null;
}

/** Where each section of `version` bytes holding `count` vectors starts, and their length. */
function layout(version: number, count: number, stride: number): { meta: number; codes: number; digests: number; total: number } {
  const room = version >= 3 ? capacityOf(count) : count;
  const meta = (HEADER + room * 4 + 7) & ~7;
  const codes = meta + room * META * 8;
  const end = codes + room * stride;
  const at = (end + 3) & ~3;
  return { meta, codes, digests: at, total: withDigests(version) ? at + room * 8 : end };
}

/** Each vector's two digest words, for numbers in the order given. */
export type DigestEntries = (nos: Int32Array) => Uint32Array;

/**
 * Writes an index's vectors in ascending number order (`slotToNo`: each slot's number, slots 0 to
 * count − 1) read out of its arrays, with their digest entries when `digests` is given (version
 * 2). Null on a big-endian host: the bytes are written as typed-array views, and such a store
 * just quantizes at open as before.
 */
export function encodeQuantized(dim: number, slotToNo: Int32Array, meta: Float64Array, codes: Int8Array, digests: DigestEntries | null = null): Uint8Array | null {
  if (!LITTLE_ENDIAN) return null;
  const stride = strideOf(dim);
  const count = slotToNo.length;
  const version = digests === null ? 3 : 4;
  const at = layout(version, count, stride);
  const out = new Uint8Array(at.total);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(4, version, true);
  view.setUint32(8, dim, true);
  view.setUint32(12, count, true);
  const nos = new Int32Array(out.buffer, HEADER, count);
  const bounds = new Float64Array(out.buffer, at.meta, count * META);
  if (firstDescent(slotToNo) < 0) {
    // Slots are in number order unless memories were removed or stored out of order: most saves
    // copy each section whole, where sorting 100k slots and copying them one by one took ~0.1 s.
    nos.set(slotToNo);
    bounds.set(meta.subarray(0, count * META));
    out.set(new Uint8Array(codes.buffer, codes.byteOffset, count * stride), at.codes);
  } else {
    const slots = Int32Array.from(slotToNo.keys()).sort((a, b) => slotToNo[a]! - slotToNo[b]!);
    for (let i = 0; i < count; i++) {
      const slot = slots[i]!;
      nos[i] = slotToNo[slot]!;
      bounds.set(meta.subarray(slot * META, (slot + 1) * META), i * META);
      out.set(new Uint8Array(codes.buffer, codes.byteOffset + slot * stride, stride), at.codes + i * stride);
    }
  }
  if (digests !== null) {
    const entries = digests(nos);
    if (entries.length !== count * 2) throw new Error(`encodeQuantized: ${entries.length} digest words for ${count} vectors`);
    new Uint32Array(out.buffer, at.digests, count * 2).set(entries);
  }
  return out;
}

/** Where `nos` first fails to increase, or −1 when they increase throughout. */
function firstDescent(nos: Int32Array): number {
  for (let i = 1; i < nos.length; i++) if (!(nos[i]! > nos[i - 1]!)) return i;
  return -1;
}

/** The header's count and version, and where each section starts, checked against a value of `length` bytes. */
function headerOf(method: string, head: Uint8Array, length: number, dim: number): { count: number; version: number; at: ReturnType<typeof layout> } {
  if (head.byteLength < HEADER) throw corrupt(method, `quantized vectors must be at least ${HEADER} bytes, received ${length}`);
  if (MAGIC.some((byte, i) => head[i] !== byte)) throw corrupt(method, 'not a quantized-vectors snapshot (magic)');
  const view = new DataView(head.buffer, head.byteOffset, HEADER);
  const version = view.getUint32(4, true);
  const savedDim = view.getUint32(8, true);
  const count = view.getUint32(12, true);
  if (!(VERSIONS as readonly number[]).includes(version)) throw corrupt(method, `unsupported quantized-vectors version ${version}, expected one of ${VERSIONS.join(', ')}`);
  if (savedDim !== dim) throw corrupt(method, `quantized vectors of dimension ${savedDim}, the index has ${dim}`);
  const at = layout(version, count, strideOf(dim));
  if (length !== at.total) throw corrupt(method, `${count} quantized vectors of dimension ${dim} need ${at.total} bytes, received ${length}`);
  if (!LITTLE_ENDIAN) throw corrupt(method, 'quantized vectors are read on little-endian hosts only');
  return { count, version, at };
}

const corrupt = (method: string, what: string) => new HybridMindError('CORRUPT', method, what);

function checkAscending(method: string, nos: Int32Array): void {
  const at = firstDescent(nos);
  if (at >= 0) throw corrupt(method, `numbers are not ascending at ${at}`);
}

/** Reads `encodeQuantized` bytes for an index of `dim`; anything else is a `CORRUPT` error. */
export function decodeQuantized(method: string, bytes: Uint8Array, dim: number): QuantizedRun {
  if (!(bytes instanceof Uint8Array)) throw corrupt(method, `quantized vectors must be at least ${HEADER} bytes, received ${show(bytes)}`);
  const { count, version, at } = headerOf(method, bytes, bytes.byteLength, dim);
  // Views need aligned offsets; a blob handed over at an odd offset is copied once.
  const own = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const nos = new Int32Array(own.buffer, own.byteOffset + HEADER, count);
  checkAscending(method, nos);
  return {
    nos,
    meta: new Float64Array(own.buffer, own.byteOffset + at.meta, count * META),
    codes: new Int8Array(own.buffer, own.byteOffset + at.codes, count * strideOf(dim)),
    digests: withDigests(version) ? new Uint32Array(own.buffer, own.byteOffset + at.digests, count * 2) : null,
  };
}

/**
 * Reads `encodeQuantized` bytes piece by piece, each section copied straight to its place: the
 * codes to what `codesInto(count)` returns (the scan's own memory, so they are copied once), the
 * rest into arrays of their own. Anything that does not read is a `CORRUPT` error.
 */
export function readQuantized(method: string, bytes: Uint8Array | PartedBytes, dim: number, codesInto: (count: number) => Int8Array): QuantizedRun {
  const source = partedOf(method, bytes);
  // Typed by assertion: set inside the callback, which control flow does not follow.
  let run = null as QuantizedRun | null;
  const outcome = readSections(source, HEADER, (head) => {
    const { count, version, at } = headerOf(method, head, source.length, dim);
    const read: QuantizedRun = { nos: new Int32Array(count), meta: new Float64Array(count * META), codes: codesInto(count), digests: withDigests(version) ? new Uint32Array(count * 2) : null };
    run = read;
    return [
      { start: HEADER, into: bytesOf(read.nos) },
      { start: at.meta, into: bytesOf(read.meta) },
      { start: at.codes, into: bytesOf(read.codes) },
      ...(read.digests ? [{ start: at.digests, into: bytesOf(read.digests) }] : []),
    ];
  });
  if (outcome !== 'read' || run === null) throw corrupt(method, 'the saved quantized vectors are missing a part');
  checkAscending(method, run.nos);
  return run;
}

function partedOf(method: string, bytes: unknown): PartedBytes {
  if (bytes instanceof Uint8Array) return wholeBytes(bytes);
  if (isParted(bytes)) return bytes;
  throw corrupt(method, `quantized vectors must be at least ${HEADER} bytes, received ${show(bytes)}`);
}

function bytesOf(array: Int32Array | Float64Array | Int8Array | Uint32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}
