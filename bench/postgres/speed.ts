import { loadavg } from 'node:os';
import { HybridMemory } from '../../src/index.js';
import { PostgresMemory } from '../../src/postgres/index.js';
import { HashEmbedder } from '../../test/support/hash-embedder.js';
import { stress, type StressResult } from '../../test/postgres/stress.js';
import { makeCorpus } from '../lib/corpus.js';
import { summarize, type Summary } from '../lib/stats.js';

export interface EngineSpeed {
  engine: string;
  config: string;
  ingestSeconds: number;
  ingestPerSecond: number;
  hybridMs: Summary;
  /** 32 clients at once, each storing 5-memory batches and recalling, for `seconds`. */
  concurrent: { clients: number; seconds: number; writesPerSecond: number; recallsPerSecond: number; lostWrites: number; halfBatches: number | null; uncodedErrors: number | null };
}

export interface PgSpeedSize {
  size: number;
  queries: number;
  engines: EngineSpeed[];
  /** 1-minute load average when the size started and ended: the machine is shared, timings mean little without it. */
  load: { start: number; end: number };
}

const DIM = 384;
const CHUNK = 1000;
const CLIENTS = 32;

/**
 * The Postgres engine next to the embedded store on the speed corpus (bench/lib/corpus.ts), each
 * as its docs recommend: the embedded store as `HybridMemory.open()` defaults (HNSW past 20k
 * vectors), Postgres with pgvector's HNSW defaults (m 16, ef_construction 64) and ef_search 100,
 * on a local cluster over a unix socket. Same memories, same precomputed vectors, same queries.
 */
export async function runPostgresSpeed(o: { connection: { host: string; port: number; user: string; database: string }; schema: (p: string) => string; sizes: number[]; queries: number; seconds: number; log: (s: string) => void }): Promise<PgSpeedSize[]> {
  const out: PgSpeedSize[] = [];
  for (const size of o.sizes) {
    const loadAtStart = loadavg()[0]!;
    const { docs, queries } = makeCorpus(size, DIM);
    const inputs = docs.map((d) => ({ id: d.id, text: d.text, embedding: d.vector, createdAt: d.createdAt }));
    const asked = queries.slice(0, o.queries);
    const engines: EngineSpeed[] = [];

    o.log(`postgres speed: ${size} memories, embedded store`);
    const mem = await HybridMemory.open({ embedder: new HashEmbedder(DIM) });
    const t0 = performance.now();
    for (let i = 0; i < inputs.length; i += CHUNK) await mem.storeMany(inputs.slice(i, i + CHUNK));
    await mem.ready();
    const ingest = (performance.now() - t0) / 1000;
    const latencies = await timeRecalls(mem, asked);
    const concurrent = await embeddedConcurrency(mem, o.seconds);
    engines.push({ engine: 'hybridmind (embedded, SQLite-WASM)', config: 'HybridMemory.open() defaults', ingestSeconds: ingest, ingestPerSecond: size / ingest, hybridMs: latencies, concurrent });
    await mem.close();

    o.log(`postgres speed: ${size} memories, Postgres`);
    const schema = o.schema('speed');
    const pg = await PostgresMemory.open({ connection: { ...o.connection, max: 4 }, schema, embedder: new HashEmbedder(DIM) });
    const t1 = performance.now();
    for (let i = 0; i < inputs.length; i += CHUNK) await pg.storeMany(inputs.slice(i, i + CHUNK));
    const pgIngest = (performance.now() - t1) / 1000;
    const pgLatencies = await timeRecalls(pg, asked);
    await pg.close();
    o.log(`postgres speed: ${size} memories, ${CLIENTS} Postgres clients for ${o.seconds} s`);
    const s = await stress({ connection: o.connection, schema, embedder: new HashEmbedder(DIM), clients: CLIENTS, seconds: o.seconds, preload: 0 });
    engines.push({ engine: 'hybridmind/postgres (PostgreSQL 15 + pgvector 0.8.1)', config: 'HNSW m 16, ef_construction 64, ef_search 100; 32 pools of 2', ingestSeconds: pgIngest, ingestPerSecond: size / pgIngest, hybridMs: pgLatencies, concurrent: fromStress(s, o.seconds) });
    out.push({ size, queries: asked.length, engines, load: { start: loadAtStart, end: loadavg()[0]! } });
  }
  return out;
}

async function timeRecalls(m: Pick<HybridMemory, 'recall'>, queries: ReadonlyArray<{ text: string; vector: Float32Array }>): Promise<Summary> {
  for (const q of queries.slice(0, 5)) await m.recall(q.text, { queryEmbedding: q.vector });
  const samples: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    await m.recall(q.text, { queryEmbedding: q.vector });
    samples.push(performance.now() - t);
  }
  return summarize(samples);
}

/**
 * The embedded store's answer to many callers: one process, so 32 async callers share one
 * thread; each stores a 5-memory batch and recalls twice per round, as the Postgres clients do.
 */
async function embeddedConcurrency(mem: HybridMemory, seconds: number): Promise<EngineSpeed['concurrent']> {
  const before = (await mem.stats()).memories;
  const deadline = Date.now() + seconds * 1000;
  let writes = 0;
  let recalls = 0;
  const t0 = Date.now();
  await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
    for (let n = 0; Date.now() < deadline; n++) {
      await mem.storeMany(Array.from({ length: 5 }, (_, i) => ({ id: `e${c}-${n}-${i}`, text: `zq${c}x${n}k note ${i} about the review of service ${n % 97}` })));
      writes += 5;
      await mem.recall(`zq${c}x${n}k`, { mode: 'lexical', k: 10 });
      await mem.recall(`review for service ${n % 97}`, { k: 10 });
      recalls += 2;
    }
  }));
  const elapsed = (Date.now() - t0) / 1000;
  const lostWrites = before + writes - (await mem.stats()).memories;
  // One thread runs each call to completion, so a half batch cannot be observed; not measured.
  return { clients: CLIENTS, seconds, writesPerSecond: writes / elapsed, recallsPerSecond: recalls / elapsed, lostWrites, halfBatches: null, uncodedErrors: null };
}

function fromStress(s: StressResult, seconds: number): EngineSpeed['concurrent'] {
  return { clients: CLIENTS, seconds, writesPerSecond: s.writesPerSecond, recallsPerSecond: s.recallsPerSecond, lostWrites: s.lostWrites + (s.memoriesAtEnd - s.expectedMemories), halfBatches: s.halfBatches, uncodedErrors: s.uncoded.length };
}
