import { HybridMemory } from '../../src/index.js';
import { makeCorpus, makeEdges, type SpeedQuery } from '../lib/corpus.js';
import { canMeasureHeap, retainedBytes, summarize, timeAsync, type Summary } from '../lib/stats.js';
import { hnswPeers } from './hnsw.js';
import { exactScanPeers, fts5Peer, hybridMindPeers, miniSearchPeer, oramaPeers, type Peer } from './peers.js';

export interface SpeedOptions {
  sizes: number[];
  dim: number;
  queries: number;
  /** Largest store hnswlib-wasm is built for (its inserts are slow: minutes at 100k). */
  hnswMax: number;
  log: (line: string) => void;
}

export interface PeerResult {
  name: string;
  kind: Peer['kind'];
  buildMs: number | null;
  ingestPerSec: number | null;
  latency: Summary;
  retainedBytes: number | null;
  persistedBytes: number | null;
  /** Vector peers: overlap of their top 10 with the exact top 10. */
  recallAt10: number | null;
}

export interface SizeResult {
  n: number;
  peers: PeerResult[];
  coldOpenMs: number;
  coldOpenRebuildMs: number;
}

/**
 * One store size: every peer is built from the same documents and vectors, then the queries run
 * round-robin (query i goes to every peer before query i+1), so drift in the machine's speed
 * hits all peers alike.
 */
async function runSize(n: number, o: SpeedOptions): Promise<SizeResult> {
  const { docs, queries: allQueries } = makeCorpus(n, o.dim);
  const edges = makeEdges(docs);
  const queries = allQueries.slice(0, o.queries);
  const ours = hybridMindPeers();
  const groups: Peer[][] = [ours.peers, oramaPeers(o.dim), [miniSearchPeer()], [fts5Peer()], ...(await exactScanPeers()).map((p) => [p])];
  if (n <= o.hnswMax) groups.push(hnswPeers(100, [64, 128]), hnswPeers(200, [64, 128]));

  const built = new Map<Peer, { buildMs: number | null; retained: number | null }>();
  for (const group of groups) {
    const before = canMeasureHeap() ? retainedBytes() : 0;
    const [, ms] = await timeAsync(() => group[0]!.build(docs, edges));
    const retained = canMeasureHeap() ? retainedBytes() - before : null;
    o.log(`  built ${group[0]!.name} in ${(ms / 1000).toFixed(1)} s`);
    group.forEach((p, i) => built.set(p, { buildMs: i === 0 ? ms : null, retained: i === 0 ? retained : null }));
  }
  const peers = groups.flat();
  const floor = peers.find((p) => p.name.includes('(floor)'))!;
  const exact = await Promise.all(queries.map((q) => floor.query(q)));

  const samples = new Map<Peer, number[]>(peers.map((p) => [p, []]));
  const overlap = new Map<Peer, number>(peers.map((p) => [p, 0]));
  for (let warm = 0; warm < Math.min(10, queries.length); warm++) for (const p of peers) await p.query(queries[warm]!);
  const started = performance.now();
  for (let i = 0; i < queries.length; i++) {
    if (i > 0 && i % 25 === 0) o.log(`  ${i}/${queries.length} queries round-robin (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    const q: SpeedQuery = queries[i]!;
    for (let j = 0; j < peers.length; j++) {
      const p = peers[(i + j) % peers.length]!;
      const t0 = performance.now();
      const found = await p.query(q);
      samples.get(p)!.push(performance.now() - t0);
      if (p.kind === 'vector') {
        const truth = new Set(exact[i]);
        overlap.set(p, overlap.get(p)! + found.filter((id) => truth.has(id)).length / Math.max(1, truth.size));
      }
    }
  }

  o.log('  cold open');
  const bytes = await ours.store().exportDatabase();
  const [, coldOpenMs] = await timeAsync(async () => {
    const reopened = await HybridMemory.open({ storage: { bytes }, embedder: null, ann: false });
    await reopened.recall(queries[0]!.text, { queryEmbedding: queries[0]!.vector });
    await reopened.close();
  });

  const results: PeerResult[] = [];
  for (const p of peers) {
    const b = built.get(p)!;
    results.push({
      name: p.name,
      kind: p.kind,
      buildMs: b.buildMs,
      ingestPerSec: b.buildMs === null ? null : n / (b.buildMs / 1000),
      latency: summarize(samples.get(p)!),
      retainedBytes: b.retained,
      persistedBytes: p.persistedBytes ? await p.persistedBytes() : null,
      recallAt10: p.kind === 'vector' ? overlap.get(p)! / queries.length : null,
    });
  }
  for (const p of peers) await p.close?.();
  const rebuild = built.get(ours.peers[0]!)!.buildMs!;
  return { n, peers: results, coldOpenMs, coldOpenRebuildMs: rebuild };
}

export async function runSpeed(o: SpeedOptions): Promise<SizeResult[]> {
  const out: SizeResult[] = [];
  for (const n of o.sizes) {
    o.log(`speed: n = ${n}`);
    out.push(await runSize(n, o));
  }
  return out;
}
