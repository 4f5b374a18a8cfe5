import { beforeAll, describe, expect, it } from 'vitest';
import { FlatVectorIndex } from '../src/legs/vector/flat-index.js';
import { decodeQuantized } from '../src/legs/vector/quantized-snapshot.js';
import type { VectorKernel } from '../src/legs/vector/kernel.js';
import { dotI8Js, META, quantizeQuery, quantizeVector, strideOf } from '../src/legs/vector/quantize.js';
import { ScanArena } from '../src/legs/vector/scan-arena.js';
import { rng } from './support/random.js';
import { simdKernel } from './support/kernel.js';

let kernel: VectorKernel;
beforeAll(async () => {
  kernel = await simdKernel();
});

function gaussian(next: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
}

function unit(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  for (let i = 0; i < v.length; i++) v[i] = v[i]! / Math.sqrt(norm);
  return v;
}

/**
 * Clustered unit vectors like real embeddings (many near-equal scores around the cut), plus exact
 * duplicates (equal scores, decided by the smaller no), a zero vector and a non-finite one.
 */
function corpus(dim: number, n: number, seed: number): { vectors: Float32Array[]; queries: Float32Array[] } {
  const next = rng(seed);
  const centres = Array.from({ length: 8 }, () => unit(Float32Array.from({ length: dim }, () => gaussian(next))));
  const vectors: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const c = centres[i % centres.length]!;
    vectors.push(i % 17 === 5 ? vectors[i - 1]!.slice() : unit(c.map((x) => x + gaussian(next) * 0.05)));
  }
  vectors[3] = new Float32Array(dim);
  vectors[9] = vectors[9]!.slice();
  vectors[9][0] = Number.NaN;
  const queries = Array.from({ length: 30 }, (_, q) => unit(centres[q % centres.length]!.map((x) => x + gaussian(next) * 0.03)));
  return { vectors, queries };
}

const paths = [
  { name: 'wasm', make: (dim: number) => new FlatVectorIndex(dim, kernel, { capacity: 16 }) },
  { name: 'js', make: (dim: number) => new FlatVectorIndex(dim, null, { capacity: 16 }) },
] as const;

describe.each(paths)('the int8 scan with f32 re-scoring ($name)', ({ make }) => {
  // k ≥ size takes the full f32 scan, so search(q, size) is the exact ranking to compare with.
  it.each([384, 37, 16, 3])('returns the f32 scan\'s top k, scores and order identical, at dim %i', (dim) => {
    const { vectors, queries } = corpus(dim, 600, dim);
    const index = make(dim);
    vectors.forEach((v, no) => index.add(no * 3, v));
    for (const no of [30, 300, 1500]) index.remove(no);
    index.add(9, vectors[40]!);
    for (const query of queries) {
      const exact = index.search(query, index.size);
      for (const k of [1, 10, 50]) expect(index.search(query, k)).toEqual(exact.slice(0, k));
      const accept = (no: number) => no % 2 === 0;
      expect(index.search(query, 10, accept)).toEqual(exact.filter((h) => accept(h.no)).slice(0, 10));
    }
  });

  it('keeps the result exact when fewer than k vectors are accepted', () => {
    const { vectors, queries } = corpus(24, 100, 5);
    const index = make(24);
    vectors.forEach((v, no) => index.add(no, v));
    const accept = (no: number) => no < 4;
    expect(index.search(queries[0]!, 10, accept)).toEqual(index.search(queries[0]!, 100).filter((h) => h.no < 4));
  });

  it('holds after addPacked what one add per vector holds: appended, replacing, and checked', () => {
    const dim = 40;
    const { vectors, queries } = corpus(dim, 300, 23);
    const packed = (list: Float32Array[]) => {
      const out = new Float32Array(list.length * dim);
      list.forEach((v, i) => out.set(v, i * dim));
      return out;
    };
    const one = make(dim);
    const bulk = make(dim);
    vectors.forEach((v, no) => one.add(no, v));
    bulk.addPacked(vectors.slice(0, 100).map((_, no) => no), packed(vectors.slice(0, 100)));
    bulk.addPacked(vectors.slice(100).map((_, i) => 100 + i), packed(vectors.slice(100)));
    // Numbers already held are replaced in place, new ones appended, in one call.
    const mixed = [7, 250, 300, 301];
    const replacements = [vectors[1]!, vectors[2]!, vectors[3]!, vectors[4]!];
    mixed.forEach((no, i) => one.add(no, replacements[i]!));
    bulk.addPacked(mixed, packed(replacements));
    expect(bulk.size).toBe(one.size);
    for (const query of queries) expect(bulk.search(query, 10)).toEqual(one.search(query, 10));
    expect(() => bulk.addPacked([1, 2], new Float32Array(dim))).toThrow(/FlatVectorIndex\.addPacked.*2 vectors of length 40 \(80 numbers\), received length 40/);
    expect(() => bulk.addPacked([-1], new Float32Array(dim))).toThrow(/FlatVectorIndex\.addPacked/);
  });

  it('copies offered codes and bounds instead of quantizing, and quantizes again when the numbers do not match', () => {
    const dim = 40;
    const { vectors, queries } = corpus(dim, 300, 29);
    const source = make(dim);
    vectors.forEach((v, no) => source.add(no, v));
    for (const no of [4, 150]) source.remove(no);
    source.add(4, vectors[4]!);
    const saved = source.saveQuantized()!;
    // The reopened index reads its vectors in ascending number order, in chunks.
    const nos = [...Array(300).keys()].filter((no) => no !== 150);
    const packed = new Float32Array(nos.length * dim);
    nos.forEach((no, i) => packed.set(vectors[no]!, i * dim));
    const reopen = (offer: Uint8Array | null, cut = 128) => {
      const index = make(dim);
      index.useQuantized(offer);
      for (let at = 0; at < nos.length; at += cut) index.addPacked(nos.slice(at, at + cut), packed.subarray(at * dim, Math.min(nos.length, at + cut) * dim));
      return index;
    };
    const copied = reopen(saved);
    const computed = reopen(null);
    expect(copied.saveQuantized()).toEqual(saved);
    expect(computed.saveQuantized()).toEqual(saved);
    for (const query of queries) expect(copied.search(query, 10)).toEqual(source.search(query, 10));
    // Copied, not recomputed: a code changed in the offer is what the reopened index holds.
    const altered = saved.slice();
    // The last vector's last code, through a view of `altered` (the sections past it are room to grow).
    const { codes } = decodeQuantized('test', altered, dim);
    codes[codes.length - 1] = (codes[codes.length - 1]! + 1) & 0x7f;
    expect(reopen(altered).saveQuantized()).toEqual(altered);
    // Offered codes for other numbers are dropped at the first chunk that differs.
    const other = make(dim);
    other.add(1000, vectors[0]!);
    const mismatched = reopen(other.saveQuantized(), 64);
    expect(mismatched.saveQuantized()).toEqual(saved);
    expect(() => make(dim).useQuantized(saved.subarray(0, 20))).toThrow(/FlatVectorIndex\.useQuantized.*need/);
    expect(() => make(dim + 1).useQuantized(saved)).toThrow(/dimension 40, the index has 41/);
  });

  it('answers the same after a save and load', () => {
    const { vectors, queries } = corpus(48, 300, 11);
    const index = make(48);
    vectors.forEach((v, no) => index.add(no, v));
    const loaded = FlatVectorIndex.load(index.save(), index.kind === 'flat-js' ? null : kernel);
    for (const query of queries.slice(0, 5)) expect(loaded.search(query, 10)).toEqual(index.search(query, 10));
  });
});

describe('the int8 kernel', () => {
  it('computes the same exact integer sums in wasm and in JavaScript', () => {
    const next = rng(3);
    for (const dim of [16, 384, 1000]) {
      const stride = strideOf(dim);
      // Odd: the last row is summed alone, the rest in pairs.
      const n = 41;
      const instance = kernel.instantiate();
      instance.memory.grow(2);
      const queryPtr = 0;
      const codesPtr = 8192;
      const outPtr = codesPtr + n * stride;
      const codes = new Int8Array(instance.memory.buffer, codesPtr, n * stride);
      for (let i = 0; i < codes.length; i++) codes[i] = i % stride < dim ? Math.floor(next() * 255) - 127 : 0;
      // Extreme codes too: the query range is what keeps the sums inside i32.
      codes.fill(127, 0, dim);
      const q = Float32Array.from({ length: dim }, () => next() * 2 - 1);
      q[0] = 1;
      const query = new Int16Array(instance.memory.buffer, queryPtr, stride);
      expect(quantizeQuery(q, query, stride)).not.toBeNull();
      instance.dotI8(queryPtr, codesPtr, n, stride, outPtr);
      const wasm = Int32Array.from(new Int32Array(instance.memory.buffer, outPtr, n));
      const js = new Int32Array(n);
      dotI8Js(Int16Array.from(query), Int8Array.from(codes), n, stride, js);
      expect(js).toEqual(wasm);
      for (let slot = 0; slot < n; slot++) {
        let sum = 0;
        for (let j = 0; j < stride; j++) sum += query[j]! * codes[slot * stride + j]!;
        expect(wasm[slot]).toBe(sum);
      }
    }
  });

  it('scores listed slots as the pass scores them, with the kernel and without, in place or from another list', () => {
    const next = rng(9);
    const dim = 40;
    const n = 300;
    const withKernel = new ScanArena(kernel, dim, strideOf(dim), n, false, 'test');
    const plain = new ScanArena(null, dim, strideOf(dim), n, false, 'test');
    for (let i = 0; i < n * strideOf(dim); i++) withKernel.codes[i] = i % strideOf(dim) < dim ? Math.floor(next() * 255) - 127 : 0;
    plain.codes.set(withKernel.codes);
    expect(quantizeQuery(Float32Array.from({ length: dim }, () => next() * 2 - 1), withKernel.query16, strideOf(dim))).not.toBeNull();
    plain.query16.set(withKernel.query16);
    withKernel.dotI8(n, 'test');
    const all = Int32Array.from(withKernel.dots.subarray(0, n));
    const slots = Int32Array.from([299, 0, 17, 17, 150, 3]);
    for (const arena of [withKernel, plain]) {
      arena.dotI8At(slots, slots.length);
      expect(Array.from(arena.dots.subarray(0, slots.length))).toEqual(Array.from(slots, (slot) => all[slot]));
      arena.dots.set(slots);
      arena.dotI8At(arena.dots, slots.length);
      expect(Array.from(arena.dots.subarray(0, slots.length))).toEqual(Array.from(slots, (slot) => all[slot]));
    }
  });

  it('gives every slot its sum when the pass runs in chunks: past one chunk, at its edges, and the last part one', () => {
    const next = rng(8);
    const dim = 16;
    for (const n of [1, 8_191, 8_192, 8_193, 20_000]) {
      const withKernel = new ScanArena(kernel, dim, strideOf(dim), n, false, 'test');
      const plain = new ScanArena(null, dim, strideOf(dim), n, false, 'test');
      for (let i = 0; i < n * dim; i++) withKernel.codes[i] = Math.floor(next() * 255) - 127;
      plain.codes.set(withKernel.codes);
      expect(quantizeQuery(Float32Array.from({ length: dim }, () => next() * 2 - 1), withKernel.query16, dim)).not.toBeNull();
      plain.query16.set(withKernel.query16);
      withKernel.dots.fill(-1);
      withKernel.dotI8(n, 'test');
      plain.dotI8(n, 'test');
      expect(Buffer.from(withKernel.dots.buffer, withKernel.dots.byteOffset, n * 4).equals(Buffer.from(plain.dots.buffer, 0, n * 4))).toBe(true);
      for (const slot of [0, n - 1, Math.min(n - 1, 8_192)]) {
        let sum = 0;
        for (let j = 0; j < dim; j++) sum += withKernel.query16[j]! * withKernel.codes[slot * dim + j]!;
        expect(withKernel.dots[slot]).toBe(sum);
      }
    }
  });

  it('re-scores chosen slots in place with the bits the full f32 scan gives them', () => {
    const next = rng(5);
    // 16 and 384: only 16-wide blocks, re-scored two at a time; 1001: 16-wide, 4-wide and a scalar tail, one at a time.
    for (const dim of [16, 384, 1001]) {
      const n = 30;
      const instance = kernel.instantiate();
      instance.memory.grow(4);
      const queryPtr = 0;
      const vectorPtr = 8192;
      const fullPtr = vectorPtr + n * dim * 4;
      const listPtr = fullPtr + n * 4;
      const vectors = new Float32Array(instance.memory.buffer, vectorPtr, n * dim);
      for (let i = 0; i < vectors.length; i++) vectors[i] = next() * 2 - 1;
      new Float32Array(instance.memory.buffer, queryPtr, dim).set(Float32Array.from({ length: dim }, () => next() * 2 - 1));
      instance.dot(queryPtr, vectorPtr, n, dim, fullPtr);
      const full = Float32Array.from(new Float32Array(instance.memory.buffer, fullPtr, n));
      // An even count and an odd one: pairs, and the last alone.
      for (const slots of [[29, 0, 7, 7, 13, 28], [3, 29, 0, 7, 7, 13, 28], [11]]) {
        new Int32Array(instance.memory.buffer, listPtr, slots.length).set(slots);
        instance.dotAt(queryPtr, vectorPtr, listPtr, slots.length, dim);
        expect(Array.from(new Float32Array(instance.memory.buffer, listPtr, slots.length))).toEqual(slots.map((slot) => full[slot]));
      }
      const slots = [29, 0, 7, 7, 13, 28];
      // An empty list writes nothing.
      const before = Array.from(new Int32Array(instance.memory.buffer, listPtr, slots.length));
      instance.dotAt(queryPtr, vectorPtr, listPtr, 0, dim);
      expect(Array.from(new Int32Array(instance.memory.buffer, listPtr, slots.length))).toEqual(before);
    }
  });

  it('bounds the gap between the estimate and the f32 score', () => {
    const dim = 384;
    const stride = strideOf(dim);
    const { vectors, queries } = corpus(dim, 200, 9);
    const codes = new Int8Array(vectors.length * stride);
    const meta = new Float64Array(vectors.length * META);
    vectors.forEach((v, slot) => quantizeVector(v, codes, slot * stride, stride, meta, slot));
    const query16 = new Int16Array(stride);
    for (const q of queries) {
      const coded = quantizeQuery(q, query16, stride)!;
      vectors.forEach((v, slot) => {
        if (slot === 9) return; // the non-finite vector: its bound is infinite
        let sum = 0;
        let exact = 0;
        for (let j = 0; j < stride; j++) sum += query16[j]! * codes[slot * stride + j]!;
        for (let j = 0; j < dim; j++) exact += q[j]! * v[j]!;
        const m = slot * META;
        const estimate = coded.scale * meta[m]! * sum;
        const bound = coded.norm * meta[m + 1]! + coded.errorNorm * meta[m + 2]!;
        expect(Math.abs(Math.fround(exact) - estimate)).toBeLessThanOrEqual(bound);
        // Tight enough to rule most of a store out (a loose bound would re-score everything).
        expect(bound).toBeLessThan(0.02);
      });
      expect(meta[9 * META + 1]).toBe(Infinity);
    }
    // Every code in [−127, 127], the largest component of each vector at either end.
    expect(codes.every((c) => c >= -127)).toBe(true);
    const edge = new Int8Array(stride);
    quantizeVector(Float32Array.from({ length: dim }, (_, i) => (i === 5 ? -0.75 : i === 7 ? 0.75 : Math.sin(i) / 2)), edge, 0, stride, new Float64Array(META), 0);
    expect([edge[5], edge[7]]).toEqual([-127, 127]);
  });
});
