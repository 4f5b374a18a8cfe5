/**
 * An adaptive dense leg given saved int8 codes at an open (`adoptQuantized`) answers from them at
 * once without reading every vector, whole or in pieces, with or without digest entries, above and
 * below its threshold, and refuses bytes that do not read, left empty to take vectors as usual.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AdaptiveVectorIndex } from '../src/legs/vector/adaptive-index.js';
import { loadHnswlib } from '../src/legs/vector/hnswlib-loader.js';
import { FlatVectorIndex } from '../src/legs/vector/flat-index.js';
import type { VectorKernel } from '../src/legs/vector/kernel.js';
import type { VectorReader } from '../src/legs/types.js';
import type { PartedBytes } from '../src/util/parted-bytes.js';
import { inPieces } from './support/parted.js';
import { clusteredVectors } from './support/clustered-vectors.js';
import { memorySavedBytes } from './support/saved-bytes.js';
import { afterFirstSlice } from './support/slices.js';
import { savedExact, vectorStore as store } from './support/vector-store.js';
import { simdKernel } from './support/kernel.js';

let kernel: VectorKernel;
beforeAll(async () => {
  kernel = await simdKernel();
});

describe('AdaptiveVectorIndex adopting saved codes', () => {
  const dim = 384;
  /** An index past its threshold with HNSW built and saved, and its codes saved with their digest entries. */
  async function saved(count: number) {
    const all = clusteredVectors(count + 40, { dim, seed: 71 });
    const { vectors, read, asked } = store(dim);
    const bytes = memorySavedBytes();
    const first = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: 200, saveDelayMs: 0 }, { store: bytes, read });
    all.slice(0, count).forEach((v, no) => {
      vectors.set(no, v);
      first.add(no, v);
    });
    await first.whenIndexed();
    const codes = first.saveQuantized()!;
    first.close();
    return { all, vectors, read, asked, bytes, codes, first };
  }

  it('answers from the codes at once without reading every vector, restores HNSW against the saved digest, and keeps the digest through writes', async () => {
    const { all, vectors, read, asked, bytes, codes } = await saved(400);
    const exact = new FlatVectorIndex(dim, kernel);
    for (const [no, v] of vectors) exact.add(no, v);
    const flat = new FlatVectorIndex(dim, kernel);
    const index = new AdaptiveVectorIndex(flat, { threshold: 200, saveDelayMs: 0 }, { store: bytes, read });
    const before = asked();
    expect(index.adoptQuantized(codes)).toBe(true);
    expect(asked()).toBe(before);
    expect(flat.released).toBe(true);
    expect(index.size).toBe(400);
    // HNSW is still loading: the released exact scan answers, re-scoring only its candidates.
    expect(index.status().state).toBe('loading');
    for (const q of all.slice(400, 405)) expect(index.search(q, 10)).toEqual(exact.search(q, 10));
    expect(asked() - before).toBeLessThan(400);
    await index.whenIndexed();
    expect(index.status()).toMatchObject({ state: 'ready', source: 'bytes', indexed: 400 });

    for (const [no, v] of [[3, all[420]!], [401, all[421]!]] as const) {
      vectors.set(no, v);
      index.add(no, v);
    }
    vectors.delete(7);
    index.remove(7);
    index.close();
    // A reopen that reads every vector computes the digest afresh: it must match the one kept from the adopted entries.
    const reopened = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: 200 }, { store: bytes, read });
    for (const [no, v] of [...vectors].sort((a, b) => a[0] - b[0])) reopened.add(no, v);
    await reopened.whenIndexed();
    expect(reopened.status()).toMatchObject({ state: 'ready', source: 'bytes', vectors: 400 });
    reopened.dispose();
  });

  it('reads the saved graph only after the open\'s grace, so the first query is not behind it, and never loads hnswlib for it; a store growing past the threshold loads hnswlib at once', async () => {
    const { all, read, bytes, codes } = await saved(300);
    let loads = 0;
    const loadLibrary = () => {
      loads++;
      return loadHnswlib();
    };
    let reads = 0;
    const store = { ...bytes, read: () => (reads++, bytes.read()) };
    const opened = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: 200, saveDelayMs: 0 }, { store, read, loadLibrary });
    expect(opened.adoptQuantized(codes)).toBe(true);
    expect(opened.status().state).toBe('loading');
    await new Promise((resolve) => setImmediate(resolve));
    expect(opened.search(all[5]!, 1)[0]!.no).toBe(5);
    expect(reads).toBe(0);
    await afterFirstSlice();
    await opened.whenIndexed();
    expect(reads).toBe(1);
    expect(opened.status()).toMatchObject({ state: 'ready', source: 'bytes', indexed: 300 });
    expect(opened.search(all[5]!, 1)[0]!.no).toBe(5);
    expect(loads).toBe(0);
    opened.dispose();

    const growing = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: 200, saveDelayMs: 0 }, { loadLibrary });
    all.slice(0, 200).forEach((v, no) => growing.add(no, v));
    await new Promise((resolve) => setImmediate(resolve));
    expect(loads).toBe(1);
    await growing.whenIndexed();
    growing.dispose();
  });

  it('takes codes with digest entries cut into pieces anywhere, each copied to its place', async () => {
    const { all, vectors, read, bytes, codes } = await saved(300);
    const exact = new FlatVectorIndex(dim, kernel);
    for (const [no, v] of vectors) exact.add(no, v);
    for (const size of [1, 13, 4_096]) {
      const index = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: 200, saveDelayMs: 0 }, { store: bytes, read });
      expect(index.adoptQuantized(inPieces(codes, size).bytes)).toBe(true);
      // Saved again, the codes, bounds, numbers and digest entries come out as they went in.
      expect(index.saveQuantized()).toEqual(codes);
      for (const q of all.slice(300, 303)) expect(index.search(q, 10)).toEqual(exact.search(q, 10));
      await index.whenIndexed();
      // The saved graph is accepted only against the digest the entries make.
      expect(index.status()).toMatchObject({ state: 'ready', source: 'bytes', indexed: 300 });
      index.dispose();
    }
  });

  it('declines without the store to read from or once it holds vectors, and refuses bytes that do not read', async () => {
    const { read, bytes, codes } = await saved(250);
    const fresh = (threshold: number, withRead = true) => new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold }, { store: bytes, ...(withRead ? { read } : {}) });
    expect(fresh(200, false).adoptQuantized(codes)).toBe(false);
    const busy = fresh(200);
    busy.add(9_999, clusteredVectors(1, { dim, seed: 3 })[0]!);
    expect(busy.adoptQuantized(codes)).toBe(false);
    expect(() => fresh(200).adoptQuantized(codes.subarray(0, codes.length - 8))).toThrow(/AdaptiveVectorIndex\.adoptQuantized.*need/);
  });
});

describe('AdaptiveVectorIndex adopting saved codes read in pieces', () => {
  it.each([1, 7, 16, 1_000, 1 << 20])('answers as from the whole bytes, with pieces of %i bytes', (size) => {
    const dim = 96;
    const { all, read, source, codes } = savedExact(kernel, dim, 250, 91);
    const flat = new FlatVectorIndex(dim, kernel);
    const index = new AdaptiveVectorIndex(flat, { threshold: Infinity }, { read });
    expect(index.adoptQuantized(inPieces(codes, size).bytes)).toBe(true);
    expect(flat.released).toBe(true);
    expect(index.saveQuantized()).toEqual(codes);
    for (const q of all.slice(250, 256)) expect(index.search(q, 10)).toEqual(source.search(q, 10));
  });

  it('refuses a value whose last piece never comes, and is left empty, taking vectors as usual', () => {
    const dim = 96;
    const { all, read, vectors, codes } = savedExact(kernel, dim, 250, 92);
    const flat = new FlatVectorIndex(dim, kernel);
    const index = new AdaptiveVectorIndex(flat, { threshold: Infinity }, { read });
    expect(() => index.adoptQuantized(inPieces(codes, 1_000, 'last').bytes)).toThrow(/CORRUPT|missing a part/);
    expect(index.size).toBe(0);
    expect(flat.released).toBe(false);
    for (const [no, v] of vectors) index.add(no, v);
    expect(index.search(all[3]!, 1)[0]!.no).toBe(3);
  });

  it('refuses pieces that end inside the header or disagree with it', () => {
    const dim = 96;
    const { read, codes } = savedExact(kernel, dim, 40, 93);
    const fresh = (threshold: number) => new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold }, { read });
    expect(() => fresh(Infinity).adoptQuantized(inPieces(codes.subarray(0, 10), 4).bytes)).toThrow(/at least 16 bytes, received 10/);
    expect(() => fresh(Infinity).adoptQuantized(inPieces(codes.subarray(0, codes.length - 8), 64).bytes)).toThrow(/need \d+ bytes/);
    expect(() => fresh(Infinity).adoptQuantized({ length: 3 } as unknown as PartedBytes)).toThrow(/at least 16 bytes/);
  });
});

describe('AdaptiveVectorIndex adopting saved codes without digest entries, where it may build HNSW', () => {
  const dim = 384;

  it('answers from them at once, fills the digest in from the store after the open, then builds and saves a graph against it', async () => {
    const { all, vectors, read, asked, source, codes } = savedExact(kernel, dim, 300, 95);
    const bytes = memorySavedBytes();
    const index = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: 200, saveDelayMs: 0 }, { store: bytes, read });
    // What a store that read every vector at the open makes: a digest (no graph is ever built with this threshold).
    const reference = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: 1e9 }, { read });
    for (const [no, v] of vectors) reference.add(no, v);
    expect(index.adoptQuantized(inPieces(codes, 4_096).bytes)).toBe(true);
    expect(asked()).toBe(0);
    for (const q of all.slice(300, 303)) expect(index.search(q, 10)).toEqual(source.search(q, 10));
    // Writes before the fill: the new vector's entry comes from the write, the removed one has none.
    for (const target of [source, reference, index]) {
      target.add(300, all[330]!);
      target.remove(7);
    }
    vectors.set(300, all[330]!);
    vectors.delete(7);
    // Until the digest is whole the codes are saved as they came, without entries, and no graph starts.
    expect(index.saveQuantized()).toEqual(source.saveQuantized());
    await new Promise((resolve) => setImmediate(resolve));
    expect(index.status().state).toBe('off');
    await index.whenIndexed();
    expect(asked()).toBeGreaterThanOrEqual(300);
    expect(index.status()).toMatchObject({ state: 'ready', source: 'build', indexed: 300 });
    expect(index.saveQuantized()).toEqual(reference.saveQuantized());
    expect(index.search(all[330]!, 1)[0]!.no).toBe(300);
    // The graph was saved against that digest: a reopen from the new codes serves it as saved.
    const reopened = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: 200, saveDelayMs: 0 }, { store: bytes, read });
    expect(reopened.adoptQuantized(index.saveQuantized()!)).toBe(true);
    await reopened.whenIndexed();
    expect(reopened.status()).toMatchObject({ state: 'ready', source: 'bytes', indexed: 300 });
    for (const target of [index, reopened, reference]) target.dispose();
  });

  it('reads nothing more once cleared or disposed during the fill', async () => {
    const { read, asked, codes } = savedExact(kernel, dim, 250, 96);
    for (const stop of ['clear', 'dispose'] as const) {
      const index = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: 200 }, { read });
      expect(index.adoptQuantized(codes)).toBe(true);
      const before = asked();
      index[stop]();
      await afterFirstSlice();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(asked()).toBe(before);
      expect(index.status().state).toBe('off');
    }
  });

  it('leaves the answers to the exact scan when the store lacks a vector the codes hold', async () => {
    const { all, vectors, read, source, codes } = savedExact(kernel, dim, 250, 97);
    vectors.delete(42);
    const warnings: string[] = [];
    const logger = (level: string, message: string) => void (level === 'warn' && warnings.push(message));
    const index = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: 200 }, { read, logger });
    expect(index.adoptQuantized(codes)).toBe(true);
    await index.whenIndexed();
    expect(index.status()).toMatchObject({ state: 'failed', error: expect.stringMatching(/the store lacks the vector of memory no 42/) });
    expect(warnings).toEqual([expect.stringMatching(/^ann: HNSW disabled, the exact scan answers: computing the digest/)]);
    expect(index.exact).toBe(true);
    for (const no of [5, 120, 249]) expect(index.search(all[no]!, 1)).toEqual(source.search(all[no]!, 1));
    index.dispose();
  });
});

describe('AdaptiveVectorIndex adopting saved codes below its threshold', () => {
  it('answers from the codes until the f32 copies are read back after the open, then stops reading', async () => {
    const dim = 384;
    const { all, vectors, read, asked, source, codes } = savedExact(kernel, dim, 300, 81);
    const flat = new FlatVectorIndex(dim, kernel);
    const index = new AdaptiveVectorIndex(flat, { threshold: Infinity }, { read });
    expect(index.adoptQuantized(codes)).toBe(true);
    expect(asked()).toBe(0);
    const queries = all.slice(300, 306);
    for (const q of queries) expect(index.search(q, 10)).toEqual(source.search(q, 10));
    expect(flat.released).toBe(true);
    // A write before the read-back: the copies read back must include it.
    vectors.set(300, all[330]!);
    index.add(300, all[330]!);
    source.add(300, all[330]!);
    await afterFirstSlice();
    expect(flat.released).toBe(false);
    const afterReadBack = asked();
    for (const q of [...queries, all[330]!]) expect(index.search(q, 10)).toEqual(source.search(q, 10));
    expect(asked()).toBe(afterReadBack);
    expect(index.status().state).toBe('off');
  });

  it('keeps re-scoring from the store when a vector it holds is missing there or the read fails, and reads nothing back once cleared', async () => {
    const dim = 64;
    const all = clusteredVectors(120, { dim, seed: 82 });
    const { vectors, read } = store(dim);
    const source = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: Infinity }, { read });
    all.forEach((v, no) => {
      vectors.set(no, v);
      source.add(no, v);
    });
    const codes = source.saveQuantized()!;
    const warnings: string[] = [];
    const flat = new FlatVectorIndex(dim, kernel);
    const index = new AdaptiveVectorIndex(flat, { threshold: Infinity }, { read, logger: (level, message) => level === 'warn' && warnings.push(message) });
    expect(index.adoptQuantized(codes)).toBe(true);
    vectors.delete(5);
    await afterFirstSlice();
    expect(flat.released).toBe(true);
    expect(warnings).toEqual(['the store lacks vectors the dense leg holds; it keeps re-scoring from the store']);
    expect(index.search(all[6]!, 3)[0]!.no).toBe(6);

    const failing = new FlatVectorIndex(dim, kernel);
    let broken = false;
    const flaky: VectorReader = (nos, into) => {
      if (broken) throw new Error('database is closed');
      return read(nos, into);
    };
    const throwing = new AdaptiveVectorIndex(failing, { threshold: Infinity }, { read: flaky, logger: (level, message) => level === 'warn' && warnings.push(message) });
    expect(throwing.adoptQuantized(codes)).toBe(true);
    broken = true;
    await afterFirstSlice();
    expect(failing.released).toBe(true);
    expect(warnings.at(-1)).toBe('dense leg: reading the vectors back failed, it keeps re-scoring from the store: database is closed');
    broken = false;
    expect(throwing.search(all[6]!, 3)[0]!.no).toBe(6);

    const cleared = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: Infinity }, { read });
    expect(cleared.adoptQuantized(codes)).toBe(true);
    cleared.clear();
    await afterFirstSlice();
    expect(cleared.size).toBe(0);
  });
});
