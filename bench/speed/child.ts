/**
 * One system in one process: `node --expose-gc --import tsx bench/speed/child.ts <json options>`.
 * A fresh process per system means nobody pays for another's garbage, and the memory read after
 * build is the system's own (RSS and heap after full GCs, the corpus already dropped), read right
 * after the build and again once the process has sat idle (`memory-reading.ts`).
 */
import { writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeCorpus, makeEdges, type SpeedQuery } from '../lib/corpus.js';
import { rng } from '../lib/stats.js';
import { reading, SETTLE_MS, type MemoryReading } from './memory-reading.js';
import { systems, type Built, type Mode } from './systems.js';

export interface ChildOptions {
  system: string;
  n: number;
  dim: number;
  queries: number;
  similarity: number;
  out: string;
  /** Longest wait for background indexes before the queries run anyway (they then meet the build still running). */
  readyTimeoutMs?: number;
}

export interface ModeRun {
  name: string;
  kind: Mode['kind'];
  /** Per query, in query-set order (not in the order they ran). */
  latencyMs: number[];
  /** The same for the warm-up pass before the measured one. */
  warmupLatencyMs: number[];
  ids: string[][];
}

export interface ChildResult {
  system: string;
  config: Record<string, unknown>;
  buildMs: number;
  /** Build start → background indexes done (HNSW), when the system builds any. */
  readyMs: number | null;
  /** Settled: after build, the corpus dropped, {@link SETTLE_MS} idle and two full GCs. */
  memory: MemoryReading;
  /** The same right after build (the corpus dropped, two full GCs), before the idle time. */
  memoryAfterBuild: MemoryReading;
  persistedBytes: number | null;
  coldOpenMs: number | null;
  modes: ModeRun[];
  notes: string[];
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A permutation of the query set seeded by the mode's name: each mode runs its own order. */
function order(count: number, name: string): number[] {
  const random = rng(hash(name));
  const out = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Modes take turns query by query (mode A's i-th, mode B's i-th, …), each through its own order,
 * so no mode meets a query the previous mode has just warmed the caches for. The whole set runs
 * twice in these turns: a warm-up pass, then the measured one. A pass of ten queries per mode was
 * too short for a JIT to settle: HybridMind's 10k hybrid p50 still fell from 0.93 to 0.76 ms
 * between the first and last quarter of the 200 measured queries, while Orama's showed no trend
 * (7.4, 7.0, 8.5, 7.4 ms); the warm-up pass's latencies are kept and reported beside the measured ones.
 */
async function runModes(built: Built, queries: readonly SpeedQuery[]): Promise<ModeRun[]> {
  const runs = built.modes.map((m) => ({ mode: m, order: order(queries.length, m.name), warmupLatencyMs: new Array<number>(queries.length), latencyMs: new Array<number>(queries.length), ids: new Array<string[]>(queries.length) }));
  for (const pass of ['warmupLatencyMs', 'latencyMs'] as const) {
    for (let step = 0; step < queries.length; step++) {
      for (let j = 0; j < runs.length; j++) {
        const r = runs[(step + j) % runs.length]!;
        const i = r.order[step]!;
        const t0 = performance.now();
        const found = await r.mode.query(queries[i]!);
        r[pass][i] = performance.now() - t0;
        r.ids[i] = found;
      }
    }
  }
  return runs.map((r) => ({ name: r.mode.name, kind: r.mode.kind, latencyMs: r.latencyMs, warmupLatencyMs: r.warmupLatencyMs, ids: r.ids }));
}

/** Time from `t0` until `ready` settles, or null when it has not within `timeoutMs`. */
async function settled(ready: Promise<void>, t0: number, timeoutMs: number | undefined): Promise<number | null> {
  if (timeoutMs === undefined) {
    await ready;
    return performance.now() - t0;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<'expired'>((resolve) => (timer = setTimeout(() => resolve('expired'), Math.max(0, timeoutMs - (performance.now() - t0)))));
  const outcome = await Promise.race([ready, expired]);
  clearTimeout(timer);
  return outcome === 'expired' ? null : performance.now() - t0;
}

async function main(o: ChildOptions): Promise<ChildResult> {
  const system = systems(o.dim).find((s) => s.name === o.system);
  if (!system) throw new Error(`unknown system ${o.system}`);
  let corpus: ReturnType<typeof makeCorpus> | null = makeCorpus(o.n, o.dim);
  const queries = corpus.queries.slice(0, o.queries);
  let ctx: Parameters<typeof system.build>[0] | null = { docs: corpus.docs, edges: makeEdges(corpus.docs), similarity: o.similarity };
  let prepared = await system.prepare?.(ctx);
  gc!();
  const t0 = performance.now();
  const built = await system.build(ctx, prepared);
  const buildMs = performance.now() - t0;
  const readyMs = built.ready ? await settled(built.ready, t0, o.readyTimeoutMs) : null;
  const notes = built.notes ?? [];
  if (built.ready && readyMs === null) notes.push(`background indexes not ready after ${((o.readyTimeoutMs ?? 0) / 60_000).toFixed(1)} min: the queries ran while the build went on`);
  corpus = null;
  ctx = null;
  prepared = null;
  const memoryAfterBuild = reading(gc!);
  await sleep(SETTLE_MS);
  const memory = reading(gc!);
  const persistedBytes = built.persistedBytes ? await built.persistedBytes() : null;
  const modes = await runModes(built, queries);
  const coldOpenMs = built.coldOpen ? await built.coldOpen(queries[0]!) : null;
  await built.close?.();
  return { system: system.name, config: system.config, buildMs, readyMs, memory, memoryAfterBuild, persistedBytes, coldOpenMs, modes, notes };
}

const options = JSON.parse(process.argv[2]!) as ChildOptions;
await writeFile(options.out, JSON.stringify(await main(options)));
