/**
 * The portable form of a flat index (`FlatVectorIndex.save`/`load`): "HMVF", format version, dim
 * and count as little-endian u32, then `count` i32 memory numbers and `count × dim` f32, all
 * little-endian whatever the host.
 */
import { HybridMindError, invalid, show } from '../../errors.js';
import { readLE, writeLE } from '../../util/endian.js';

const MAGIC = [0x48, 0x4d, 0x56, 0x46] as const;
const VERSION = 1;
const HEADER = 16;

/**
 * The bytes of `nos` and their vectors, which `vectors(from, to)` hands over `step` at a time (an
 * index that re-scores from the store reads them back in batches instead of holding them).
 */
export function encodeFlat(dim: number, nos: Int32Array, step: number, vectors: (from: number, to: number) => Float32Array): Uint8Array {
  const n = nos.length;
  const out = new Uint8Array(HEADER + n * 4 * (1 + dim));
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, dim, true);
  view.setUint32(12, n, true);
  writeLE(out, HEADER, nos, n);
  for (let from = 0; from < n; from += step) {
    const to = Math.min(n, from + step);
    writeLE(out, HEADER + n * 4 + from * dim * 4, vectors(from, to), (to - from) * dim);
  }
  return out;
}

/**
 * Checks `bytes` and reads them into the arrays `into(dim, count)` returns (the new index's own,
 * so nothing is copied twice). Anything inconsistent is `CORRUPT` before `into` is called.
 */
export function decodeFlat(method: string, bytes: Uint8Array, maxDim: number, into: (dim: number, count: number) => { nos: Int32Array; vectors: Float32Array }): void {
  if (!(bytes instanceof Uint8Array)) throw invalid(method, 'bytes must be a Uint8Array', bytes);
  const corrupt = (what: string) => new HybridMindError('CORRUPT', method, what);
  if (bytes.length < HEADER) throw corrupt(`snapshot is ${bytes.length} bytes, shorter than its ${HEADER}-byte header`);
  if (MAGIC.some((byte, i) => bytes[i] !== byte)) {
    throw corrupt(`not a flat vector snapshot, magic ${show(String.fromCharCode(...bytes.subarray(0, 4)))}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  const dim = view.getUint32(8, true);
  const count = view.getUint32(12, true);
  if (version !== VERSION) throw corrupt(`unsupported format version ${version}, expected ${VERSION}`);
  if (dim < 1 || dim > maxDim) throw corrupt(`dimension ${dim} is outside [1, ${maxDim}]`);
  const expected = HEADER + count * 4 * (1 + dim);
  if (bytes.length !== expected) {
    throw corrupt(`${count} vectors of dimension ${dim} need ${expected} bytes, received ${bytes.length}`);
  }
  const { nos, vectors } = into(dim, count);
  readLE(bytes, HEADER, nos, count);
  readLE(bytes, HEADER + count * 4, vectors, count * dim);
}
