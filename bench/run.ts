/**
 * `npm run bench [-- options]`: retrieval quality per leg and fused, written to
 * bench/results/<name>.json and .md; speed against peers, each system in its own process, written
 * to bench/results/speed.json and .md (smoke: speed-smoke).
 *
 *   --part all|quality|speed|embed   what to run, comma-separated (default all)
 *   --part postgres,postgres-speed   hybridmind/postgres side by side (only when named; bench/postgres/)
 *   --part scale                     HybridMind alone at growing sizes on the Node file store (only when
 *                                    named; default sizes 10000,100000,1000000), written to
 *                                    bench/results/scale.json and .md
 *   --ready-minutes 55               scale: longest wait per size for HNSW before the queries run anyway
 *   --part api                       the calls besides recall (stats, get, list, …, close) on a reopened
 *                                    file store, right after the open and again (only when named;
 *                                    bench/api/), written to bench/results/api.json and .md
 *   --part browser                   the speed harness in a Chromium worker on OPFS (only when named;
 *                                    bench/browser/), written to bench/results/browser.json and .md
 *   --sizes 10000,100000             store sizes for speed (default 10000,100000)
 *   --queries 200                    queries per size
 *   --hnsw-max 100000                largest size hnswlib-wasm is built at
 *   --rounds 3 --rounds-up-to 20000  speed: processes per system at sizes up to 20000, taken in turn,
 *                                    latencies pooled and build/memory/cold open their medians
 *   --systems hybridmind,orama       speed: only these systems (default all)
 *   --scifact DIR --hotpot DIR --locomo DIR
 *                                    dataset folders (default ../shared/data/…); "none" skips one
 *   --smoke                          tiny sizes, few queries: keeps the code working in CI
 *   --out NAME                       results file name (default latest; smoke: smoke)
 */
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { Embedder } from '../src/index.js';
import { loadHotpot, loadLocomo, loadSciFact, type RetrievalSet, type RetrievalSuite } from './lib/datasets.js';
import { renderReport, type BenchResults } from './report.js';
import { runDataset } from './quality/datasets.js';
import { measureEmbedding } from './quality/embedding.js';
import { runSynthetic } from './quality/synthetic.js';
import { runSpeed } from './speed/run-speed.js';
import { renderSpeed, type SpeedReport } from './speed/report.js';
import { runScale } from './speed/run-scale.js';
import { renderScale, type ScaleReport } from './speed/scale-report.js';
import { machineInfo } from './lib/machine.js';

const { values } = parseArgs({
  options: {
    part: { type: 'string', default: 'all' },
    sizes: { type: 'string' },
    queries: { type: 'string' },
    'hnsw-max': { type: 'string' },
    rounds: { type: 'string' },
    'rounds-up-to': { type: 'string' },
    systems: { type: 'string' },
    scifact: { type: 'string', default: '../shared/data/scifact' },
    hotpot: { type: 'string', default: '../shared/data/hotpotqa-100' },
    locomo: { type: 'string', default: '../shared/data/locomo-dev' },
    seconds: { type: 'string' },
    'ready-minutes': { type: 'string' },
    smoke: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});

const log = (line: string) => process.stderr.write(`${line}\n`);
const part = values.part!;
const parts = new Set(part.split(','));
const smoke = values.smoke!;
const wants = (p: string) => parts.has('all') || parts.has(p);

async function loadEmbedder(): Promise<Embedder | null> {
  const { findLocalModel } = await import('../src/embedder/local-model.js');
  const local = await findLocalModel();
  if (!local) {
    log('no provisioned model (run `npm run model:fetch`): quality runs without the vector leg');
    return null;
  }
  const { TransformersEmbedder } = await import('../src/embedder/transformers.js');
  return TransformersEmbedder.create({ localModelPath: local.root, allowRemoteModels: false, dtype: 'fp32' });
}

/** The commit measured: git's HEAD, or BENCH_COMMIT when the tree was copied out of git to be measured. */
function sourceCommit(): string {
  try {
    return execSync('git rev-parse HEAD', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return process.env['BENCH_COMMIT'] ?? 'unknown';
  }
}

const machine = await machineInfo();
const dir = new URL('./results/', import.meta.url);
await mkdir(dir, { recursive: true });

if (wants('speed')) {
  const sizes = (values.sizes ?? (smoke ? '2000' : '10000,100000')).split(',').map(Number);
  const queries = Number(values.queries ?? (smoke ? 20 : 200));
  const hnswMax = Number(values['hnsw-max'] ?? (smoke ? 2000 : 100_000));
  const rounds = Number(values.rounds ?? (smoke ? 1 : 3));
  const roundsUpTo = Number(values['rounds-up-to'] ?? 20_000);
  const start = os.loadavg()[0]!;
  const commit = sourceCommit();
  const createdAt = new Date().toISOString();
  const name = values.out ?? (smoke ? 'speed-smoke' : 'speed');
  const write = async (done: SpeedReport['sizes']) => {
    const report: SpeedReport = { createdAt, commit, machine, settings: { sizes, queries, hnswMax, dim: 384, rounds, roundsUpTo }, load: { start, end: os.loadavg()[0]! }, sizes: done };
    await writeFile(new URL(`${name}.json`, dir), JSON.stringify(report, null, 2));
    await writeFile(new URL(`${name}.md`, dir), renderSpeed(report));
    log(`wrote bench/results/${name}.json, ${name}.md (sizes ${done.map((s) => s.n).join(', ')})`);
  };
  await runSpeed({ sizes, dim: 384, queries, hnswMax, rounds, roundsUpTo, log, onSize: write, ...(values.systems ? { only: values.systems.split(',') } : {}) });
}

if (parts.has('scale')) {
  const sizes = (values.sizes ?? (smoke ? '1000,25000' : '10000,100000,1000000')).split(',').map(Number);
  const queries = Number(values.queries ?? (smoke ? 20 : 200));
  const base = { createdAt: new Date().toISOString(), commit: sourceCommit(), machine, start: os.loadavg()[0]! };
  const name = values.out ?? (smoke ? 'scale-smoke' : 'scale');
  await runScale({
    sizes,
    dim: 384,
    queries,
    ...(values['ready-minutes'] ? { readyTimeoutMs: Number(values['ready-minutes']) * 60_000 } : {}),
    log,
    onSize: async (done) => {
      const report: ScaleReport = { createdAt: base.createdAt, commit: base.commit, machine, settings: { sizes, queries, dim: 384, readyMinutes: values['ready-minutes'] ? Number(values['ready-minutes']) : null }, load: { start: base.start, end: os.loadavg()[0]! }, sizes: done };
      await writeFile(new URL(`${name}.json`, dir), JSON.stringify(report, null, 2));
      await writeFile(new URL(`${name}.md`, dir), renderScale(report));
      log(`wrote bench/results/${name}.json, ${name}.md (sizes ${done.map((s) => s.n).join(', ')})`);
    },
  });
}

const results: BenchResults = { createdAt: new Date().toISOString(), smoke, machine, settings: { part } };

if (wants('quality') || wants('embed')) {
  const embedder = await loadEmbedder();
  if (wants('embed') && embedder) results.embedding = await measureEmbedding(embedder, smoke ? 32 : 256);
  if (wants('quality')) {
    results.quality = { embedderId: embedder?.id ?? null, synthetic: await runSynthetic(embedder), datasets: [] };
    const limit = smoke ? 10 : undefined;
    const single = (set: RetrievalSet): RetrievalSuite => ({ name: set.name, parts: [set] });
    const sets: Array<[string, string, (dir: string) => Promise<RetrievalSuite>]> = [
      ['LoCoMo-dev', values.locomo!, loadLocomo],
      ['HotpotQA-100', values.hotpot!, async (dir) => single(await loadHotpot(dir))],
      ['SciFact', values.scifact!, async (dir) => {
        const set = await loadSciFact(dir);
        return single(smoke ? { ...set, docs: set.docs.slice(0, 300) } : set);
      }],
    ];
    for (const [label, dir, load] of sets) {
      if (dir !== 'none' && existsSync(dir)) results.quality.datasets.push(await runDataset(await load(dir), embedder, log, limit));
      else log(`${label} not found at ${dir}: skipped`);
    }
  }
  const name = values.out ?? (smoke ? 'smoke' : 'latest');
  await writeFile(new URL(`${name}.json`, dir), JSON.stringify(results, null, 2));
  await writeFile(new URL(`${name}.md`, dir), renderReport(results));
  log(`wrote bench/results/${name}.json, ${name}.md`);
}

if (parts.has('postgres') || parts.has('postgres-speed')) {
  const { runPostgresBench } = await import('./postgres/run.js');
  await runPostgresBench({
    quality: parts.has('postgres'),
    speed: parts.has('postgres-speed'),
    smoke,
    embedder: loadEmbedder,
    data: { scifact: values.scifact!, hotpot: values.hotpot!, locomo: values.locomo! },
    sizes: (values.sizes ?? (smoke ? '2000' : '10000,100000')).split(',').map(Number),
    queries: Number(values.queries ?? (smoke ? 20 : 200)),
    seconds: Number(values.seconds ?? (smoke ? 5 : 60)),
    out: values.out ?? (smoke ? 'postgres-smoke' : 'postgres'),
    log,
  });
}
if (parts.has('api')) {
  const { runApi, renderApi } = await import('./api/run.js');
  const sizes = (values.sizes ?? (smoke ? '2000' : '10000,100000')).split(',').map(Number);
  const rounds = Number(values.rounds ?? 3);
  const base = { createdAt: new Date().toISOString(), commit: sourceCommit() };
  const name = values.out ?? (smoke ? 'api-smoke' : 'api');
  await runApi({
    sizes,
    rounds,
    log,
    onSize: async (done) => {
      const report = { ...base, machine, settings: { sizes, rounds }, sizes: done };
      await writeFile(new URL(`${name}.json`, dir), JSON.stringify(report, null, 2));
      await writeFile(new URL(`${name}.md`, dir), renderApi(report));
      log(`wrote bench/results/${name}.json, ${name}.md (sizes ${done.map((s) => s.n).join(', ')})`);
    },
  });
}
if (parts.has('browser')) {
  const { runBrowser, readSpeed, writeBrowser, nodeFigures } = await import('./browser/run.js');
  const sizes = (values.sizes ?? (smoke ? '2000' : '10000,100000')).split(',').map(Number);
  const queries = Number(values.queries ?? (smoke ? 20 : 200));
  const speed = await readSpeed(new URL('speed.json', dir));
  const name = values.out ?? (smoke ? 'browser-smoke' : 'browser');
  const base = { createdAt: new Date().toISOString(), commit: sourceCommit(), machine, start: os.loadavg()[0]! };
  await runBrowser({
    sizes,
    queries,
    port: Number(process.env['BENCH_PORT'] ?? 5183),
    log,
    onSize: async (done, chromium) => {
      await writeBrowser(dir, name, {
        createdAt: base.createdAt,
        commit: base.commit,
        machine: base.machine,
        chromium,
        settings: {
          sizes,
          queries,
          dim: 384,
          page: 'bench/browser/page.html built by `vite build` (the hybridmind plugin, models: false; the worker one bundle, transformers.js a chunk it never loads here) and served by `vite preview` with COOP/COEP, as an app ships',
          open: { store: 'bench-<n>, bench-<n>-default', model: false, multiTab: 'fail', ann: 'false (exact scan) at every size; past 20,000 also the default (HNSW M 16, efConstruction 100, efSearch 64), a store of its own, with onEvent to hear the worker\'s ann: log lines' },
          ingest: 'storeMany in batches of 1000 (id, text, embedding, createdAt; each batch\'s vectors copied, as the client transfers them), relateMany(DEPENDS_ON edges), then ready(): timed until every leg answers',
          recall: { k: 10, queryEmbedding: 'precomputed', explain: false, warmup: 10 },
          coldOpen: 'five times: page.reload(); timed in the page: a new worker connects to the persisted OPFS store (opfs-sahpool) and answers one hybrid recall (then, timed apart, the stats() a page shows next); "reload → answer" adds the page load, timed from Playwright; each figure is its median over the five; the worker\'s memory after cold open is measured after the fifth. "Empty store connect" (three new stores, each after a reload; median) is the fixed part: the worker\'s bundle, SQLite-WASM, the OPFS pool',
          memory: 'performance.measureUserAgentSpecificMemory() in the page (cross-origin isolated via COOP/COEP from vite preview, --enable-blink-features=ForceEagerMeasureMemory), the DedicatedWorkerGlobalScope entries: the worker\'s JS heap and the ArrayBuffers it holds, SQLite-WASM\'s memory included',
        },
        load: { start: base.start, end: os.loadavg()[0]! },
        sizes: done.map((s) => ({ ...s, node: nodeFigures(speed, s.n, s.ann) })),
      });
      log(`wrote bench/results/${name}.json, ${name}.md (sizes ${done.map((s) => s.n).join(', ')})`);
    },
  });
}
