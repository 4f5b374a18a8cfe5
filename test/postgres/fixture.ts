import { afterAll, beforeAll } from 'vitest';
import type { Hit, MemoryInput } from '../../src/index.js';
import { PostgresMemory, type PostgresOpenOptions } from '../../src/postgres/index.js';
import { HashEmbedder } from '../support/hash-embedder.js';
import { NOW } from '../support/memory.js';
import { startCluster, type Cluster } from './cluster.js';

/** One throwaway cluster per test file, stopped after it. */
export function useCluster(): () => Cluster {
  let cluster: Cluster | undefined;
  beforeAll(() => {
    cluster = startCluster();
  });
  afterAll(() => cluster?.stop());
  return () => cluster!;
}

/** A Postgres memory in a fresh schema with the deterministic test embedder and the pinned clock. */
export function openPg(cluster: Cluster, options: Partial<PostgresOpenOptions> = {}): Promise<PostgresMemory> {
  return PostgresMemory.open({ connection: cluster.connection, schema: cluster.schema('t'), embedder: new HashEmbedder(), now: () => NOW, ...options });
}

/** A small project memory with identifiers, chains, supersessions, labels and dates. */
export const CORPUS: MemoryInput[] = [
  { id: 'adr-003', text: 'ADR-003: agent memory lives in IndexedDB', kind: 'decision', domain: 'storage', createdAt: '2025-10-01' },
  { id: 'adr-007', text: 'ADR-007: SQLite-WASM on OPFS is the source of truth for agent memory', kind: 'decision', domain: 'storage', createdAt: '2025-11-01' },
  { id: 'adr-070', text: 'ADR-070 chose a message queue for background jobs', kind: 'decision', domain: 'infra', createdAt: '2025-11-05' },
  { id: 'adr-017', text: 'ADR-017 chose the test runner', kind: 'decision', domain: 'dev', createdAt: '2025-09-01' },
  { id: 'search', text: 'The search service depends on the HNSW index being warm', kind: 'fact', domain: 'search', createdAt: '2025-11-02', metadata: { team: 'core', tier: 1 } },
  { id: 'hnsw', text: 'The HNSW index is rebuilt by the nightly backfill job', kind: 'fact', domain: 'search', createdAt: '2025-11-03', metadata: { team: 'core', tier: 2 } },
  { id: 'backfill', text: 'Backfill runs at 02:00 UTC on the batch cluster and saturates disk', kind: 'fact', domain: 'infra', createdAt: '2025-11-04', metadata: { team: 'ops' } },
  { id: 'order-4821', text: 'Order #4821 was refunded after the courier lost it', kind: 'ticket', createdAt: '2026-02-01' },
  { id: 'order-4812', text: 'Order #4812 was refunded after a delay', kind: 'ticket', createdAt: '2026-02-02' },
  { id: 'price-old', text: 'The team plan costs 10 EUR per seat per month', kind: 'fact', domain: 'pricing', createdAt: '2025-01-01' },
  { id: 'price-new', text: 'The team plan costs 12 EUR per seat per month from March', kind: 'fact', domain: 'pricing', createdAt: '2026-03-01' },
  { id: 'limit', text: 'Rate limit is 100 requests per minute for the public API', kind: 'fact', domain: 'api', createdAt: '2026-01-10', validTo: '2026-06-01' },
  { id: 'onboard', text: 'New engineers pair with a buddy for two weeks', kind: 'process', createdAt: '2024-05-01' },
  { id: 'oncall', text: 'On-call rotation changes every Monday at 09:00', kind: 'process', createdAt: '2025-06-01' },
  { id: 'checkout', text: 'The checkout service needs a faster payment path', kind: 'fact', domain: 'payments', createdAt: '2026-04-01' },
  { id: 'stripe', text: 'Stripe webhook handler reliability', kind: 'fact', domain: 'payments', createdAt: '2026-04-02' },
  { id: 'kafka', text: 'Kafka cluster partitions rebalancing', kind: 'fact', domain: 'infra', createdAt: '2026-04-03' },
  { id: 'zk', text: 'Zookeeper quorum disk latency', kind: 'fact', domain: 'infra', createdAt: '2026-04-04' },
  // A conversation: the entity graph links turns naming the same people and places, and each turn to its neighbours.
  { id: 'c1', text: 'Caroline: I went to the LGBTQ support group in Boston yesterday', kind: 'turn', createdAt: '2026-05-01', metadata: { sessionId: 'trip', turn: 1 } },
  { id: 'c2', text: 'Melanie: That sounds great! What did you learn there?', kind: 'turn', createdAt: '2026-05-01', metadata: { sessionId: 'trip', turn: 2 } },
  { id: 'c3', text: 'Caroline: That adoption agencies in Boston welcome single parents', kind: 'turn', createdAt: '2026-05-01', metadata: { sessionId: 'trip', turn: 3 } },
  { id: 'c4', text: 'Melanie: Buddy Hield and the Sacramento Kings play in Boston on Friday', kind: 'turn', createdAt: '2026-05-02', metadata: { sessionId: 'trip', turn: 4 } },
  { id: 'c5', text: 'Caroline: Mel, the Kings game is sold out', kind: 'turn', createdAt: '2026-05-02', metadata: { sessionId: 'trip', turn: 5 } },
  ...Array.from({ length: 12 }, (_, i) => ({ id: `x${i}`, text: `Checkout page layout idea ${i}: a faster service banner`, kind: 'idea', createdAt: `2026-0${(i % 9) + 1}-15` })),
];

export const EDGES: Array<[string, string, string]> = [
  ['adr-007', 'adr-003', 'SUPERSEDES'],
  ['price-new', 'price-old', 'SUPERSEDES'],
  ['search', 'hnsw', 'DEPENDS_ON'],
  ['hnsw', 'backfill', 'DEPENDS_ON'],
  ['checkout', 'stripe', 'DEPENDS_ON'],
  ['stripe', 'kafka', 'DEPENDS_ON'],
  ['kafka', 'zk', 'DEPENDS_ON'],
  ['order-4821', 'order-4812', 'RELATES_TO'],
  ['oncall', 'onboard', 'RELATES_TO'],
];

export async function fill(mem: { storeMany(inputs: MemoryInput[]): Promise<string[]>; relateMany(edges: Array<{ from: string; to: string; type: string }>): Promise<string[]> }): Promise<void> {
  await mem.storeMany(CORPUS);
  await mem.relateMany(EDGES.map(([from, to, type]) => ({ from, to, type })));
}

/**
 * A hit as both engines must agree on it: the same memories in the same order with the same
 * per-leg ranks. Cosine scores differ in the last float32 bits (SQLite keeps float32 dot
 * products, pgvector computes in double), so the vector leg is compared by rank and the fused
 * score to four decimals.
 */
export function comparable(hits: readonly Hit[]): unknown[] {
  const round = (x: number) => Math.round(x * 1e5) / 1e5;
  return hits.map((h) => ({
    id: h.id,
    status: h.status,
    // Score fusion divides by each leg's score range, which magnifies the float32-against-float64
    // differences of the legs' own scores by about ten.
    score: Math.round(h.score * 1e4) / 1e4,
    legs: {
      ...(h.legs.vector ? { vector: { rank: h.legs.vector.rank } } : {}),
      ...(h.legs.lexical ? { lexical: { ...h.legs.lexical, score: round(h.legs.lexical.score), matched: [...h.legs.lexical.matched].sort() } } : {}),
      ...(h.legs.graph ? { graph: h.legs.graph } : {}),
      ...(h.legs.time ? { time: { rank: h.legs.time.rank, weight: round(h.legs.time.weight) } } : {}),
    },
  }));
}
