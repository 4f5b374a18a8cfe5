import { availableParallelism } from 'node:os';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { HybridMindError } from '../src/errors.js';
import { HybridMemory } from '../src/hybrid-memory.js';
import { FlatVectorIndex } from '../src/legs/vector/flat-index.js';
import { loadVectorKernel, type VectorKernel } from '../src/legs/vector/kernel.js';
import { quantizeQuery, strideOf } from '../src/legs/vector/quantize.js';
import { ScanArena } from '../src/legs/vector/scan-arena.js';
import { SPLIT_FROM } from '../src/legs/vector/scan-threads.js';
import { rng } from './support/random.js';

/** Smallest pass split in these tests: small enough to split quickly, past the kernel's chunk of 8,192. */
const FROM = 1_000;
const cores = availableParallelism();

let threaded: VectorKernel;
let single: VectorKernel;
beforeAll(async () => {
  threaded = (await loadVectorKernel(undefined, undefined, { threads: { from: FROM } }))!;
  single = (await loadVectorKernel(undefined, undefined, { threads: false }))!;
});

/** Runs passes until the helper thread answers (the first large pass starts it without waiting for it). */
async function helperReady(arena: ScanArena, n: number): Promise<void> {
  for (let tries = 0; tries < 500 && !arena.wasm!.helper!.ready; tries++) {
    arena.dotI8(n, 'test');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(arena.wasm!.helper!.ready).toBe(true);
}

/** An arena whose passes may be shared and one whose passes are not, holding the same random codes. */
function arenas(dim: number, n: number, next: () => number): { split: ScanArena; plain: ScanArena } {
  const stride = strideOf(dim);
  const split = new ScanArena(threaded, dim, stride, n, false, 'test');
  const plain = new ScanArena(single, dim, stride, n, false, 'test');
  for (let i = 0; i < n * stride; i++) split.codes[i] = i % stride < dim ? Math.floor(next() * 255) - 127 : 0;
  plain.codes.set(split.codes.subarray(0, n * stride));
  return { split, plain };
}

/** Quantizes a random query into both arenas, as a search does before its int8 pass. */
function newQuery(split: ScanArena, plain: ScanArena, dim: number, next: () => number): void {
  expect(quantizeQuery(Float32Array.from({ length: dim }, () => next() * 2 - 1), split.query16, strideOf(dim))).not.toBeNull();
  plain.query16.set(split.query16);
}

/** What the calling thread scores of a pass `share` runs over `split` (`dim` a multiple of 16, so the stride). */
function ownCalls(split: ScanArena, dim: number): (from: number, to: number) => void {
  return (from, to) => split.wasm!.dotI8(split.query16Ptr, split.codesPtr + from * dim, to - from, dim, split.scorePtr + from * 4);
}

describe.skipIf(cores < 2)('the int8 pass on two threads', () => {
  it('loads the bundled kernel with a helper by default in Node, and without one when told not to', async () => {
    expect((await loadVectorKernel())!.threads?.from).toBe(SPLIT_FROM);
    expect(threaded.threads?.from).toBe(FROM);
    expect(single.threads).toBeNull();
    expect(new ScanArena(single, 16, 16, 4, false, 'test').wasm!.helper).toBeNull();
    await expect(loadVectorKernel(undefined, undefined, { threads: { from: 0 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/^loadVectorKernel: .*options\.threads\.from.*0/) });
  });

  it('gives every slot the sum one thread gives it, for passes split at and around chunk edges', async () => {
    const next = rng(31);
    const dim = 40;
    const capacity = 20_001;
    const { split, plain } = arenas(dim, capacity, next);
    await helperReady(split, capacity);
    for (const n of [FROM - 1, FROM, FROM + 1, 8_192, 16_385, 20_001]) {
      newQuery(split, plain, dim, next);
      split.dots.fill(-1);
      const helped = split.dotI8(n, 'test');
      if (n < FROM) expect(helped).toBe(0);
      expect(helped).toBeGreaterThanOrEqual(0);
      expect(helped).toBeLessThanOrEqual(n);
      expect(plain.dotI8(n, 'test')).toBe(0);
      expect(Array.from(split.dots.subarray(0, n))).toEqual(Array.from(plain.dots.subarray(0, n)));
    }
    split.dispose();
    expect(split.wasm!.helper!.ready).toBe(false);
    expect(split.dotI8(capacity, 'test')).toBe(0);
    expect(Array.from(split.dots.subarray(0, capacity))).toEqual(Array.from(plain.dots.subarray(0, capacity)));
  });

  it('lets the helper claim the chunks the calling thread has not reached, and still gives one thread\'s sums', async () => {
    const next = rng(21);
    const dim = 32;
    const n = 20_001;
    const chunk = 1_000;
    const { split, plain } = arenas(dim, n, next);
    await helperReady(split, n);
    const wasm = split.wasm!;
    const own = ownCalls(split, dim);
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (let round = 0; round < 3; round++) {
      newQuery(split, plain, dim, next);
      plain.dotI8(n, 'test');
      split.dots.fill(-1);
      const mine: number[] = [];
      // A calling thread that is slow for its first chunk: the helper takes the rest meanwhile.
      const helped = wasm.helper!.share(split.query16Ptr, split.codesPtr, n, dim, split.scorePtr, chunk, (from, to) => {
        own(from, to);
        if (mine.push(from) === 1) Atomics.wait(pause, 0, 0, 200);
      }, 'test');
      expect(helped).toBe(n - mine.reduce((sum, from) => sum + Math.min(chunk, n - from), 0));
      expect(helped).toBeGreaterThan(n / 2);
      expect(Array.from(split.dots.subarray(0, n))).toEqual(Array.from(plain.dots.subarray(0, n)));
    }
    split.dispose();
  });

  it('scores only the chunks of the pass it claimed from, when each pass ends in another chunk than the one before', async () => {
    // Searches between writes meet passes of new sizes. A helper that took a new pass's size with
    // the last pass's claims counted a chunk finished in the wrong pass, which then ended early or
    // waited a minute for a chunk that would never finish (this test's failure before the fix).
    const next = rng(44);
    const dim = 16;
    const n = 1_400;
    const chunk = 8;
    const { split, plain } = arenas(dim, n, next);
    await helperReady(split, n);
    const wasm = split.wasm!;
    newQuery(split, plain, dim, next);
    plain.dotI8(n, 'test');
    const expected = plain.dots.slice(0, n);
    const own = ownCalls(split, dim);
    let wrong = 0;
    let shared = 0;
    for (let pass = 0; pass < 20_000; pass++) {
      const count = pass % 2 === 0 ? FROM + (pass % 7) * chunk : n - (pass % 5) * chunk;
      split.dots.fill(-1, 0, n);
      const helped = wasm.helper!.share(split.query16Ptr, split.codesPtr, count, dim, split.scorePtr, chunk, own, 'test');
      if (helped < 0) own(0, count);
      else shared++;
      for (let i = 0; i < n; i++) if (split.dots[i] !== (i < count ? expected[i] : -1)) wrong++;
    }
    expect(wrong).toBe(0);
    expect(shared).toBe(20_000);
    split.dispose();
  });

  it('ends an idle helper after a minute without a split pass, and starts another at the next large pass', async () => {
    const next = rng(12);
    const dim = 16;
    const n = 4_000;
    const { split, plain } = arenas(dim, n, next);
    newQuery(split, plain, dim, next);
    plain.dotI8(n, 'test');
    await helperReady(split, n);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      expect(split.dotI8(n, 'test')).toBeGreaterThanOrEqual(0);
      vi.advanceTimersByTime(59_000);
      expect(split.dotI8(n, 'test')).toBeGreaterThanOrEqual(0);
      vi.advanceTimersByTime(59_000);
      expect(split.wasm!.helper!.ready).toBe(true);
      vi.advanceTimersByTime(1_000);
      expect(split.wasm!.helper!.ready).toBe(false);
    } finally {
      vi.useRealTimers();
    }
    split.dots.fill(-1);
    expect(split.dotI8(n, 'test')).toBe(0);
    expect(Array.from(split.dots.subarray(0, n))).toEqual(Array.from(plain.dots.subarray(0, n)));
    await helperReady(split, n);
    split.dots.fill(-1);
    split.dotI8(n, 'test');
    expect(Array.from(split.dots.subarray(0, n))).toEqual(Array.from(plain.dots.subarray(0, n)));
    split.dispose();
  });

  it('finds the same top k as the one-thread scan, with and without a filter, and after its memory grows and slots move under a running helper', async () => {
    const next = rng(5);
    const dim = 24;
    const split = new FlatVectorIndex(dim, threaded, { capacity: 64 });
    const plain = new FlatVectorIndex(dim, single, { capacity: 64 });
    const vector = () => Float32Array.from({ length: dim }, () => next() * 2 - 1);
    for (let no = 0; no < 3_000; no++) {
      const v = vector();
      split.add(no, v);
      plain.add(no, v);
    }
    const query = vector();
    const even = (no: number) => no % 2 === 0;
    // The first search starts the helper; the searches below run once it has had time to answer
    // (the arena's test above proves the split itself).
    expect(split.search(query, 10)).toEqual(plain.search(query, 10));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const compare = () => {
      for (let q = 0; q < 20; q++) {
        const query = vector();
        for (const k of [1, 10, 100]) {
          expect(split.search(query, k)).toEqual(plain.search(query, k));
          expect(split.search(query, k, even)).toEqual(plain.search(query, k, even));
        }
      }
    };
    compare();
    // With the helper running: the memory grows under it (capacity 4,096 → 8,192) and removals
    // move the last slots into the holes.
    for (let no = 3_000; no < 6_000; no++) {
      const v = vector();
      split.add(no, v);
      plain.add(no, v);
    }
    for (let no = 0; no < 6_000; no += 7) expect(split.remove(no)).toBe(plain.remove(no));
    compare();
    split.dispose();
    expect(split.search(query, 10)).toEqual(plain.search(query, 10));
  });

  it("refuses a vectorThreads option that is not a boolean, naming open's method and the value", async () => {
    const error = await HybridMemory.open({ embedder: null, dim: 4, vectorThreads: 'yes' as unknown as boolean }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HybridMindError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/vectorThreads.*"yes"/) });
  });

  it('answers the same with vectorThreads false', async () => {
    const mems = await Promise.all([true, false].map((vectorThreads) => HybridMemory.open({ embedder: null, dim: 3, vectorThreads })));
    for (const mem of mems) await mem.storeMany([{ id: 'a', text: 'alpha', embedding: Float32Array.of(1, 0, 0) }, { id: 'b', text: 'beta', embedding: Float32Array.of(0, 1, 0) }]);
    const answers = await Promise.all(mems.map((mem) => mem.recall('x', { mode: 'vector', k: 1, queryEmbedding: Float32Array.of(0.9, 0.1, 0) })));
    expect(answers.map((a) => a.map((h) => h.id))).toEqual([['a'], ['a']]);
    await Promise.all(mems.map((mem) => mem.close()));
  });
});
