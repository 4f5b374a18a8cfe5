/**
 * The saved int8 codes' layout: sections with room to grow (versions 3 and 4), so one more vector
 * leaves the bytes of the others where they were, and the older layouts (1 and 2) still read.
 */
import { describe, expect, it } from 'vitest';
import { FlatVectorIndex } from '../src/legs/vector/flat-index.js';
import { META, strideOf } from '../src/legs/vector/quantize.js';
import { decodeQuantized, encodeQuantized, readQuantized, type QuantizedRun } from '../src/legs/vector/quantized-snapshot.js';
import { capacityOf } from '../src/util/capacity.js';
import { inPieces } from './support/parted.js';
import { rng } from './support/random.js';

const DIM = 20;
const STRIDE = strideOf(DIM);

/** `count` vectors' worth of codes, bounds and digest words, numbered 1, 3, 5, … */
function run(count: number, seed = 7): QuantizedRun {
  const random = rng(seed);
  return {
    nos: Int32Array.from({ length: count }, (_, i) => 2 * i + 1),
    meta: Float64Array.from({ length: count * META }, () => random()),
    codes: Int8Array.from({ length: count * STRIDE }, () => Math.floor(random() * 255) - 127),
    digests: Uint32Array.from({ length: count * 2 }, () => Math.floor(random() * 2 ** 32)),
  };
}

const encode = (r: QuantizedRun, digests: boolean) => encodeQuantized(DIM, r.nos, r.meta, r.codes, digests ? () => r.digests! : null)!;

/** The same vectors in the layout versions 1 and 2 wrote: each section exactly as long as the count. */
function unpadded(r: QuantizedRun, digests: boolean): Uint8Array {
  const count = r.nos.length;
  const meta = (16 + count * 4 + 7) & ~7;
  const codes = meta + count * META * 8;
  const end = codes + count * STRIDE;
  const at = (end + 3) & ~3;
  const out = new Uint8Array(digests ? at + count * 8 : end);
  const view = new DataView(out.buffer);
  out.set([0x48, 0x4d, 0x56, 0x51]);
  view.setUint32(4, digests ? 2 : 1, true);
  view.setUint32(8, DIM, true);
  view.setUint32(12, count, true);
  new Int32Array(out.buffer, 16, count).set(r.nos);
  new Float64Array(out.buffer, meta, count * META).set(r.meta);
  new Int8Array(out.buffer, codes, count * STRIDE).set(r.codes);
  if (digests) new Uint32Array(out.buffer, at, count * 2).set(r.digests!);
  return out;
}

describe('saved int8 codes', () => {
  it('have room for at most ~6% more vectors than they hold, and keep it across a run of counts', () => {
    expect(capacityOf(0)).toBe(0);
    expect(capacityOf(1)).toBe(64);
    let previous = 0;
    for (let count = 1; count <= 300_000; count += 1 + Math.floor(count / 50)) {
      const room = capacityOf(count);
      expect(room).toBeGreaterThanOrEqual(count);
      expect(room).toBeGreaterThanOrEqual(previous);
      if (count >= 1_024) expect(room / count).toBeLessThan(1.0625 + 1e-9);
      previous = room;
    }
    // Room moves once per 4,096 new memories at 100k, not at every one.
    expect(new Set(Array.from({ length: 4_096 }, (_, i) => capacityOf(98_305 + i)))).toEqual(new Set([102_400]));
  });

  it.each([false, true])('keep every byte of the vectors saved before when one is added (digest entries: %s)', (digests) => {
    const all = run(301);
    const before = encode({ nos: all.nos.subarray(0, 300), meta: all.meta.subarray(0, 300 * META), codes: all.codes.subarray(0, 300 * STRIDE), digests: all.digests!.subarray(0, 600) }, digests);
    const after = encode(all, digests);
    expect(after.length).toBe(before.length);
    const differing = [...before].filter((byte, i) => after[i] !== byte).length;
    // The count, and the new vector's number, bounds, codes and digest words.
    expect(differing).toBeGreaterThan(0);
    expect(differing).toBeLessThanOrEqual(4 + 4 + META * 8 + STRIDE + (digests ? 8 : 0));
    expect(decodeQuantized('test', after, DIM)).toEqual({ ...all, digests: digests ? all.digests : null });
  });

  it.each([false, true])('read the unpadded layout of versions 1 and 2 as the padded one (digest entries: %s)', (digests) => {
    const r = run(150, 3);
    const expected = { ...r, digests: digests ? r.digests : null };
    for (const bytes of [encode(r, digests), unpadded(r, digests)]) {
      expect(decodeQuantized('test', bytes, DIM)).toEqual(expected);
      const codes = new Int8Array(150 * STRIDE);
      expect(readQuantized('test', inPieces(bytes, 97).bytes, DIM, () => codes)).toEqual({ ...expected, codes });
      expect(codes).toEqual(r.codes);
      expect(() => decodeQuantized('test', bytes.subarray(0, bytes.length - 1), DIM)).toThrow(/need \d+ bytes/);
    }
    expect(unpadded(r, digests).length).toBeLessThan(encode(r, digests).length);
  });

  it("are adopted by a flat index under their own numbers, and numbers that do not increase are refused", () => {
    const saved = run(50);
    const index = new FlatVectorIndex(DIM, null);
    index.adoptRun(saved, () => 0);
    expect(index.size).toBe(50);
    expect(index.has(1) && index.has(99) && !index.has(2)).toBe(true);
    for (const nos of [[5, 5], [9, 3], [-1, 2]]) {
      const bad = new FlatVectorIndex(DIM, null);
      const two = { ...run(2), nos: Int32Array.from(nos) };
      expect(() => bad.adoptRun(two, () => 0), String(nos)).toThrow(/CORRUPT|not whole, ≥ 0 and increasing/);
      expect(bad.size).toBe(0);
      expect(bad.has(nos[0]!)).toBe(false);
    }
    expect(() => index.adoptRun(run(2), () => 0)).toThrow(/must be empty, it holds 50/);
  });
});
