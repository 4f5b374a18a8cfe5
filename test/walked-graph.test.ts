import { beforeAll, describe, expect, it } from 'vitest';
import { HybridMindError } from '../src/errors.js';
import { FlatVectorIndex } from '../src/legs/vector/flat-index.js';
import { HnswVectorIndex } from '../src/legs/vector/hnsw-index.js';
import { readHnswLinks, stripVectors, withVectors } from '../src/legs/vector/hnsw-links.js';
import { loadHnswlib, type Hnswlib } from '../src/legs/vector/hnswlib-loader.js';
import { loadVectorKernel, type VectorKernel } from '../src/legs/vector/kernel.js';
import { WalkedGraph } from '../src/legs/vector/walked-graph.js';
import { clusteredVectors, exactTop } from './support/clustered-vectors.js';

const pool = clusteredVectors(3100, { seed: 41 });
const vectors = pool.slice(0, 3000);
const queries = pool.slice(3000);
/** Memory numbers that are not the nodes' own numbers, so a mix-up shows. */
const noOf = (i: number) => 5000 + 3 * i;

let lib: Hnswlib;
let kernel: VectorKernel;
/** hnswlib's bytes, and the graph as a store keeps it (`stripVectors`). */
let payload: Uint8Array;
let saved: Uint8Array;
let hnsw: HnswVectorIndex;

beforeAll(async () => {
  lib = await loadHnswlib();
  kernel = (await loadVectorKernel())!;
  hnsw = new HnswVectorIndex(lib, 384);
  hnsw.addMany(vectors.map((_, i) => noOf(i)), vectors);
  hnsw.remove(noOf(7));
  payload = hnsw.save();
  saved = stripVectors(payload, 384);
});

function flatOf(withKernel: boolean, skip: (i: number) => boolean = () => false): FlatVectorIndex {
  const flat = new FlatVectorIndex(384, withKernel ? kernel : null);
  vectors.forEach((v, i) => {
    if (!skip(i)) flat.add(noOf(i), v);
  });
  return flat;
}

function recallOf(search: (q: Float32Array) => number[], nos: (i: number) => number = noOf): number {
  let found = 0;
  for (const q of queries) {
    const truth = new Set(exactTop(vectors, q, 10).filter((i) => i !== 7).slice(0, 10).map(nos));
    found += search(q).filter((no) => truth.has(no)).length;
  }
  return found / (queries.length * 10);
}

describe('hnswlib\'s saved graph, read without hnswlib', () => {
  it('holds every node with its label, deleted mark and links, and the entry point at the top level', () => {
    const links = readHnswLinks(saved, 384);
    expect(links.count).toBe(3000);
    expect(Array.from(links.labels)).toEqual(vectors.map((_, i) => noOf(i)));
    expect(Array.from(links.deleted).flatMap((d, node) => (d ? [node] : []))).toEqual([7]);
    expect(links.levels[links.entry]).toBe(links.maxLevel);
    expect(links.maxLevel).toBeGreaterThan(0);
    expect(links.maxM0).toBe(32);
    for (let node = 0; node < links.count; node++) {
      const n = links.level0[node * links.level0Width]! & 0xffff;
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThanOrEqual(32);
    }
    // Only the vector of the node marked deleted stays with the links: the store holds the others.
    expect(Array.from(links.kept)).toEqual(Array.from(vectors[7]!));
    expect(saved.length).toBeLessThan(payload.length / 5);
  });

  it('gives hnswlib its own bytes back from the stripped graph and the store\'s vectors', () => {
    const asked: number[] = [];
    const restored = withVectors(saved, 384, (labels) => {
      asked.push(...labels);
      return labels.map((no) => vectors[(no - 5000) / 3]);
    });
    expect(Buffer.from(restored).equals(Buffer.from(payload))).toBe(true);
    expect(asked).toEqual(vectors.map((_, i) => noOf(i)).filter((no) => no !== noOf(7)));
    // A vector the store no longer has is zeros, which hnswlib reads as any other.
    const without = withVectors(saved, 384, (labels) => labels.map((no) => (no === noOf(42) ? undefined : vectors[(no - 5000) / 3])));
    const restoredHnsw = HnswVectorIndex.load(lib, 384, without, vectors.map((_, i) => noOf(i)).filter((no) => no !== noOf(7)), [noOf(7)]);
    expect(restoredHnsw.search(vectors[43]!, 1)[0]!.no).toBe(noOf(43));
    restoredHnsw.dispose();
    expect(Array.from(new Float32Array(without.buffer, 56 + 42 * (4 + 32 * 4 + 384 * 4 + 4) + 4 + 32 * 4, 384))).toEqual(new Array(384).fill(0));
  });

  it('refuses bytes that are not a whole graph of these vectors with CORRUPT', () => {
    const corrupt = (bytes: Uint8Array, dim = 384) => {
      try {
        readHnswLinks(bytes, dim);
        withVectors(bytes, dim, (labels) => labels.map(() => undefined));
      } catch (error) {
        expect(error).toBeInstanceOf(HybridMindError);
        return (error as HybridMindError).code;
      }
      return 'read';
    };
    expect(corrupt(saved.subarray(0, 40))).toBe('CORRUPT');
    expect(corrupt(saved.subarray(0, saved.length - 4))).toBe('CORRUPT');
    expect(corrupt(saved, 128)).toBe('CORRUPT');
    const longer = new Uint8Array(saved.length + 4);
    longer.set(saved);
    expect(corrupt(longer)).toBe('CORRUPT');
    const stray = saved.slice();
    new DataView(stray.buffer).setUint32(56 + 4, 3000, true);
    expect(corrupt(stray)).toBe('CORRUPT');
    // hnswlib's own bytes are not the stripped form, and stripping what is not hnswlib's fails too.
    expect(corrupt(payload)).toBe('CORRUPT');
    expect(() => stripVectors(saved, 384)).toThrowError(expect.objectContaining({ code: 'CORRUPT' }));
    expect(() => stripVectors(payload.subarray(0, payload.length - 1), 384)).toThrowError(expect.objectContaining({ code: 'CORRUPT' }));
    expect(corrupt(saved)).toBe('read');
  });
});

describe('WalkedGraph', () => {
  it('finds what hnswlib finds at the same ef, and answers with the exact scan\'s scores', () => {
    for (const withKernel of [true, false]) {
      const flat = flatOf(withKernel, (i) => i === 7);
      const graph = WalkedGraph.read(saved, 384, flat);
      expect(graph.indexed).toBe(2999);
      for (const ef of [16, 64]) {
        hnsw.setEfSearch(ef);
        const theirs = recallOf((q) => hnsw.search(q, 10).map((h) => h.no));
        const ours = recallOf((q) => graph.search(flat, q, 10, ef)!.map((h) => h.no));
        expect(ours).toBeGreaterThanOrEqual(theirs - 0.02);
        if (ef === 64) expect(ours).toBeGreaterThanOrEqual(0.95);
      }
      const exact = flat.search(queries[0]!, 10);
      const walked = graph.search(flat, queries[0]!, 10, 64)!;
      const score = new Map(exact.map((h) => [h.no, h.score]));
      for (const hit of walked) if (score.has(hit.no)) expect(hit.score).toBe(score.get(hit.no));
      expect(walked.map((h) => h.score)).toEqual([...walked.map((h) => h.score)].sort((a, b) => b - a));
    }
    hnsw.setEfSearch(64);
  });

  it('expands a node hnswlib marked deleted like any other, its flags kept out of its link count', () => {
    const flat = flatOf(true, (i) => i === 7);
    const graph = WalkedGraph.read(saved, 384, flat);
    // Node 7's own vector: the walk reaches it first and must go on through its links.
    const walked = graph.search(flat, vectors[7]!, 10, 64)!;
    expect(walked.map((h) => h.no)).toEqual(flat.search(vectors[7]!, 10).map((h) => h.no));
  });

  it('reads a graph whose bytes are not aligned to words as it reads an aligned one', () => {
    const flat = flatOf(true, (i) => i === 7);
    const shifted = new Uint8Array(saved.length + 1).subarray(1);
    shifted.set(saved);
    const links = readHnswLinks(shifted, 384);
    expect(Array.from(links.level0)).toEqual(Array.from(readHnswLinks(saved, 384).level0));
    const aligned = WalkedGraph.read(saved, 384, flat);
    const unaligned = WalkedGraph.read(shifted, 384, flat);
    for (const q of queries.slice(0, 20)) expect(unaligned.search(flat, q, 10, 64)).toEqual(aligned.search(flat, q, 10, 64));
  });

  it('keeps what is written after it in a tail and removed vectors as ghosts that route but are never returned', () => {
    const flat = flatOf(true, (i) => i === 7 || i >= 2900);
    // The graph holds nodes for 2900…2999 the store no longer has: they become ghosts.
    const graph = WalkedGraph.read(saved, 384, flat, { pending: [], removed: vectors.slice(2900).map((_, j) => noOf(2900 + j)) });
    expect(graph.indexed).toBe(2899);
    expect(graph.stale).toBe(100);
    for (let i = 2900; i < 2910; i++) expect(graph.search(flat, vectors[i]!, 10, 64)!.some((h) => h.no === noOf(i))).toBe(false);
    // A new memory, a replaced one and a removed one, as the adaptive index reports them before the scan changes.
    const fresh = 99_999;
    graph.willAdd(fresh, flat);
    flat.add(fresh, vectors[2950]!);
    graph.willAdd(noOf(10), flat);
    flat.add(noOf(10), vectors[20]!);
    graph.willRemove(noOf(30), flat);
    flat.remove(noOf(30));
    expect(graph.stale).toBe(103);
    // Removing the replaced one is one write more, not two: its node was a ghost already.
    graph.willRemove(noOf(10), flat);
    expect(graph.stale).toBe(103);
    graph.willAdd(noOf(10), flat);
    expect(graph.stale).toBe(103);
    expect(graph.indexed).toBe(2897);
    expect(graph.size).toBe(2899);
    expect(graph.search(flat, vectors[2950]!, 1, 64)).toEqual(flat.search(vectors[2950]!, 1));
    const twins = graph.search(flat, vectors[20]!, 2, 64)!;
    expect(twins.map((h) => h.no).sort()).toEqual([noOf(10), noOf(20)].sort());
    expect(graph.search(flat, vectors[10]!, 50, 64)!.some((h) => h.no === noOf(10) && h.score > 0.999)).toBe(false);
    expect(graph.search(flat, vectors[30]!, 50, 64)!.some((h) => h.no === noOf(30))).toBe(false);
    // Routing through the ghosts still finds the rest.
    expect(recallOf((q) => graph.search(flat, q, 10, 64)!.map((h) => h.no))).toBeGreaterThanOrEqual(0.9);
    expect(graph.byteSize()).toBeLessThan(hnsw.byteSize() / 5);
  });

  it('asks to be brought up to date after a hundredth of stale writes once quiet, at once after a twentieth or past a quarter of ghosts', () => {
    const flat = flatOf(true, (i) => i === 7);
    const graph = WalkedGraph.read(saved, 384, flat);
    expect(graph.repairDue()).toBeNull();
    // Stale writes against the vectors the graph answers for (its live nodes and its tail).
    for (let i = 0; i < 30; i++) graph.willAdd(90_000 + i, flat);
    expect([graph.stale, graph.size, graph.repairDue()]).toEqual([30, 3029, null]);
    graph.willAdd(90_030, flat);
    expect([graph.stale, graph.size, graph.repairDue()]).toEqual([31, 3030, 'quiet']);
    for (let i = 0; i < 100; i++) graph.willRemove(noOf(100 + i), flat);
    expect([graph.stale, graph.size, graph.repairDue()]).toEqual([131, 2930, 'quiet']);
    for (let i = 0; i < 20; i++) graph.willRemove(noOf(300 + i), flat);
    expect([graph.stale, graph.size, graph.repairDue()]).toEqual([151, 2910, 'now']);
    expect(WalkedGraph.servesWith({ pending: Array.from({ length: 149 }, (_, i) => i), removed: [] }, 3000)).toBe(true);
    expect(WalkedGraph.servesWith({ pending: Array.from({ length: 149 }, (_, i) => i), removed: [1] }, 3000)).toBe(false);
    expect(WalkedGraph.servesWith({ pending: [1, 2, 3], removed: [4] }, 10)).toBe(true);
    // A quarter of the nodes as ghosts: a rebuild, whatever the tail.
    const churned = WalkedGraph.read(saved, 384, flatOf(true, (i) => i < 760));
    expect(churned.repairDue()).toBe('now');
  });

  it('returns only what the filter accepts, and nothing for a query it cannot quantize', () => {
    const flat = flatOf(true, (i) => i === 7);
    const graph = WalkedGraph.read(saved, 384, flat);
    const even = (no: number) => no % 2 === 0;
    const hits = graph.search(flat, queries[1]!, 10, 64, even)!;
    expect(hits).toHaveLength(10);
    expect(hits.every((h) => even(h.no))).toBe(true);
    expect(graph.search(flat, new Float32Array(384), 10, 64)).toBeNull();
  });
});
