/**
 * The int8 codes and error bounds of a flat index, saved so that an open copies them instead of
 * quantizing every vector again (the largest per-vector cost of opening a store once the vectors
 * are read). The store keeps these bytes stamped with its generation, like the lexical index, so
 * they are only offered back for the vectors they were made from.
 *
 * Layout: "HMVQ", format version, dim and count as little-endian u32; then `count` i32 memory
 * numbers in ascending order, zero padding to a multiple of 8 bytes, `count × META` f64 bounds
 * and `count × stride` i8 codes, all little-endian (the order an open reads vectors in).
 */
import { HybridMindError, show } from '../../errors.js';
import { META, strideOf } from './quantize.js';
import { LITTLE_ENDIAN } from '../../util/endian.js';

const MAGIC = [0x48, 0x4d, 0x56, 0x51] as const;
const VERSION = 1;
const HEADER = 16;

/** Codes and bounds of the vectors `nos`, in that order. */
export interface QuantizedRun {
  nos: Int32Array;
  meta: Float64Array;
  codes: Int8Array;
}

function layout(count: number, stride: number): { meta: number; codes: number; total: number } {
  const meta = (HEADER + count * 4 + 7) & ~7;
  const codes = meta + count * META * 8;
  return { meta, codes, total: codes + count * stride };
}

/**
 * Writes the run of `slots` (already in ascending number order) read out of an index's arrays.
 * Null on a big-endian host: the bytes are written as typed-array views, and such a store just
 * quantizes at open as before.
 */
export function encodeQuantized(dim: number, slots: Int32Array, slotToNo: Int32Array, meta: Float64Array, codes: Int8Array): Uint8Array | null {
  if (!LITTLE_ENDIAN) return null;
  const stride = strideOf(dim);
  const count = slots.length;
  const at = layout(count, stride);
  const out = new Uint8Array(at.total);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, dim, true);
  view.setUint32(12, count, true);
  const nos = new Int32Array(out.buffer, HEADER, count);
  const bounds = new Float64Array(out.buffer, at.meta, count * META);
  for (let i = 0; i < count; i++) {
    const slot = slots[i]!;
    nos[i] = slotToNo[slot]!;
    bounds.set(meta.subarray(slot * META, (slot + 1) * META), i * META);
    out.set(new Uint8Array(codes.buffer, codes.byteOffset + slot * stride, stride), at.codes + i * stride);
  }
  return out;
}

/** Reads `encodeQuantized` bytes for an index of `dim`; anything else is a `CORRUPT` error. */
export function decodeQuantized(method: string, bytes: Uint8Array, dim: number): QuantizedRun {
  const corrupt = (what: string) => new HybridMindError('CORRUPT', method, what);
  if (!(bytes instanceof Uint8Array) || bytes.byteLength < HEADER) throw corrupt(`quantized vectors must be at least ${HEADER} bytes, received ${show(bytes)}`);
  if (MAGIC.some((byte, i) => bytes[i] !== byte)) throw corrupt('not a quantized-vectors snapshot (magic)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  const savedDim = view.getUint32(8, true);
  const count = view.getUint32(12, true);
  if (version !== VERSION) throw corrupt(`unsupported quantized-vectors version ${version}, expected ${VERSION}`);
  if (savedDim !== dim) throw corrupt(`quantized vectors of dimension ${savedDim}, the index has ${dim}`);
  const at = layout(count, strideOf(dim));
  if (bytes.byteLength !== at.total) throw corrupt(`${count} quantized vectors of dimension ${dim} need ${at.total} bytes, received ${bytes.byteLength}`);
  if (!LITTLE_ENDIAN) throw corrupt('quantized vectors are read on little-endian hosts only');
  // Views need aligned offsets; a blob handed over at an odd offset is copied once.
  const own = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const nos = new Int32Array(own.buffer, own.byteOffset + HEADER, count);
  for (let i = 1; i < count; i++) if (!(nos[i]! > nos[i - 1]!)) throw corrupt(`numbers are not ascending at ${i}`);
  return {
    nos,
    meta: new Float64Array(own.buffer, own.byteOffset + at.meta, count * META),
    codes: new Int8Array(own.buffer, own.byteOffset + at.codes, count * strideOf(dim)),
  };
}
