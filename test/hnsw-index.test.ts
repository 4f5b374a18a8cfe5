import { beforeAll, describe, expect, it } from 'vitest';
import { HybridMindError } from '../src/errors.js';
import type { AnnOptions, SavedBytes } from '../src/legs/types.js';
import { joinParts } from '../src/util/parted-bytes.js';
import { checksum, decodeAnn, encodeAnn } from '../src/legs/vector/ann-format.js';
import { readHnswLinks, stripVectors, withVectors } from '../src/legs/vector/hnsw-links.js';
import { AdaptiveVectorIndex } from '../src/legs/vector/adaptive-index.js';
import { FlatVectorIndex } from '../src/legs/vector/flat-index.js';
import { HnswVectorIndex, maxHnswVectors, restoreCapacity } from '../src/legs/vector/hnsw-index.js';
import { HNSW_DIR, loadHnswlib, takeFile, type Hnswlib } from '../src/legs/vector/hnswlib-loader.js';
import { HybridMemory, SqliteWasmDriver } from '../src/index.js';
import { clusteredVectors, exactTop } from './support/clustered-vectors.js';
import { memorySavedBytes } from './support/saved-bytes.js';

let lib: Hnswlib;
beforeAll(async () => {
  lib = await loadHnswlib();
});

/** Version 2 bytes as the builds before per-vector digest entries wrote them: the same without the entries. */
/** Bytes encoded with hnswlib's whole graph marked as version 2, which kept it so: the layout is otherwise the current one. */
function asVersion2(encoded: Uint8Array): Uint8Array {
  const v2 = encoded.slice();
  new DataView(v2.buffer).setUint32(4, 2, true);
  return v2;
}

/** Saved bytes as version 2 wrote them: the graph made whole again with each label's vector. */
function wholeVersion2(current: Uint8Array, vectorOf: (no: number) => Float32Array): Uint8Array {
  const record = decodeAnn(current);
  const graph = withVectors(record.graph, record.dim, (labels) => labels.map(vectorOf));
  return asVersion2(joinParts(encodeAnn({ ...record, entries: record.entries!, graph }))!);
}

function asVersion1(v2: Uint8Array): Uint8Array {
  const header = new DataView(v2.buffer, v2.byteOffset, v2.byteLength);
  const count = header.getUint32(12, true);
  const entriesAt = 44 + 4 * (count + header.getUint32(40, true));
  const v1 = new Uint8Array(v2.length - 8 * count);
  v1.set(v2.subarray(0, entriesAt));
  v1.set(v2.subarray(entriesAt + 8 * count), entriesAt);
  const view = new DataView(v1.buffer);
  view.setUint32(4, 1, true);
  view.setUint32(24, checksum(v1.subarray(44)), true);
  return v1;
}

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

describe('AdaptiveVectorIndex', () => {
  const vectors = clusteredVectors(900, { seed: 21 });

  function fill(index: AdaptiveVectorIndex, count = vectors.length): void {
    for (let i = 0; i < count; i++) index.add(i, vectors[i]!);
  }

  /** An index over the first `count` vectors, HNSW (threshold 100) built or restored from `store` and ready; `logs` collects what it logs. */
  async function indexed(store: SavedBytes, count = vectors.length, options: AnnOptions = {}, logs?: string[]): Promise<AdaptiveVectorIndex> {
    const index = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 100, ...options }, { store, ...(logs ? { logger: (_level: string, message: string) => logs.push(message) } : {}) });
    fill(index, count);
    await index.whenIndexed();
    return index;
  }

  /** Yields a macrotask at a time (the build runs in macrotask slices) until the build has started. */
  async function untilBuilding(index: AdaptiveVectorIndex): Promise<void> {
    for (let turn = 0; turn < 100_000 && index.status().state !== 'building'; turn++) await new Promise((r) => setTimeout(r, 0));
    expect(index.status().state).toBe('building');
  }

  it('answers with the exact scan below the threshold and while HNSW builds, then switches', async () => {
    const index = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 600 });
    fill(index, 500);
    await index.whenIndexed();
    expect(index.status().state).toBe('off');
    fill(index);
    expect(index.status().state).toBe('loading');
    const exact = index.search(vectors[7]!, 5);
    expect(exact[0]!.no).toBe(7);
    await index.whenIndexed();
    expect(index.status()).toMatchObject({ state: 'ready', indexed: 900, source: 'build' });
    expect(index.kind).toBe('hnsw-int8');
    expect(index.search(vectors[7]!, 5)[0]!.no).toBe(7);
    index.dispose();
  });

  it('keeps writes flowing during the build and indexes what arrived meanwhile', async () => {
    const index = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 100 });
    fill(index, 400);
    await untilBuilding(index);
    for (let i = 400; i < 900; i++) index.add(i, vectors[i]!);
    index.remove(5);
    // The writes above arrived while the graph was being built, not after it.
    expect(index.status().state).toBe('building');
    expect(index.status().indexed).toBeLessThan(400);
    await index.whenIndexed();
    expect(index.status().indexed).toBe(899);
    expect(index.search(vectors[850]!, 1)[0]!.no).toBe(850);
    expect(index.search(vectors[5]!, 10).some((h) => h.no === 5)).toBe(false);
    index.dispose();
  });

  it('starts the build over with more room when writes outgrow the graph, and indexes everything', async () => {
    const many = clusteredVectors(1600, { seed: 22 });
    const logs: string[] = [];
    const index = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 100 }, { logger: (_level, message) => logs.push(message) });
    for (let i = 0; i < 200; i++) index.add(i, many[i]!);
    await untilBuilding(index);
    // 1,600 vectors do not fit the 1,024 slots the build started with.
    for (let i = 200; i < many.length; i++) index.add(i, many[i]!);
    await index.whenIndexed();
    expect(logs.some((m) => m.includes('restarting it with room for more'))).toBe(true);
    expect(index.status()).toMatchObject({ state: 'ready', indexed: 1600 });
    expect(index.search(many[1500]!, 1)[0]!.no).toBe(1500);
    index.dispose();
  });

  it('sizes graphs to what hnswlib-wasm\'s 2 GiB heap holds', () => {
    const at384 = maxHnswVectors(384, 16);
    expect(at384).toBeGreaterThan(1_000_000);
    expect(at384).toBeLessThan(2 ** 31 / (384 * 4));
    expect(maxHnswVectors(1536, 16)).toBeLessThan(at384 / 3);
  });

  it('restores saved bytes when the vectors match, and rebuilds when they are stale', async () => {
    const store = memorySavedBytes();
    const first = await indexed(store);
    expect(store.writes).toBe(1);
    first.dispose();

    const second = await indexed(store);
    expect(second.status()).toMatchObject({ state: 'ready', source: 'bytes' });
    expect(second.search(vectors[42]!, 3)[0]!.no).toBe(42);
    second.dispose();

    const third = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 100 }, { store });
    fill(third);
    // More than half the vectors changed since the save: a rebuild costs about as much as a repair.
    for (let i = 0; i < 460; i++) third.add(i, vectors[899 - i]!);
    await third.whenIndexed();
    expect(third.status()).toMatchObject({ state: 'ready', source: 'build' });
    third.dispose();
  });

  it('rebuilds saved bytes built with other graph parameters, even for the same vectors', async () => {
    const store = memorySavedBytes();
    (await indexed(store)).dispose();
    const saved = store.bytes;

    for (const options of [{ m: 8 }, { efConstruction: 50 }]) {
      store.bytes = saved;
      const logs: string[] = [];
      const other = await indexed(store, vectors.length, options, logs);
      expect(logs).toContain('ann: saved HNSW index is stale, rebuilding in the background');
      expect(other.status()).toMatchObject({ state: 'ready', source: 'build' });
      other.dispose();
    }
    store.bytes = saved;
    const same = await indexed(store);
    expect(same.status()).toMatchObject({ state: 'ready', source: 'bytes' });
    same.dispose();
  });

  it('brings saved bytes up to date with the vectors added, changed and removed since they were saved', async () => {
    const store = memorySavedBytes();
    const first = await indexed(store, 800);
    expect(store.writes).toBe(1);
    first.dispose();

    // What the store holds at the next open: 100 vectors more, vector 0 replaced, 3 and 4 gone.
    const logs: string[] = [];
    const reopened = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 100 }, { store, logger: (_level, message) => logs.push(message) });
    fill(reopened);
    reopened.add(0, vectors[1]!);
    reopened.remove(3);
    reopened.remove(4);
    await reopened.whenIndexed();
    expect(logs).toContain('ann: bringing the saved HNSW index up to date (vectors to add: 101, removed: 2)');
    expect(reopened.status()).toMatchObject({ state: 'ready', source: 'repair', indexed: 898 });
    expect(reopened.kind).toBe('hnsw-int8');
    expect(reopened.search(vectors[850]!, 1)[0]!.no).toBe(850);
    // Vector 0 now equals vector 1, so both answer a query for it at the same score.
    expect(reopened.search(vectors[1]!, 2).map((h) => h.no).sort()).toEqual([0, 1]);
    expect(reopened.search(vectors[3]!, 20).some((h) => h.no === 3 || h.no === 4)).toBe(false);
    const recall = vectors.slice(500, 520).filter((v, i) => reopened.search(v, 1)[0]!.no === 500 + i).length;
    expect(recall).toBe(20);
    // A repair saves the graph it finished, so the next open needs none.
    expect(store.writes).toBe(2);
    reopened.dispose();
    const again = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 100 }, { store });
    fill(again);
    again.add(0, vectors[1]!);
    again.remove(3);
    again.remove(4);
    await again.whenIndexed();
    expect(again.status()).toMatchObject({ state: 'ready', source: 'bytes', indexed: 898 });
    again.dispose();
  });

  it('brings into the graph the writes made while hnswlib loads to bring a saved one up to date', async () => {
    const store = memorySavedBytes();
    (await indexed(store, 700)).dispose();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let loads = 0;
    const index = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 100 }, { store, loadLibrary: async () => (loads++, await gate, loadHnswlib()) });
    fill(index, 800);
    for (let turn = 0; turn < 1_000 && loads === 0; turn++) await new Promise((r) => setTimeout(r, 0));
    expect(loads).toBe(1);
    for (let i = 800; i < 850; i++) index.add(i, vectors[i]!);
    release();
    await index.whenIndexed();
    expect(index.status()).toMatchObject({ state: 'ready', source: 'repair', indexed: 850 });
    index.dispose();
  });

  it('keeps writes to a serving graph in its tail, brings it up to date once they are many, and saves nothing at close', async () => {
    const store = memorySavedBytes();
    const index = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 100, saveDelayMs: 0 }, { store });
    expect(index.status().saveMs).toBeNull();
    fill(index, 700);
    await index.whenIndexed();
    expect(store.writes).toBe(1);
    expect(index.status().saveMs).toBeGreaterThan(0);
    const quietPeriod = () => new Promise((r) => setTimeout(r, 20));
    // 10 writes to a graph of 700: too few to be worth hnswlib's time; the tail answers for them.
    for (let i = 700; i < 710; i++) index.add(i, vectors[i]!);
    await quietPeriod();
    expect(index.status()).toMatchObject({ state: 'ready', indexed: 700 });
    expect(index.search(vectors[705]!, 1)[0]!.no).toBe(705);
    // 20: past a hundredth once writes go quiet.
    for (let i = 710; i < 720; i++) index.add(i, vectors[i]!);
    expect(index.status().state).toBe('ready');
    await quietPeriod();
    await index.whenIndexed();
    expect(index.status()).toMatchObject({ state: 'ready', source: 'repair', indexed: 720 });
    expect(store.writes).toBe(2);
    // Past a twentieth at once, without waiting for writes to go quiet.
    const busy = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 100, saveDelayMs: 60_000 }, { store });
    fill(busy, 720);
    await busy.whenIndexed();
    expect(busy.status()).toMatchObject({ state: 'ready', source: 'bytes' });
    for (let i = 720; i < 760; i++) busy.add(i, vectors[i]!);
    expect(busy.status().state).toBe('loading');
    await busy.whenIndexed();
    expect(busy.status()).toMatchObject({ state: 'ready', source: 'repair', indexed: 760 });
    expect(store.writes).toBe(3);
    // What a close leaves unsaved, the next open finds again from the vectors' digest entries.
    for (let i = 760; i < 765; i++) busy.add(i, vectors[i]!);
    busy.remove(3);
    busy.close();
    index.dispose();
    expect(store.writes).toBe(3);
    const reopened = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 100 }, { store });
    fill(reopened, 765);
    reopened.remove(3);
    await reopened.whenIndexed();
    expect(reopened.status()).toMatchObject({ state: 'ready', source: 'bytes', indexed: 759 });
    expect(reopened.search(vectors[762]!, 1)[0]!.no).toBe(762);
    expect(reopened.search(vectors[3]!, 20).some((h) => h.no === 3)).toBe(false);
    reopened.dispose();
  });

  it('routes the memories removed from a serving graph, once it is brought up to date, with the codes they had', async () => {
    const store = memorySavedBytes();
    const index = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 100, saveDelayMs: 0 }, { store });
    fill(index, 700);
    await index.whenIndexed();
    for (let i = 0; i < 20; i++) index.remove(10 * i);
    await new Promise((r) => setTimeout(r, 20));
    await index.whenIndexed();
    expect(index.status()).toMatchObject({ state: 'ready', source: 'repair', indexed: 680 });
    const links = readHnswLinks(decodeAnn(store.bytes!).graph, 384);
    const removed = Array.from(links.labels).filter((_, node) => links.deleted[node] === 1);
    expect(removed.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 10 * i));
    // The store no longer has these vectors: hnswlib got them back from the serving graph's int8 codes.
    removed.forEach((no, j) => {
      const kept = links.kept.subarray(j * 384, (j + 1) * 384);
      const original = vectors[no]!;
      let dot = 0;
      let norm = 0;
      for (let d = 0; d < 384; d++) {
        dot += kept[d]! * original[d]!;
        norm += kept[d]! * kept[d]!;
      }
      expect(dot / Math.sqrt(norm)).toBeGreaterThan(0.999);
    });
    index.dispose();
  });

  it('serves and repairs saved bytes of version 2, which kept hnswlib\'s graph whole, and saves them stripped', async () => {
    const store = memorySavedBytes();
    const first = await indexed(store, 800);
    first.dispose();
    const v2 = wholeVersion2(store.bytes!, (no) => vectors[no]!);
    expect(v2.length).toBeGreaterThan(5 * store.bytes!.length);
    store.bytes = v2;
    const same = await indexed(store, 800);
    expect(same.status()).toMatchObject({ state: 'ready', source: 'bytes', indexed: 800 });
    expect(same.search(vectors[5]!, 1)[0]!.no).toBe(5);
    same.dispose();
    store.bytes = v2;
    const grown = await indexed(store);
    expect(grown.status()).toMatchObject({ state: 'ready', source: 'repair', indexed: 900 });
    expect(grown.search(vectors[850]!, 1)[0]!.no).toBe(850);
    expect(new DataView(store.bytes!.buffer, store.bytes!.byteOffset).getUint32(4, true)).toBe(3);
    grown.dispose();
  });

  it('rebuilds saved bytes of the first format, which cannot say which vectors changed', async () => {
    const store = memorySavedBytes();
    const first = await indexed(store, 800);
    first.dispose();
    const v1 = asVersion1(wholeVersion2(store.bytes!, (no) => vectors[no]!));
    store.bytes = v1;

    const exact = await indexed(store, 800);
    expect(exact.status()).toMatchObject({ state: 'ready', source: 'bytes' });
    exact.dispose();
    store.bytes = v1;
    const grown = await indexed(store);
    expect(grown.status()).toMatchObject({ state: 'ready', source: 'build', indexed: 900 });
    grown.dispose();
  });

  it('falls back to the exact scan when hnswlib cannot load, and says why', async () => {
    const logs: string[] = [];
    const index = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 10 }, {
      loadLibrary: () => Promise.reject(new Error('EvalError: no eval here')),
      logger: (_level, message) => logs.push(message),
    });
    fill(index, 50);
    await index.whenIndexed();
    expect(index.status().state).toBe('failed');
    expect(index.search(vectors[3]!, 1)[0]!.no).toBe(3);
    expect(logs.join('\n')).toContain('exact scan answers');
    index.dispose();
  });
});

describe('HybridMemory with HNSW', () => {
  it('saves the index in the database and restores it when the store is reopened', async () => {
    const vectors = clusteredVectors(300, { seed: 31 });
    const logs: string[] = [];
    const logger = (_l: string, m: string) => logs.push(m);
    const mem = await HybridMemory.open({ embedder: null, ann: { threshold: 200 }, logger });
    await mem.storeMany(vectors.map((embedding, i) => ({ id: `m${i}`, text: `memory number ${i}`, embedding })));
    while (!logs.some((m) => m.includes('HNSW built') || m.includes('HNSW disabled'))) await new Promise((r) => setTimeout(r, 20));
    expect(logs.some((m) => m.includes('HNSW built over 300'))).toBe(true);
    const bytes = await mem.exportDatabase();
    const exactAnswer = await mem.recall('anything', { mode: 'vector', queryEmbedding: vectors[17]!, k: 3 });
    await mem.close();

    // Reopened through a driver, as a store's own OPFS or Node file is: `{ bytes }` is a database
    // from outside, whose derived tables are never trusted (test/reliability).
    const before = logs.length;
    const reopened = await HybridMemory.open({ storage: await SqliteWasmDriver.open({ bytes }), ann: { threshold: 200 }, logger });
    const settled = () => logs.slice(before).filter((m) => m.includes('restored from saved bytes') || m.includes('HNSW built over'));
    // No time bound of its own (the test's timeout is the bound): under load a restore may take long.
    while (settled().length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(settled()[0]).toContain('restored from saved bytes');
    const answer = await reopened.recall('anything', { mode: 'vector', queryEmbedding: vectors[17]!, k: 3 });
    expect(answer.map((h) => h.id)).toEqual(exactAnswer.map((h) => h.id));
    await reopened.close();
  });
});
