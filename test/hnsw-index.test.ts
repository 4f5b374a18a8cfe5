/**
 * hnswlib-wasm's graph as this project drives it: recall at the default efSearch, save and load,
 * the room a restore leaves, what hnswlib throws, corrupt bytes, and the saved formats before this one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { HybridMindError } from '../src/errors.js';
import { joinParts } from '../src/util/parted-bytes.js';
import { checksum, decodeAnn, encodeAnn } from '../src/legs/vector/ann-format.js';
import { stripVectors } from '../src/legs/vector/hnsw-links.js';
import { HnswVectorIndex, maxHnswVectors, restoreCapacity } from '../src/legs/vector/hnsw-index.js';
import { HNSW_DIR, loadHnswlib, takeFile, type Hnswlib } from '../src/legs/vector/hnswlib-loader.js';
import { clusteredVectors, exactTop } from './support/clustered-vectors.js';
import { asVersion1, asVersion2 } from './support/ann-versions.js';

let lib: Hnswlib;
beforeAll(async () => {
  lib = await loadHnswlib();
});

describe('HnswVectorIndex', () => {
  const pool = clusteredVectors(4100, { seed: 11 });
  const vectors = pool.slice(0, 4000);
  const queries = pool.slice(4000);

  it('finds ≥ 95% of the exact top 10 at the default efSearch (64)', () => {
    const index = new HnswVectorIndex(lib, 384);
    index.addMany(vectors.map((_, i) => i), vectors);
    let found = 0;
    for (const q of queries) {
      const truth = new Set(exactTop(vectors, q, 10));
      found += index.search(q, 10).filter((h) => truth.has(h.no)).length;
    }
    const recall = found / (queries.length * 10);
    expect(recall).toBeGreaterThanOrEqual(0.95);
    index.dispose();
  });

  it('restores a graph with room to grow, but never more than the heap holds', () => {
    const limit = maxHnswVectors(384, 16);
    expect(restoreCapacity(10, limit)).toBe(1024);
    expect(restoreCapacity(5_000, limit)).toBe(10_000);
    // 1M vectors: twice that (3.4 GB) failed every reopen; what is held always fits.
    expect(restoreCapacity(1_000_000, limit)).toBe(limit);
    expect(restoreCapacity(limit + 5, limit)).toBe(limit + 5);
  });

  it('round-trips through save and load with identical answers', () => {
    const index = new HnswVectorIndex(lib, 384);
    const some = vectors.slice(0, 500);
    index.addMany(some.map((_, i) => i), some);
    index.remove(3);
    const bytes = index.save();
    const restored = HnswVectorIndex.load(lib, 384, bytes, index.nos(), index.deletedNos());
    expect(restored.size).toBe(499);
    expect(restored.has(3)).toBe(false);
    for (const q of queries.slice(0, 10)) expect(restored.search(q, 10)).toEqual(index.search(q, 10));
    restored.add(3, some[3]!);
    expect(restored.search(some[3]!, 1)[0]!.no).toBe(3);
    index.dispose();
    restored.dispose();
  });

  it('takes a saved file as the buffer the file system holds it in, and copies it only without the file system internals', () => {
    const path = `${HNSW_DIR}/take-test`;
    const data = Uint8Array.from({ length: 3000 }, (_, i) => i % 251);
    lib.fs.writeFile(path, data, { canOwn: true });
    try {
      const taken = takeFile(lib.fs, path);
      expect(taken).toEqual(data);
      expect(taken.buffer).toBe(data.buffer);
      const copied = takeFile({ ...lib.fs, filesystems: null } as Hnswlib['fs'], path);
      expect(copied).toEqual(data);
      expect(copied.buffer).not.toBe(data.buffer);
    } finally {
      lib.fs.unlink(path);
    }
  });

  it('formats no stack trace for what hnswlib throws and handles itself: a failed file lookup, the exception each save throws', () => {
    const index = new HnswVectorIndex(lib, 8);
    index.add(1, Float32Array.from({ length: 8 }, (_, i) => i + 1));
    const original = Error.prepareStackTrace;
    let formatted = 0;
    Error.prepareStackTrace = (error, frames) => {
      formatted++;
      return original ? original(error, frames) : String(error);
    };
    let lookup: unknown;
    let bytes: Uint8Array;
    try {
      try {
        lib.fs.readFile(`${HNSW_DIR}/missing`);
      } catch (error) {
        lookup = error;
      }
      bytes = index.save();
    } finally {
      Error.prepareStackTrace = original;
      index.dispose();
    }
    expect((lookup as { name?: unknown }).name).toBe('ErrnoError');
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect(formatted).toBe(0);
  });

  it('gives each load an instance of its own and leaves no getter on the global object to keep one alive', async () => {
    const other = await loadHnswlib();
    expect(other.fs).not.toBe(lib.fs);
    // The debug build defines these for the runtime symbols it leaves out; their closures held the whole instance.
    for (const name of ['exitJS', 'buffer', 'ydayFromDate', 'inetPton4']) expect(Object.getOwnPropertyDescriptor(globalThis, name)).toBeUndefined();
  });

  it('applies the accept filter, replaces vectors and grows past its capacity', () => {
    const index = new HnswVectorIndex(lib, 384, {}, 16);
    index.addMany(vectors.slice(0, 1500).map((_, i) => i), vectors.slice(0, 1500));
    expect(index.size).toBe(1500);
    const hits = index.search(vectors[10]!, 5, (no) => no % 2 === 1);
    expect(hits).toHaveLength(5);
    expect(hits.every((h) => h.no % 2 === 1)).toBe(true);
    index.add(10, vectors[2000]!);
    expect(index.search(vectors[2000]!, 1)[0]!.no).toBe(10);
    index.dispose();
  });

  it('throws DIMENSION_MISMATCH for a vector of another length', () => {
    const index = new HnswVectorIndex(lib, 384);
    expect(() => index.add(1, new Float32Array(3))).toThrowError(expect.objectContaining({ code: 'DIMENSION_MISMATCH' }));
    index.dispose();
  });

  it('refuses corrupt index bytes with CORRUPT, never a partial index', () => {
    const record = { dim: 384, digest: [1, 2] as [number, number], params: { m: 16, efConstruction: 100 }, nos: new Int32Array([1, 2]), deleted: new Int32Array([5]), entries: new Uint32Array([11, 12, 21, 22]), graph: new Uint8Array([9, 9, 9, 9, 9]) };
    const bytes = joinParts(encodeAnn(record))!;
    expect(decodeAnn(bytes)).toMatchObject({ nos: record.nos, deleted: record.deleted, entries: record.entries, graph: record.graph });
    expect(() => encodeAnn({ ...record, entries: new Uint32Array(2) })).toThrowError(/2 digest words for 2 vectors/);
    const flipped = bytes.slice();
    flipped[bytes.length - 1] = 0;
    expect(() => decodeAnn(flipped)).toThrowError(expect.objectContaining({ code: 'CORRUPT' }));
    expect(() => decodeAnn(bytes.subarray(0, 20))).toThrowError(HybridMindError);
    expect(() => HnswVectorIndex.load(lib, 384, new Uint8Array(64), [1])).toThrowError(expect.objectContaining({ code: 'CORRUPT' }));
  });

  it('checksums as the saved bytes always have, over pieces as over the joined bytes, aligned or not', () => {
    const bytes = Uint8Array.from({ length: 23 }, (_, i) => (i * 37 + 11) & 255);
    // Pinned: a changed function would make every saved graph unreadable.
    expect(checksum(bytes)).toBe(4202667212);
    expect(checksum(new Uint8Array(0))).toBe(0x811c9dc5);
    expect(checksum(bytes.subarray(0, 8), bytes.subarray(8))).toBe(4202667212);
    const unaligned = new Uint8Array(24).subarray(1);
    unaligned.set(bytes);
    expect(checksum(unaligned)).toBe(4202667212);
    expect(() => checksum(bytes.subarray(0, 7), bytes.subarray(7))).toThrowError(/piece 0 is 7 bytes/);
  });

  it('still reads version 1 and 2 bytes, which keep hnswlib\'s graph whole, and strips it', () => {
    const small = new HnswVectorIndex(lib, 8);
    small.addMany([7, 8, 9, 2], vectors.slice(0, 4).map((v) => v.slice(0, 8)));
    small.remove(2);
    const whole = small.save();
    small.dispose();
    const record = { dim: 8, digest: [3, 4] as [number, number], params: { m: 16, efConstruction: 100 }, nos: new Int32Array([7, 8, 9]), deleted: new Int32Array([2]), entries: new Uint32Array(6).fill(5), graph: whole };
    const v2 = asVersion2(joinParts(encodeAnn(record))!);
    const graph = stripVectors(whole, 8);
    expect(graph.length).toBeLessThan(whole.length);
    expect(decodeAnn(v2)).toMatchObject({ dim: 8, digest: [3, 4], nos: record.nos, deleted: record.deleted, entries: record.entries, graph });
    const v1 = asVersion1(v2);
    expect(decodeAnn(v1)).toMatchObject({ dim: 8, digest: [3, 4], nos: record.nos, deleted: record.deleted, entries: null, graph });
    // Version 3 bytes are the stripped graph as saved; an older version's graph that is not hnswlib's is CORRUPT.
    expect(decodeAnn(joinParts(encodeAnn({ ...record, graph }))!).graph).toEqual(graph);
    expect(() => decodeAnn(asVersion2(joinParts(encodeAnn({ ...record, graph }))!))).toThrowError(expect.objectContaining({ code: 'CORRUPT' }));
    new DataView(v1.buffer).setUint32(4, 4, true);
    expect(() => decodeAnn(v1)).toThrowError(expect.objectContaining({ code: 'CORRUPT', message: expect.stringContaining('version 4') }));
  });
});
