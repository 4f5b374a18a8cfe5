/**
 * The adaptive dense leg: the exact scan below the threshold and while HNSW builds, then the
 * graph; writes during a build, saved graphs restored, brought up to date or rebuilt, older saved
 * formats, and the exact scan when hnswlib cannot load. Then a store that saves and restores it.
 */
import { describe, expect, it } from 'vitest';
import type { AnnOptions, SavedBytes } from '../src/legs/types.js';
import { decodeAnn } from '../src/legs/vector/ann-format.js';
import { readHnswLinks } from '../src/legs/vector/hnsw-links.js';
import { AdaptiveVectorIndex } from '../src/legs/vector/adaptive-index.js';
import { FlatVectorIndex } from '../src/legs/vector/flat-index.js';
import { maxHnswVectors } from '../src/legs/vector/hnsw-index.js';
import { loadHnswlib } from '../src/legs/vector/hnswlib-loader.js';
import { HybridMemory, SqliteWasmDriver } from '../src/index.js';
import { clusteredVectors } from './support/clustered-vectors.js';
import { memorySavedBytes } from './support/saved-bytes.js';
import { asVersion1, wholeVersion2 } from './support/ann-versions.js';

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

  it('holds its graph back from a deferred store until a flush, and brings it up to date from the graph held', async () => {
    const store = memorySavedBytes(true);
    const logs: string[] = [];
    const index = new AdaptiveVectorIndex(new FlatVectorIndex(384, null), { threshold: 100, saveDelayMs: 0 }, { store, logger: (_level, message) => logs.push(message) });
    fill(index, 700);
    await index.whenIndexed();
    expect(index.status()).toMatchObject({ state: 'ready', source: 'build', indexed: 700 });
    expect(store.writes).toBe(0);
    for (let i = 700; i < 720; i++) index.add(i, vectors[i]!);
    await new Promise((r) => setTimeout(r, 20));
    await index.whenIndexed();
    // hnswlib restored the graph held back and added the 20, rather than building all 720 anew.
    expect(index.status()).toMatchObject({ state: 'ready', source: 'repair', indexed: 720 });
    expect(logs.filter((m) => m.startsWith('ann: HNSW built over'))).toHaveLength(1);
    expect(store.writes).toBe(0);
    index.flush();
    expect(store.writes).toBe(1);
    expect(decodeAnn(store.bytes!).nos).toHaveLength(720);
    index.flush();
    expect(store.writes).toBe(1);
    const reopened = await indexed(store, 720);
    expect(reopened.status()).toMatchObject({ state: 'ready', source: 'bytes', indexed: 720 });
    for (const [i, held] of [[1, index], [2, reopened]] as const) expect(held.search(vectors[715]!, 1)[0]!.no, `index ${i}`).toBe(715);
    index.dispose();
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
