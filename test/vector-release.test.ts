/**
 * A flat index that stopped keeping f32 vectors (`release`) re-scores from the store's copies:
 * every answer must be the one an index keeping them gives, through later writes, growth, the
 * fallbacks the int8 pass cannot narrow, and back after `clear`.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { AdaptiveVectorIndex } from '../src/legs/vector/adaptive-index.js';
import { VectorDigest } from '../src/legs/vector/ann-format.js';
import { FlatVectorIndex } from '../src/legs/vector/flat-index.js';
import type { VectorKernel } from '../src/legs/vector/kernel.js';
import type { VectorReader } from '../src/legs/types.js';
import { HybridMemory } from '../src/index.js';
import { clusteredVectors } from './support/clustered-vectors.js';
import { rng } from './support/random.js';
import { memorySavedBytes } from './support/saved-bytes.js';
import { savedExact, vectorStore as store } from './support/vector-store.js';
import { simdKernel } from './support/kernel.js';

let kernel: VectorKernel;
beforeAll(async () => {
  kernel = await simdKernel();
});

const paths = [
  { name: 'wasm', make: (dim: number) => new FlatVectorIndex(dim, kernel, { capacity: 16 }) },
  { name: 'js', make: (dim: number) => new FlatVectorIndex(dim, null, { capacity: 16 }) },
] as const;

describe.each(paths)('a released flat index ($name)', ({ make }) => {
  it.each([384, 37])('answers as one that keeps its vectors, through writes and growth, at dim %i', (dim) => {
    const all = clusteredVectors(700, { dim, seed: dim });
    const queries = clusteredVectors(12, { dim, seed: dim + 1 });
    const { vectors, read, asked } = store(dim);
    const kept = make(dim);
    const released = make(dim);
    const put = (no: number, v: Float32Array) => {
      vectors.set(no, v);
      kept.add(no, v);
      released.add(no, v);
    };
    const drop = (no: number) => {
      vectors.delete(no);
      expect(released.remove(no)).toBe(kept.remove(no));
    };
    const same = () => {
      for (const q of queries) {
        for (const k of [1, 10, 100, kept.size + 5]) expect(released.search(q, k)).toEqual(kept.search(q, k));
        const even = (no: number) => no % 2 === 0;
        expect(released.search(q, 10, even)).toEqual(kept.search(q, 10, even));
        // Fewer accepted than k: the int8 pass cannot narrow, every accepted vector is read.
        const few = (no: number) => no % 97 === 1;
        expect(released.search(q, 10, few)).toEqual(kept.search(q, 10, few));
      }
    };
    all.slice(0, 300).forEach((v, i) => put(i * 2 + 1, v));
    released.release(read);
    expect(released.released).toBe(true);
    expect(released.byteSize()).toBeLessThan(kept.byteSize());
    same();
    expect(asked()).toBeGreaterThan(0);
    // Growing past the capacity, replacing and removing, all while released.
    all.slice(300).forEach((v, i) => put(1000 + i, v));
    put(1, all[650]!);
    put(3, all[651]!);
    for (const no of [5, 7, 1003, 1399]) drop(no);
    same();
    expect(released.get(3)).toEqual(kept.get(3));
    expect(released.get(5)).toBeUndefined();
    expect(Buffer.from(released.save()).equals(Buffer.from(kept.save()))).toBe(true);
    released.clear();
    kept.clear();
    expect(released.released).toBe(false);
    // A new instance for the copies, at the capacity the index was made with, not the one it grew to.
    expect(released.byteSize()).toBe(make(dim).byteSize());
    const before = asked();
    all.slice(0, 50).forEach((v, i) => put(i, v));
    same();
    expect(asked()).toBe(before);
  });

  it('scores a number the store no longer holds last, as a NaN vector', () => {
    const dim = 384;
    const all = clusteredVectors(40, { dim, seed: 3 });
    const { vectors, read } = store(dim);
    const index = make(dim);
    all.forEach((v, no) => {
      vectors.set(no, v);
      index.add(no, v);
    });
    index.release(read);
    vectors.delete(0);
    const hits = index.search(all[0]!, 40);
    expect(hits).toHaveLength(40);
    expect(hits.at(-1)).toEqual({ no: 0, score: -Infinity });
  });
});

describe('VectorDigest', () => {
  it('equals the digest built afresh from what is left, whatever was replaced or removed', () => {
    const next = rng(11);
    const pool = clusteredVectors(60, { dim: 8, seed: 5 });
    const live = new Map<number, Float32Array>();
    const digest = new VectorDigest();
    for (let step = 0; step < 2000; step++) {
      const no = Math.floor(next() * 40);
      if (next() < 0.3) {
        digest.delete(no);
        live.delete(no);
      } else {
        const v = pool[Math.floor(next() * pool.length)]!;
        digest.set(no, v);
        live.set(no, v);
      }
    }
    const fresh = new VectorDigest();
    for (const [no, v] of [...live].reverse()) fresh.set(no, v);
    expect([digest.a, digest.b]).toEqual([fresh.a, fresh.b]);
    digest.reset();
    expect([digest.a, digest.b]).toEqual([0, 0]);
  });
});

describe('AdaptiveVectorIndex with the store to read from', () => {
  it('drops the flat f32 copies once HNSW serves, answers filtered queries exactly and saves a digest a reopen accepts', async () => {
    const dim = 384;
    const all = clusteredVectors(500, { dim, seed: 41 });
    const { vectors, read } = store(dim);
    const bytes = memorySavedBytes();
    const flat = new FlatVectorIndex(dim, kernel);
    const index = new AdaptiveVectorIndex(flat, { threshold: 200, saveDelayMs: 0 }, { store: bytes, read });
    all.slice(0, 400).forEach((v, no) => {
      vectors.set(no, v);
      index.add(no, v);
    });
    await index.whenIndexed();
    expect(index.status()).toMatchObject({ state: 'ready', source: 'build' });
    expect(flat.released).toBe(true);
    // Replaced and removed while released: the digest must still match the vectors held.
    for (const [no, v] of [[3, all[450]!], [4, all[451]!]] as const) {
      vectors.set(no, v);
      index.add(no, v);
    }
    for (const no of [10, 11]) {
      vectors.delete(no);
      index.remove(no);
    }
    const exact = new FlatVectorIndex(dim, kernel);
    for (const [no, v] of vectors) exact.add(no, v);
    // Eight memories pass: HNSW cannot fill k = 10, so the released flat scan answers.
    const rare = (no: number) => no % 50 === 7;
    for (const q of all.slice(480, 490)) {
      const hits = index.search(q, 10, rare);
      expect(hits).toHaveLength(8);
      expect(hits).toEqual(exact.search(q, 10, rare));
    }
    index.close();
    expect(bytes.bytes).not.toBeNull();

    const reopened = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: 200 }, { store: bytes, read });
    for (const [no, v] of [...vectors].sort((a, b) => a[0] - b[0])) reopened.add(no, v);
    await reopened.whenIndexed();
    expect(reopened.status()).toMatchObject({ state: 'ready', source: 'bytes' });
    reopened.dispose();
  });
});

describe('HybridMemory once HNSW serves', () => {
  it('re-scores from SQLite: a filter HNSW cannot satisfy gets the exact answer', async () => {
    const all = clusteredVectors(300, { seed: 51 });
    const items = all.map((embedding, i) => ({ id: `m${i}`, text: `memory number ${i}`, embedding, domain: i % 60 === 0 ? 'rare' : 'common' }));
    const logs: string[] = [];
    const withAnn = await HybridMemory.open({ embedder: null, ann: { threshold: 200 }, logger: (_l, m) => logs.push(m) });
    const exact = await HybridMemory.open({ embedder: null, ann: false });
    await withAnn.storeMany(items);
    await exact.storeMany(items);
    while (!logs.some((m) => m.includes('HNSW built') || m.includes('HNSW disabled'))) await new Promise((r) => setTimeout(r, 20));
    expect(logs.some((m) => m.includes('HNSW built over 300'))).toBe(true);
    for (const q of [all[17]!, all[120]!]) {
      // Five memories are 'rare': HNSW cannot fill k = 10, so the flat scan answers from SQLite's vectors.
      const options = { mode: 'vector' as const, queryEmbedding: q, k: 10, filter: { domain: 'rare' } };
      const got = await withAnn.recall('anything', options);
      expect(got.map((h) => [h.id, h.score])).toEqual((await exact.recall('anything', options)).map((h) => [h.id, h.score]));
      expect(got).toHaveLength(5);
    }
    await withAnn.close();
    await exact.close();
  });
});

describe('AdaptiveVectorIndex at an open', () => {
  it('takes every packed chunk in bulk, also those after the threshold started loading HNSW', async () => {
    const dim = 384;
    const all = clusteredVectors(400, { dim, seed: 61 });
    const flat = new FlatVectorIndex(dim, kernel);
    const index = new AdaptiveVectorIndex(flat, { threshold: 100 });
    const packed = vi.spyOn(flat, 'addPacked');
    const single = vi.spyOn(flat, 'add');
    for (let from = 0; from < all.length; from += 50) {
      const chunk = all.slice(from, from + 50);
      const vectors = new Float32Array(chunk.length * dim);
      chunk.forEach((v, i) => vectors.set(v, i * dim));
      index.addPacked(Int32Array.from(chunk, (_, i) => from + i), vectors);
    }
    expect(index.status().state).toBe('loading');
    expect(packed).toHaveBeenCalledTimes(8);
    expect(single).not.toHaveBeenCalled();
    await index.whenIndexed();
    expect(index.status()).toMatchObject({ state: 'ready', indexed: 400 });
    expect(index.search(all[123]!, 1)[0]!.no).toBe(123);
    index.dispose();
  });
});

describe.each(paths)('a released flat index read back a part at a time ($name)', ({ make }) => {
  it('answers exactly between parts, keeps writes made meanwhile, and stops reading once every copy is back', () => {
    // 1,500 vectors of 384-d are three reads of about 1 MiB.
    const dim = 384;
    const all = clusteredVectors(1_560, { dim, seed: 91 });
    const { vectors, read, asked } = store(dim);
    const kept = make(dim);
    const index = make(dim);
    all.slice(0, 1_500).forEach((v, no) => {
      vectors.set(no, v);
      kept.add(no, v);
      index.add(no, v);
    });
    index.release(read);
    const queries = [...all.slice(1_540, 1_544), all[2]!, all[1_499]!];
    const same = () => {
      for (const q of queries) for (const k of [1, 10, 50]) expect(index.search(q, k)).toEqual(kept.search(q, k));
    };
    const write = (no: number, v: Float32Array | null) => {
      if (v === null) {
        vectors.delete(no);
        expect(index.remove(no)).toBe(kept.remove(no));
        return;
      }
      vectors.set(no, v);
      index.add(no, v);
      kept.add(no, v);
    };

    expect(index.resideSome()).toBe('more');
    expect(index.released).toBe(true);
    expect(index.residing).toBe(true);
    same();
    // Slot 3 is copied, the last slot is not: moving it into the hole must not pass for a copy.
    write(3, null);
    write(1_500, all[1_500]!);
    write(7, all[1_501]!);
    write(1_200, all[1_502]!);
    same();
    let step: string;
    let parts = 1;
    do {
      step = index.resideSome();
      parts++;
      same();
    } while (step === 'more');
    expect(step).toBe('done');
    expect(parts).toBeGreaterThan(3);
    expect(index.released).toBe(false);
    expect(index.residing).toBe(false);
    const afterReadBack = asked();
    same();
    write(1_501, all[1_503]!);
    write(20, null);
    same();
    expect(asked()).toBe(afterReadBack);
    // Byte for byte (a deep equal over 2 MB of elements takes seconds).
    expect(Buffer.from(index.save()).equals(Buffer.from(kept.save()))).toBe(true);
  });

  it('drops the half-read copies when the store lacks a vector, a read throws, or the index is released again', () => {
    const dim = 384;
    const all = clusteredVectors(1_400, { dim, seed: 92 });
    const { vectors, read } = store(dim);
    const source = make(dim);
    all.forEach((v, no) => {
      vectors.set(no, v);
      source.add(no, v);
    });
    const released = () => {
      const index = make(dim);
      all.forEach((v, no) => index.add(no, v));
      index.release(read);
      return index;
    };
    const q = all[900]!;

    const missing = released();
    expect(missing.resideSome()).toBe('more');
    vectors.delete(1_000);
    expect(missing.resideSome()).toBe('missing');
    expect(missing.residing).toBe(false);
    expect(missing.released).toBe(true);
    vectors.set(1_000, all[1_000]!);
    expect(missing.search(q, 10)).toEqual(source.search(q, 10));
    expect(missing.byteSize()).toBeLessThan(source.byteSize());

    const throwing = released();
    let broken = false;
    throwing.release((nos, into) => {
      if (broken) throw new Error('database is closed');
      return read(nos, into);
    });
    expect(throwing.resideSome()).toBe('more');
    broken = true;
    expect(() => throwing.resideSome()).toThrow('database is closed');
    expect(throwing.residing).toBe(false);
    broken = false;
    expect(throwing.search(q, 10)).toEqual(source.search(q, 10));

    const again = released();
    expect(again.resideSome()).toBe('more');
    again.release(read);
    expect(again.residing).toBe(false);
    expect(again.released).toBe(true);
    expect(again.search(q, 10)).toEqual(source.search(q, 10));
    expect(again.resideSome()).toBe('more');
    while (again.resideSome() === 'more');
    expect(again.search(q, 10)).toEqual(source.search(q, 10));
  });
});

describe('AdaptiveVectorIndex reading the copies back after an open', () => {
  it('answers between the slices and settles whenIndexed once every copy is back; a clear stops it', async () => {
    const dim = 384;
    const { all, read, asked, source, codes } = savedExact(kernel, dim, 3_000, 93);
    const flat = new FlatVectorIndex(dim, kernel);
    // Each read is slowed so the read-back needs several slices.
    const slow: VectorReader = (nos, into) => {
      const until = performance.now() + 8;
      while (performance.now() < until);
      return read(nos, into);
    };
    const index = new AdaptiveVectorIndex(flat, { threshold: Infinity }, { read: slow });
    expect(index.adoptQuantized(codes)).toBe(true);
    const done = index.whenIndexed();
    let between = 0;
    let settled = false;
    void done.then(() => (settled = true));
    while (!settled) {
      await new Promise((resolve) => setImmediate(resolve));
      if (settled) break;
      if (flat.residing) between++;
      const q = all[3_000 + (between % 10)]!;
      expect(index.search(q, 10)).toEqual(source.search(q, 10));
    }
    expect(between).toBeGreaterThan(0);
    expect(flat.released).toBe(false);
    const afterReadBack = asked();
    expect(index.search(all[3_005]!, 10)).toEqual(source.search(all[3_005]!, 10));
    expect(asked()).toBe(afterReadBack);

    const cleared = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: Infinity }, { read: slow });
    expect(cleared.adoptQuantized(codes)).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    cleared.clear();
    await cleared.whenIndexed();
    expect(cleared.size).toBe(0);
    cleared.add(1, all[1]!);
    expect(cleared.search(all[1]!, 1)[0]!.no).toBe(1);
  });
});

describe('AdaptiveVectorIndex past the size it keeps f32 copies for', () => {
  const dim = 384;
  /** Room for 100 vectors' f32 copies. */
  const copiesMaxBytes = 100 * dim * 4;

  it('stops keeping them once writes pass it, answers as before from the store, and keeps them again after a clear', () => {
    const all = clusteredVectors(260, { dim, seed: 101 });
    const { vectors, read, asked } = store(dim);
    const logs: string[] = [];
    const flat = new FlatVectorIndex(dim, kernel);
    const index = new AdaptiveVectorIndex(flat, { threshold: Infinity }, { read, copiesMaxBytes, logger: (_level, message) => logs.push(message) });
    const kept = new FlatVectorIndex(dim, kernel);
    const put = (no: number) => {
      vectors.set(no, all[no]!);
      index.add(no, all[no]!);
      kept.add(no, all[no]!);
    };
    for (let no = 0; no < 100; no++) put(no);
    expect(flat.released).toBe(false);
    const queries = all.slice(240, 246);
    for (const q of queries) expect(index.search(q, 10)).toEqual(kept.search(q, 10));
    expect(asked()).toBe(0);

    put(100);
    expect(flat.released).toBe(true);
    expect(logs).toContain('dense leg: past 100 vectors the exact scan keeps int8 codes and re-scores from the store');
    for (let no = 101; no < 200; no++) put(no);
    for (const q of queries) expect(index.search(q, 10)).toEqual(kept.search(q, 10));
    expect(asked()).toBeGreaterThan(0);
    expect(flat.byteSize()).toBeLessThan(kept.byteSize() / 2);

    index.clear();
    expect(flat.released).toBe(false);
    for (let no = 200; no < 240; no++) index.add(no, all[no]!);
    expect(flat.released).toBe(false);
  });

  it('builds HNSW over a scan released this way with one read per batch of vectors, leaving out one the store lacks', async () => {
    const all = clusteredVectors(400, { dim, seed: 104 });
    const { vectors, read } = store(dim);
    let calls = 0;
    const counted: VectorReader = (nos, into) => {
      calls++;
      return read(nos, into);
    };
    const flat = new FlatVectorIndex(dim, kernel);
    const index = new AdaptiveVectorIndex(flat, { threshold: 300 }, { read: counted, copiesMaxBytes });
    all.forEach((v, no) => {
      vectors.set(no, v);
      index.add(no, v);
    });
    vectors.delete(7);
    expect(flat.released).toBe(true);
    expect(calls).toBe(0);
    await index.whenIndexed();
    expect(index.status()).toMatchObject({ state: 'ready', source: 'build', indexed: 399 });
    // 400 vectors in batches of 32: 13 reads, where one read per vector was 400.
    expect(calls).toBe(13);
    const exact = new FlatVectorIndex(dim, kernel);
    for (const [no, v] of vectors) exact.add(no, v);
    expect(index.search(all[3]!, 1)).toEqual(exact.search(all[3]!, 1));
    index.dispose();
  });

  it('reads nothing back after adopting more codes than that, and drops a read-back that writes take past it', async () => {
    const { all, read, asked, source, codes } = savedExact(kernel, dim, 150, 102);
    const large = new FlatVectorIndex(dim, kernel);
    const index = new AdaptiveVectorIndex(large, { threshold: Infinity }, { read, copiesMaxBytes });
    expect(index.adoptQuantized(codes)).toBe(true);
    await index.whenIndexed();
    expect(large.released).toBe(true);
    expect(large.residing).toBe(false);
    const before = asked();
    expect(index.search(all[160]!, 10)).toEqual(source.search(all[160]!, 10));
    expect(asked() - before).toBeLessThan(150);

    // 1,500 vectors are three reads of about 1 MiB, each slowed so the read-back takes several slices.
    const small = savedExact(kernel, dim, 1_500, 103);
    const slow: VectorReader = (nos, into) => {
      const until = performance.now() + 8;
      while (performance.now() < until);
      return small.read(nos, into);
    };
    const flat = new FlatVectorIndex(dim, kernel);
    const growing = new AdaptiveVectorIndex(flat, { threshold: Infinity }, { read: slow, copiesMaxBytes: 1_502 * dim * 4 });
    expect(growing.adoptQuantized(small.codes)).toBe(true);
    const done = growing.whenIndexed();
    // Until the read-back has begun: its first slice waits out the open's grace, and each reads about 1 MiB.
    const deadline = performance.now() + 5_000;
    while (!flat.residing && performance.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    expect(flat.residing).toBe(true);
    for (let no = 1_500; no < 1_503; no++) {
      small.vectors.set(no, small.all[no]!);
      growing.add(no, small.all[no]!);
      small.source.add(no, small.all[no]!);
    }
    await done;
    expect(flat.released).toBe(true);
    expect(flat.residing).toBe(false);
    for (const q of small.all.slice(1_520, 1_524)) expect(growing.search(q, 10)).toEqual(small.source.search(q, 10));
  });
});
