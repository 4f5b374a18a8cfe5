import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { makeCorpus } from '../lib/corpus.js';
import { exactTop, measure, modeResults, systemResult, type ModeResult, type SystemResult } from './run-speed.js';
import { SCALE_SYSTEM } from './systems.js';

/**
 * The scale run (`--part scale`): HybridMind alone, with its defaults on the Node file store, at
 * growing sizes (10k, 100k, 1M), each size in its own process through the speed harness's child
 * (`child.ts`), corpus and query set. What it shows is how the figures grow with the store.
 */
export interface ScaleOptions {
  sizes: number[];
  dim: number;
  queries: number;
  /** Per size, the longest wait from the start of ingest for HNSW before the queries run anyway. */
  readyTimeoutMs?: number;
  log: (line: string) => void;
  onSize?: (done: ScaleSize[]) => Promise<void>;
}

export interface ScaleSize {
  n: number;
  system: SystemResult;
  modes: ModeResult[];
  /** What the store logged about its HNSW index (built, restarted, disabled). */
  notes: string[];
  /** Wall time of the exact top 10 (float64, outside the system) the recall is measured against. */
  exactMs: number;
}

/** Per query, the ids of the exact top 10; a function of its own so the corpus is garbage before the child starts. */
function exactIds(n: number, dim: number, queries: number): Array<Set<string>> {
  const { docs, queries: all } = makeCorpus(n, dim);
  return all.slice(0, queries).map((q) => new Set(exactTop(docs, q).map((x) => x.id)));
}

export async function runScale(o: ScaleOptions): Promise<ScaleSize[]> {
  const dir = await mkdtemp(join(os.tmpdir(), 'hybridmind-scale-'));
  const out: ScaleSize[] = [];
  for (const n of o.sizes) {
    o.log(`scale: n = ${n} (results in ${dir})`);
    const t0 = performance.now();
    const truth = exactIds(n, o.dim, o.queries);
    const exactMs = performance.now() - t0;
    const { result, load } = await measure({ system: SCALE_SYSTEM, n, dim: o.dim, queries: o.queries, similarity: 0, ...(o.readyTimeoutMs !== undefined ? { readyTimeoutMs: o.readyTimeoutMs } : {}) }, dir, o.log);
    out.push({ n, system: systemResult(n, result, { settled: null, afterBuild: null }, load), modes: modeResults(result, truth), notes: result.notes, exactMs });
    await o.onSize?.(out);
  }
  await rm(dir, { recursive: true, force: true });
  return out;
}
