/**
 * The page the browser benchmark drives (bench/browser/run.ts): hosts the memory worker on OPFS and
 * exposes `window.bench`. The corpus is generated here, with the Node harness's generator and seed,
 * so 100k documents and their vectors never cross the DevTools protocol.
 */
import { HybridMemory, type MemoryEvent, type RemoteMemory } from '../../src/client/index.js';
import { makeCorpus, makeEdges, type SpeedQuery } from '../lib/corpus.js';

const BATCH = 1000;
const K = 10;

export interface IngestResult { ingestMs: number; storeMs: number; relateMs: number; readyMs: number; memories: number; doneAtMs: number }
export interface QueryResult { latencyMs: number[]; ids: string[][] }
export interface ColdOpenResult { connectMs: number; firstAnswerMs: number; totalMs: number; memories: number; statsMs: number; startedAtMs: number }
/** A worker log line about the dense leg's HNSW index, with when the page received it (performance.now()). */
export interface AnnNote { atMs: number; message: string }
export interface WorkerMemory { bytes: number; workerBytes: number | null; breakdown: Array<{ bytes: number; scopes: string[]; urls: string[]; types: string[] }> }

declare global {
  interface Window {
    bench: {
      ingest(n: number, store: string): Promise<IngestResult>;
      queries(count: number): Promise<QueryResult>;
      coldOpen(store: string, q: { text: string; vector: readonly number[] }): Promise<ColdOpenResult>;
      /** A worker start on an empty store: the fixed part of a cold open (modules, SQLite-WASM, OPFS pool). */
      emptyOpen(store: string): Promise<number>;
      memory(): Promise<WorkerMemory | { error: string }>;
      /** The `ann:` log lines since the page loaded. */
      annNotes(): AnnNote[];
      /** The first `ann:` line since the page loaded that starts with one of `prefixes`, waiting at most `timeoutMs`; null if none came. */
      annSettled(prefixes: string[], timeoutMs: number): Promise<AnnNote | null>;
      close(): Promise<void>;
    };
  }
}

let memory: RemoteMemory | null = null;
let queries: SpeedQuery[] = [];
const annNotes: AnnNote[] = [];

/**
 * `?ann=default`: the library's default, HNSW past 20,000 vectors (the Node harness's
 * `hybridmind (default ann)`); otherwise `ann: false`, the exact WASM-SIMD scan (its `hybridmind`).
 */
const exact = new URLSearchParams(location.search).get('ann') !== 'default';

async function connect(store: string): Promise<RemoteMemory> {
  const worker = new Worker(new URL('../../worker/memory.worker.ts', import.meta.url), { type: 'module' });
  // The worker's log reaches the page as `log:<level>` events: the only sign of when HNSW is built or restored.
  const onEvent = (e: MemoryEvent) => {
    if (e.type === 'model' && e.status.startsWith('log:') && e.file?.startsWith('ann:')) annNotes.push({ atMs: performance.now(), message: e.file });
  };
  // The exact scan's open stays as it was measured before (no event channel to set up).
  memory = await HybridMemory.connect(worker, { store, model: false, multiTab: 'fail', ...(exact ? { ann: false } : { onEvent }) });
  return memory;
}

// Each call gets its own copy: the client transfers whole buffers to the worker, which detaches them here.
const recall = (mem: RemoteMemory, q: SpeedQuery) => mem.recall(q.text, { k: K, queryEmbedding: q.vector.slice(), explain: false });

window.bench = {
  async ingest(n, store) {
    const corpus = makeCorpus(n, 384);
    queries = corpus.queries;
    const edges = makeEdges(corpus.docs);
    const mem = await connect(store);
    const t0 = performance.now();
    for (let i = 0; i < corpus.docs.length; i += BATCH) {
      await mem.storeMany(corpus.docs.slice(i, i + BATCH).map((d) => ({ id: d.id, text: d.text, embedding: d.vector.slice(), createdAt: d.createdAt })));
    }
    const t1 = performance.now();
    await mem.relateMany(edges.map(([from, to]) => ({ from, to, type: 'DEPENDS_ON' })));
    const t2 = performance.now();
    await mem.ready();
    const t3 = performance.now();
    return { ingestMs: t3 - t0, storeMs: t1 - t0, relateMs: t2 - t1, readyMs: t3 - t2, memories: (await mem.stats()).memories, doneAtMs: t3 };
  },

  async queries(count) {
    const mem = memory!;
    const set = queries.slice(0, count);
    for (const q of set.slice(0, 10)) await recall(mem, q);
    const latencyMs: number[] = [];
    const ids: string[][] = [];
    for (const q of set) {
      const t0 = performance.now();
      const hits = await recall(mem, q);
      latencyMs.push(performance.now() - t0);
      ids.push(hits.map((h) => h.id));
    }
    return { latencyMs, ids };
  },

  async coldOpen(store, q) {
    const t0 = performance.now();
    const mem = await connect(store);
    const t1 = performance.now();
    await recall(mem, { text: q.text, vector: Float32Array.from(q.vector) });
    const t2 = performance.now();
    // What a page shows next (the README's example asks for it right after connecting).
    const { memories } = await mem.stats();
    return { connectMs: t1 - t0, firstAnswerMs: t2 - t1, totalMs: t2 - t0, memories, statsMs: performance.now() - t2, startedAtMs: t0 };
  },

  async emptyOpen(store) {
    const t0 = performance.now();
    const mem = await connect(store);
    const ms = performance.now() - t0;
    await mem.close();
    memory = null;
    return ms;
  },

  async memory() {
    const measure = (performance as unknown as { measureUserAgentSpecificMemory?: () => Promise<{ bytes: number; breakdown: Array<{ bytes: number; attribution: Array<{ scope: string; url: string }>; types: string[] }> }> }).measureUserAgentSpecificMemory;
    if (!crossOriginIsolated || !measure) return { error: `measureUserAgentSpecificMemory unavailable (crossOriginIsolated: ${crossOriginIsolated})` };
    const m = await measure.call(performance);
    const breakdown = m.breakdown.map((b) => ({ bytes: b.bytes, scopes: b.attribution.map((a) => a.scope), urls: b.attribution.map((a) => a.url), types: b.types }));
    const worker = breakdown.filter((b) => b.scopes.includes('DedicatedWorkerGlobalScope'));
    return { bytes: m.bytes, workerBytes: worker.length ? worker.reduce((s, b) => s + b.bytes, 0) : null, breakdown };
  },

  annNotes: () => annNotes,

  async annSettled(prefixes, timeoutMs) {
    const until = performance.now() + timeoutMs;
    for (;;) {
      const note = annNotes.find((n) => prefixes.some((p) => n.message.startsWith(p)));
      if (note) return note;
      if (performance.now() > until) return null;
      await new Promise((r) => setTimeout(r, 50));
    }
  },

  async close() {
    await memory?.close();
    memory = null;
  },
};
