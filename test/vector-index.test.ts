import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { HybridMindError } from '../src/errors.js';
import { HybridMemory } from '../src/hybrid-memory.js';
import { FlatVectorIndex } from '../src/legs/vector/flat-index.js';
import { loadVectorKernel, type VectorKernel } from '../src/legs/vector/kernel.js';
import type { Scored } from '../src/legs/types.js';
import { rng } from './support/random.js';
import { simdKernel } from './support/kernel.js';


function randomUnit(next: () => number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let norm = 0;
  for (let i = 0; i < dim; i++) {
    v[i] = next() * 2 - 1;
    norm += v[i]! * v[i]!;
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dim; i++) v[i] = v[i]! / norm;
  return v;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** The reference: score everything in float64, sort, cut. */
function naiveTop(model: Map<number, Float32Array>, query: Float32Array, k: number, accept?: (no: number) => boolean): Scored[] {
  return [...model]
    .filter(([no]) => accept === undefined || accept(no))
    .map(([no, v]) => ({ no, score: dot(query, v) }))
    .sort((a, b) => b.score - a.score || a.no - b.no)
    .slice(0, k);
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HybridMindError);
    return (error as HybridMindError).code;
  }
  return undefined;
}

let kernel: VectorKernel;
beforeAll(async () => {
  kernel = await simdKernel();
});

const paths = [
  { name: 'wasm', make: (dim: number, capacity?: number) => new FlatVectorIndex(dim, kernel, { capacity }) },
  { name: 'js', make: (dim: number, capacity?: number) => new FlatVectorIndex(dim, null, { capacity }) },
] as const;

describe('loadVectorKernel', () => {
  it('compiles the bundled kernel and its threads variant once per process', async () => {
    const again = (await loadVectorKernel())!;
    expect(again.module).toBe(kernel.module);
    expect(again.threads?.module).toBe(kernel.threads?.module);
  });

  it('accepts a precompiled module, an ArrayBuffer and a Uint8Array', async () => {
    const bytes = new Uint8Array(await readFile(new URL('../src/legs/vector/kernel.wasm', import.meta.url)));
    const module = await WebAssembly.compile(bytes);
    for (const source of [module, bytes, bytes.slice().buffer]) {
      const loaded = await loadVectorKernel(source);
      expect(loaded).not.toBeNull();
      expect(new FlatVectorIndex(4, loaded).kind).toBe('flat-wasm-simd');
    }
  });

  it('resolves to null instead of throwing on bytes that are not the kernel', async () => {
    expect(await loadVectorKernel(new Uint8Array([1, 2, 3]))).toBeNull();
    const empty = await WebAssembly.compile(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
    expect(await loadVectorKernel(empty)).toBeNull();
  });

  it('says once, through the logger, why it fell back to the JavaScript scan', async () => {
    const logged: Array<{ level: string; message: string }> = [];
    const logger = (level: string, message: string) => logged.push({ level, message });
    expect(await loadVectorKernel(new Uint8Array([1, 2, 3]), logger)).toBeNull();
    expect(logged).toHaveLength(1);
    expect(logged[0]!.level).toBe('warn');
    expect(logged[0]!.message).toMatch(/vector kernel unavailable, the exact scan runs in plain JavaScript: .*WebAssembly/);
    const empty = await WebAssembly.compile(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
    expect(await loadVectorKernel(empty, logger)).toBeNull();
    expect(logged).toHaveLength(2);
    expect(logged[1]!.message).toMatch(/not the hybridmind vector kernel|memory|dot/);
    expect((await loadVectorKernel(undefined, logger))!.module).toBe(kernel.module);
    expect(logged).toHaveLength(2);
  });

  it('tells the store logger when the kernel it was given cannot load', async () => {
    const logged: string[] = [];
    const mem = await HybridMemory.open({ embedder: null, vectorKernel: new Uint8Array([1, 2, 3]), logger: (level, message) => logged.push(`${level}: ${message}`) });
    await mem.close();
    expect(logged.filter((m) => /vector kernel unavailable/.test(m))).toEqual([expect.stringMatching(/^warn: /)]);
  });

  it('refuses a kernel that is neither a module nor its bytes, naming what it received', async () => {
    for (const value of ['./kernel.wasm', 42, null, { url: './kernel.wasm' }]) {
      const error = await HybridMemory.open({ embedder: null, vectorKernel: value as never }).then(() => null, (e: unknown) => e);
      expect(error, String(value)).toMatchObject({ code: 'INVALID_ARGUMENT', method: 'HybridMemory.open' });
      expect((error as Error).message).toContain(`options.vectorKernel must be a WebAssembly.Module, its bytes (an ArrayBuffer or a Uint8Array) or false, received ${JSON.stringify(value) ?? String(value)}`);
    }
    const bytes = await readFile(new URL('../src/legs/vector/kernel.wasm', import.meta.url));
    for (const source of [bytes, new Uint8Array(bytes).buffer, await WebAssembly.compile(bytes)]) {
      await (await HybridMemory.open({ embedder: null, vectorKernel: source })).close();
    }
  });
});

describe('FlatVectorIndex.create', () => {
  it('uses the SIMD kernel in Node 20 unless told not to', async () => {
    expect((await FlatVectorIndex.create(8)).kind).toBe('flat-wasm-simd');
    expect((await FlatVectorIndex.create(8, { useWasm: false })).kind).toBe('flat-js');
    expect((await FlatVectorIndex.create(8, { kernel: null })).kind).toBe('flat-js');
    expect((await FlatVectorIndex.create(8, { kernel })).kind).toBe('flat-wasm-simd');
  });

  it('throws INVALID_ARGUMENT for a bad dim or capacity', () => {
    expect(codeOf(() => new FlatVectorIndex(0, null))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => new FlatVectorIndex(3.5, kernel))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => new FlatVectorIndex(4, null, { capacity: 0 }))).toBe('INVALID_ARGUMENT');
  });
});

describe.each(paths)('FlatVectorIndex ($name)', ({ name, make }) => {
  it('reports its kind', () => {
    expect(make(4).kind).toBe(name === 'wasm' ? 'flat-wasm-simd' : 'flat-js');
  });

  describe.each([384, 7, 1, 19])('search at dim %i', (dim) => {
    it('matches a float64 reference within 1e-5 and a naive sort', () => {
      const next = rng(dim * 1000 + 1);
      const index = make(dim, 16);
      const model = new Map<number, Float32Array>();
      for (let i = 0; i < 300; i++) {
        const no = i * 3 + 1;
        const v = randomUnit(next, dim);
        index.add(no, v);
        model.set(no, v);
      }
      for (let q = 0; q < 5; q++) {
        const query = randomUnit(next, dim);
        const all = index.search(query, model.size);
        expect(all).toHaveLength(model.size);
        for (const { no, score } of all) expect(Math.abs(score - dot(query, model.get(no)!))).toBeLessThan(1e-5);
        const top = index.search(query, 10);
        expect(top.map((s) => s.no)).toEqual(naiveTop(model, query, 10).map((s) => s.no));
      }
    });
  });

  it('agrees with the other path on the same data', () => {
    const next = rng(42);
    const a = paths[0].make(384);
    const b = paths[1].make(384);
    for (let no = 0; no < 200; no++) {
      const v = randomUnit(next, 384);
      a.add(no, v);
      b.add(no, v);
    }
    const query = randomUnit(next, 384);
    const sa = a.search(query, 200);
    const sb = b.search(query, 200);
    for (let i = 0; i < 200; i++) expect(Math.abs(sa[i]!.score - sb.find((s) => s.no === sa[i]!.no)!.score)).toBeLessThan(1e-5);
  });

  it('breaks ties by the smaller no and returns at most size results', () => {
    const index = make(3);
    for (const no of [9, 2, 5, 7]) index.add(no, new Float32Array([1, 0, 0]));
    expect(index.search(new Float32Array([1, 0, 0]), 3)).toEqual([
      { no: 2, score: 1 },
      { no: 5, score: 1 },
      { no: 7, score: 1 },
    ]);
    expect(index.search(new Float32Array([1, 0, 0]), 100).map((s) => s.no)).toEqual([2, 5, 7, 9]);
    expect(index.search(new Float32Array([1, 0, 0]), 0)).toEqual([]);
    expect(make(3).search(new Float32Array(3), 5)).toEqual([]);
  });

  it('keeps the tie-break exact when many scores are equal', () => {
    const next = rng(5);
    const index = make(1);
    const model = new Map<number, Float32Array>();
    const nos = Array.from({ length: 300 }, (_, i) => i).sort(() => next() - 0.5);
    for (const no of nos) {
      const v = new Float32Array([Math.floor(next() * 4)]);
      index.add(no, v);
      model.set(no, v);
    }
    const query = new Float32Array([1]);
    for (let k = 1; k <= 300; k += 7) expect(index.search(query, k)).toEqual(naiveTop(model, query, k));
  });

  it('adds, replaces, removes the last and a middle slot, and answers has', () => {
    const index = make(2, 2);
    const e = (x: number, y: number) => new Float32Array([x, y]);
    index.add(1, e(1, 0));
    index.add(2, e(0, 1));
    index.add(3, e(0.6, 0.8));
    expect(index.size).toBe(3);
    index.add(1, e(-1, 0)); // replace keeps the size
    expect(index.size).toBe(3);
    expect(index.search(e(1, 0), 3).map((s) => s.no)).toEqual([3, 2, 1]);

    expect(index.remove(3)).toBe(true); // the last slot
    expect(index.has(3)).toBe(false);
    expect(index.remove(3)).toBe(false);
    index.add(4, e(0.8, 0.6));
    expect(index.remove(1)).toBe(true); // a middle slot: 4 moves into the hole
    expect(index.size).toBe(2);
    expect([index.has(1), index.has(2), index.has(4)]).toEqual([false, true, true]);
    expect(index.search(e(1, 0), 5)).toEqual([
      { no: 4, score: Math.fround(0.8) },
      { no: 2, score: 0 },
    ]);
    index.add(4, e(0, -1)); // the moved vector is still addressable by its no
    expect(index.search(e(0, 1), 5).map((s) => s.no)).toEqual([2, 4]);

    index.clear();
    expect(index.size).toBe(0);
    expect(index.has(2)).toBe(false);
    expect(index.search(e(1, 0), 5)).toEqual([]);
  });

  it('grows past its initial capacity without losing vectors', () => {
    const dim = 33;
    const next = rng(7);
    const index = make(dim, 1);
    const model = new Map<number, Float32Array>();
    const before = index.byteSize();
    for (let no = 0; no < 3000; no++) {
      const v = randomUnit(next, dim);
      index.add(no, v);
      model.set(no, v);
      if (no === 5) {
        // A search between growths exercises the re-created views.
        const q = randomUnit(next, dim);
        expect(index.search(q, 3).map((s) => s.no)).toEqual(naiveTop(model, q, 3).map((s) => s.no));
      }
    }
    expect(index.byteSize()).toBeGreaterThan(before);
    expect(index.byteSize()).toBeGreaterThanOrEqual(3000 * dim * 4);
    const query = randomUnit(next, dim);
    const all = index.search(query, 3000);
    for (const { no, score } of all) expect(Math.abs(score - dot(query, model.get(no)!))).toBeLessThan(1e-5);
  });

  it('filters with accept before the cut', () => {
    const index = make(2);
    for (let no = 0; no < 20; no++) index.add(no, new Float32Array([Math.cos(no / 10), Math.sin(no / 10)]));
    const hits = index.search(new Float32Array([1, 0]), 3, (no) => no % 2 === 1);
    expect(hits.map((s) => s.no)).toEqual([1, 3, 5]);
    expect(index.search(new Float32Array([1, 0]), 3, () => false)).toEqual([]);
  });

  it('throws DIMENSION_MISMATCH for vectors and queries of the wrong length', () => {
    const index = make(4);
    expect(codeOf(() => index.add(1, new Float32Array(3)))).toBe('DIMENSION_MISMATCH');
    expect(codeOf(() => index.search(new Float32Array(5), 1))).toBe('DIMENSION_MISMATCH');
    expect(() => index.add(1, new Float32Array(3))).toThrow(/FlatVectorIndex\.add: .*received length 3/);
    expect(index.size).toBe(0);
  });

  it('throws INVALID_ARGUMENT for a bad no or k', () => {
    const index = make(2);
    expect(codeOf(() => index.add(-1, new Float32Array(2)))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => index.add(1.5, new Float32Array(2)))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => index.search(new Float32Array(2), Number.NaN))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => index.search(new Float32Array(2), -1))).toBe('INVALID_ARGUMENT');
  });

  describe('save and load', () => {
    it('round-trips into either path with identical results and bytes', () => {
      const next = rng(99);
      const index = make(7, 4);
      for (let no = 0; no < 50; no++) index.add(no * 11, randomUnit(next, 7));
      index.remove(33);
      index.remove(0);
      const bytes = index.save();
      expect(bytes.length).toBe(16 + 48 * 4 * 8);
      const query = randomUnit(next, 7);
      for (const target of [kernel, null]) {
        const loaded = FlatVectorIndex.load(bytes, target);
        expect(loaded.size).toBe(48);
        expect(loaded.has(33)).toBe(false);
        expect(loaded.has(44)).toBe(true);
        expect(loaded.save()).toEqual(bytes);
        expect(loaded.search(query, 48).map((s) => s.no)).toEqual(index.search(query, 48).map((s) => s.no));
        loaded.add(1000, randomUnit(next, 7)); // still writable after load
        expect(loaded.size).toBe(49);
      }
      const empty = FlatVectorIndex.load(make(3).save(), kernel);
      expect([empty.size, empty.dim]).toEqual([0, 3]);
    });

    it('loads from a Uint8Array at a non-zero offset', () => {
      const index = make(3);
      index.add(5, new Float32Array([1, 2, 3]));
      const bytes = index.save();
      const padded = new Uint8Array(bytes.length + 3);
      padded.set(bytes, 3);
      const loaded = FlatVectorIndex.load(padded.subarray(3), null);
      expect(loaded.search(new Float32Array([1, 0, 0]), 1)).toEqual([{ no: 5, score: 1 }]);
    });

    it('rejects corrupt bytes with CORRUPT', () => {
      const index = make(3);
      index.add(1, new Float32Array([1, 0, 0]));
      index.add(2, new Float32Array([0, 1, 0]));
      const good = index.save();
      const mutate = (edit: (b: Uint8Array, v: DataView) => void) => {
        const b = good.slice();
        edit(b, new DataView(b.buffer));
        return b;
      };
      const bad = [
        new Uint8Array(0),
        good.subarray(0, 10),
        good.subarray(0, good.length - 1),
        new Uint8Array([...good, 0]),
        mutate((b) => (b[0] = 0x58)),
        mutate((_, v) => v.setUint32(4, 2, true)),
        mutate((_, v) => v.setUint32(8, 0, true)),
        mutate((_, v) => v.setUint32(8, 4, true)),
        mutate((_, v) => v.setUint32(12, 3, true)),
        mutate((_, v) => v.setUint32(12, 0xffffffff, true)),
        mutate((_, v) => v.setInt32(20, 1, true)), // duplicate no
        mutate((_, v) => v.setInt32(16, -4, true)), // negative no
      ];
      for (const bytes of bad) expect(codeOf(() => FlatVectorIndex.load(bytes, kernel))).toBe('CORRUPT');
      expect(codeOf(() => FlatVectorIndex.load([1, 2] as unknown as Uint8Array, null))).toBe('INVALID_ARGUMENT');
    });
  });

  it('matches a naive model after any sequence of adds and removes', () => {
    const dim = 3;
    // Components in {-1, 0, 1} make every inner product exact in f32 and ties frequent, so the
    // tie-break by `no` inside the heap is exercised too.
    const vec = fc.array(fc.integer({ min: -1, max: 1 }), { minLength: dim, maxLength: dim }).map((a) => Float32Array.from(a));
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), no: fc.integer({ min: 0, max: 40 }), v: vec }),
      fc.record({ kind: fc.constant('remove' as const), no: fc.integer({ min: 0, max: 40 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 30, maxLength: 150 }), vec, fc.integer({ min: 0, max: 45 }), fc.integer({ min: 1, max: 4 }), (ops, query, k, mod) => {
        const index = make(dim, 2);
        const model = new Map<number, Float32Array>();
        for (const o of ops) {
          if (o.kind === 'add') {
            index.add(o.no, o.v);
            model.set(o.no, o.v);
          } else {
            expect(index.remove(o.no)).toBe(model.delete(o.no));
          }
        }
        expect(index.size).toBe(model.size);
        const accept = (no: number) => no % mod === 0;
        expect(index.search(query, k)).toEqual(naiveTop(model, query, k));
        expect(index.search(query, k, accept)).toEqual(naiveTop(model, query, k, accept));
        const reloaded = FlatVectorIndex.load(index.save(), name === 'wasm' ? kernel : null);
        expect(reloaded.search(query, k)).toEqual(naiveTop(model, query, k));
      }),
      { numRuns: 200 },
    );
  });
});
