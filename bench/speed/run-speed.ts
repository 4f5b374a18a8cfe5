import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeCorpus, type Doc, type SpeedQuery } from '../lib/corpus.js';
import { quantile, summarize, type Summary } from '../lib/stats.js';
import type { ChildOptions, ChildResult } from './child.js';
import type { MemoryReading } from './memory-reading.js';
import { systems, K } from './systems.js';
import { termStatistics, type TermStatistics } from './terms.js';

export interface SpeedOptions {
  sizes: number[];
  dim: number;
  queries: number;
  /** Largest store hnswlib-wasm is built for (its inserts are slow: minutes at 100k). */
  hnswMax: number;
  /** Only these systems (by name), when given. */
  only?: string[];
  /**
   * Processes per system at sizes up to `roundsUpTo`, run in turn (every system once, then again):
   * at 10k one process's p50 moves with the machine (Orama's 11–28 ms between runs), so the
   * latencies are pooled over the rounds and build, memory and cold open are their medians.
   */
  rounds: number;
  roundsUpTo: number;
  log: (line: string) => void;
  /** Called with the results so far after each size, so a long run that is cut short still reports. */
  onSize?: (done: SizeResult[]) => Promise<void>;
}

export interface ModeResult {
  name: string;
  system: string;
  kind: string;
  latency: Summary;
  /** The warm-up pass's latencies (absent in reports written before it was kept). */
  warmupLatency?: Summary;
  /** Vector modes: overlap of their top 10 with the exact (float64) top 10. */
  recallAt10: number | null;
}

export interface SystemResult {
  name: string;
  config: Record<string, unknown>;
  buildMs: number;
  readyMs: number | null;
  ingestPerSec: number;
  /** Settled (see `SETTLE_MS`): what the targets use. */
  memory: ChildResult['memory'] & { rssOverBaseline: number | null };
  /** Right after build, before the idle time. */
  memoryAfterBuild: ChildResult['memory'] & { rssOverBaseline: number | null };
  persistedBytes: number | null;
  coldOpenMs: number | null;
  /** 1-minute load average before and after this system's process ran. */
  load: [number, number];
}

export interface SizeResult {
  n: number;
  /** Processes per system at this size (see `SpeedOptions.rounds`). */
  rounds: number;
  similarity: number;
  terms: TermStatistics;
  systems: SystemResult[];
  modes: ModeResult[];
}

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));

function runChild(options: ChildOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=16384', '--import', 'tsx', CHILD, JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${options.system} at n=${options.n} exited with ${code}`))));
  });
}

/** Runs one system in its own process; its result file goes to `dir`. Returns it with the 1-minute load before and after. */
export async function measure(options: Omit<ChildOptions, 'out'>, dir: string, log: (line: string) => void, round = 1): Promise<{ result: ChildResult; load: [number, number] }> {
  const before = os.loadavg()[0]!;
  log(`  n=${options.n}: ${options.system}${round > 1 ? `, round ${round}` : ''} (load ${before.toFixed(2)})`);
  const out = join(dir, `${options.n}-${options.system.replace(/\W+/g, '_')}-${round}.json`);
  const t0 = performance.now();
  await runChild({ ...options, out });
  const result = JSON.parse(await readFile(out, 'utf8')) as ChildResult;
  log(`    done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return { result, load: [before, os.loadavg()[0]!] };
}

/** Exact top 10 in float64, independent of every system measured. */
export function exactTop(docs: readonly Doc[], q: SpeedQuery): Array<{ id: string; score: number }> {
  const best: Array<{ id: string; score: number }> = [];
  for (const d of docs) {
    let s = 0;
    for (let i = 0; i < q.vector.length; i++) s += d.vector[i]! * q.vector[i]!;
    if (best.length < K || s > best[best.length - 1]!.score) {
      best.push({ id: d.id, score: s });
      best.sort((a, b) => b.score - a.score);
      if (best.length > K) best.pop();
    }
  }
  return best;
}

async function runSize(n: number, o: SpeedOptions, dir: string): Promise<SizeResult> {
  const { docs, queries: all } = makeCorpus(n, o.dim);
  const queries = all.slice(0, o.queries);
  const exact = queries.map((q) => exactTop(docs, q));
  // Small margin below the lowest 10th-best score: float32 inside Orama may round a hair lower.
  const similarity = Math.min(...exact.map((e) => e[K - 1]!.score)) - 1e-3;
  const terms = termStatistics(docs, queries);
  const wanted = systems(o.dim).filter((s) => (!o.only || o.only.includes(s.name) || s.name === 'baseline') && (!s.name.startsWith('hnswlib') || n <= o.hnswMax) && n >= (s.minN ?? 0));

  const rounds = n <= o.roundsUpTo ? o.rounds : 1;
  const runs = wanted.map(() => [] as Array<{ result: ChildResult; load: [number, number] }>);
  for (let round = 1; round <= rounds; round++) {
    for (const [i, s] of wanted.entries()) runs[i]!.push(await measure({ system: s.name, n, dim: o.dim, queries: queries.length, similarity }, dir, o.log, round));
  }
  const results = runs.map((r) => pooled(r.map((x) => x.result)));
  const loads = runs.map((r): [number, number] => [r[0]!.load[0], r[r.length - 1]!.load[1]]);

  const b = wanted.findIndex((s) => s.name === 'baseline');
  const overBaseline = (i: number, pick: (r: ChildResult) => MemoryReading): number | null =>
    b < 0 ? null : rssOverBaseline(runs[i]!.map((x) => pick(x.result)), runs[b]!.map((x) => pick(x.result)));
  const truth = exact.map((e) => new Set(e.map((x) => x.id)));
  return {
    n,
    similarity,
    terms,
    rounds,
    modes: results.flatMap((r) => modeResults(r, truth)),
    systems: results.map((r, i) => systemResult(n, r, { settled: overBaseline(i, (x) => x.memory), afterBuild: overBaseline(i, (x) => x.memoryAfterBuild) }, loads[i]!)),
  };
}

/**
 * One system's rounds as one result: every query's latency from every round (a mode's ids are
 * its first round's: the same queries to the same build), build, readiness, memory and cold open
 * the median of the rounds.
 */
export function pooled(rounds: readonly ChildResult[]): ChildResult {
  const first = rounds[0]!;
  if (rounds.length === 1) return first;
  const median = (pick: (r: ChildResult) => number | null): number | null => {
    const values = rounds.map(pick);
    return values.some((v) => v === null) ? null : quantile((values as number[]).sort((a, b) => a - b), 0.5);
  };
  const memory = (pick: (r: ChildResult) => MemoryReading): MemoryReading => ({
    rss: median((r) => pick(r).rss)!,
    heapUsed: median((r) => pick(r).heapUsed)!,
    external: median((r) => pick(r).external)!,
    arrayBuffers: median((r) => pick(r).arrayBuffers)!,
  });
  return {
    ...first,
    buildMs: median((r) => r.buildMs)!,
    readyMs: median((r) => r.readyMs),
    coldOpenMs: median((r) => r.coldOpenMs),
    memory: memory((r) => r.memory),
    memoryAfterBuild: memory((r) => r.memoryAfterBuild),
    modes: first.modes.map((m, i) => ({ ...m, latencyMs: rounds.flatMap((r) => r.modes[i]!.latencyMs), warmupLatencyMs: rounds.flatMap((r) => r.modes[i]!.warmupLatencyMs) })),
    notes: [...new Set(rounds.flatMap((r) => r.notes))],
  };
}

/**
 * A system's RSS less the baseline's, round by round (readings taken at the same point), then the
 * median: the baseline's own RSS moves with its GC, and a difference of medians once put a small
 * process below it.
 */
export function rssOverBaseline(rounds: readonly MemoryReading[], baseline: readonly MemoryReading[]): number {
  return quantile(rounds.map((r, i) => r.rss - baseline[i]!.rss).sort((x, y) => x - y), 0.5);
}

/** A child's modes as the report shows them; vector modes get recall@10 against `truth` (per query, the exact top-10 ids). */
export function modeResults(r: ChildResult, truth: ReadonlyArray<ReadonlySet<string>>): ModeResult[] {
  return r.modes.map((m) => ({
    name: m.name,
    system: r.system,
    kind: m.kind,
    latency: summarize(m.latencyMs),
    warmupLatency: summarize(m.warmupLatencyMs),
    recallAt10: m.kind === 'vector' ? m.ids.reduce((s, ids, i) => s + ids.filter((id) => truth[i]!.has(id)).length / K, 0) / truth.length : null,
  }));
}

/** A child's build, memory and persistence figures; `overBaseline` its RSS less the baseline process's at each reading, when one ran. */
export function systemResult(n: number, r: ChildResult, overBaseline: { settled: number | null; afterBuild: number | null }, load: [number, number]): SystemResult {
  return {
    name: r.system,
    config: r.config,
    buildMs: r.buildMs,
    readyMs: r.readyMs,
    ingestPerSec: n / (r.buildMs / 1000),
    memory: { ...r.memory, rssOverBaseline: overBaseline.settled },
    memoryAfterBuild: { ...r.memoryAfterBuild, rssOverBaseline: overBaseline.afterBuild },
    persistedBytes: r.persistedBytes,
    coldOpenMs: r.coldOpenMs,
    load,
  };
}

export async function runSpeed(o: SpeedOptions): Promise<SizeResult[]> {
  // Kept when the run fails, so a long run's finished systems can be read.
  const dir = await mkdtemp(join(os.tmpdir(), 'hybridmind-speed-'));
  const out: SizeResult[] = [];
  for (const n of o.sizes) {
    o.log(`speed: n = ${n} (per-system results in ${dir})`);
    out.push(await runSize(n, o, dir));
    await o.onSize?.(out);
  }
  await rm(dir, { recursive: true, force: true });
  return out;
}
