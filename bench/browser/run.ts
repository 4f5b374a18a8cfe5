/**
 * The speed harness in Chromium: the memory worker on OPFS (opfs-sahpool), driven through
 * Playwright's library API against a production build of the bench page (`vite build`, served by
 * `vite preview`), as an app ships it: the dev server serves the worker as hundreds of separate
 * modules, which a cold open would pay for and no user does. Per size, in a fresh browser profile on
 * disk (an incognito context would keep OPFS in memory): ingest, hybrid p50/p95, the worker's
 * memory, then a reload and a cold open of the persisted store up to its first hybrid answer. Each
 * size runs with the exact scan (`ann: false`, the Node harness's `hybridmind`) and, past the ANN
 * threshold, again in a store of its own with the library's default, HNSW, as an app gets it.
 * Written to bench/results/browser.{json,md} beside the Node figures of bench/results/speed.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { build, preview } from 'vite';
import { hybridmind } from '../../src/vite/index.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../playwright.config.js';
import { makeCorpus } from '../lib/corpus.js';
import { summarize } from '../lib/stats.js';
import type { SpeedReport } from '../speed/report.js';
import type { ColdOpenResult, IngestResult, WorkerMemory } from './page.js';
import { medians, renderBrowser, type BrowserAnn, type BrowserReport, type BrowserSize, type ColdOpenSample, type NodeFigures } from './report.js';
import { ANN_THRESHOLD } from '../../src/legs/vector/ann-settings.js';

export interface BrowserOptions {
  sizes: number[];
  queries: number;
  port: number;
  log: (line: string) => void;
  /** Called with the results so far after each size, so a cut-short run still reports. */
  onSize: (done: BrowserSize[], chromium: BrowserReport['chromium']) => Promise<void>;
}

/** measureUserAgentSpecificMemory needs cross-origin isolation; the flag makes it answer at once instead of at the next GC. */
const ARGS = [...CHROMIUM_ARGS, '--enable-blink-features=ForceEagerMeasureMemory'];
/**
 * Cold opens per size, each a page reload and a new worker: a single one (~0.25 s at 100k) moved
 * by a tenth from one reload to the next on this shared two-core machine, so the median is quoted.
 */
const COLD_OPENS = 5;
/** New empty stores per size, for the fixed part of a cold open. */
const EMPTY_OPENS = 3;
/** How long the default configuration waits for HNSW to be built after ingest, or restored after a cold open. */
const ANN_WAIT_MS = 30 * 60_000;
/** The worker's log lines that end a build, and those that say what a reopen did with the saved graph. */
const BUILT = ['ann: HNSW built', 'ann: HNSW disabled'];
const REOPENED = ['ann: HNSW restored', 'ann: HNSW brought up to date', 'ann: saved HNSW', 'ann: rebuilding', 'ann: HNSW built', 'ann: HNSW disabled'];

const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

/** The Node harness's system and hybrid mode for each dense-leg configuration (bench/speed/systems.ts). */
const NODE_NAMES: Record<BrowserAnn, { system: string; mode: string }> = {
  exact: { system: 'hybridmind', mode: 'hybridmind hybrid (4 legs)' },
  default: { system: 'hybridmind (default ann)', mode: 'hybridmind hybrid (4 legs), HNSW' },
};

/** The Node harness's figures for the same system at size n, read from its results file. */
export function nodeFigures(speed: SpeedReport | null, n: number, ann: BrowserAnn = 'exact'): NodeFigures | null {
  const size = speed?.sizes.find((s) => s.n === n);
  const system = size?.systems.find((s) => s.name === NODE_NAMES[ann].system);
  const hybrid = size?.modes.find((m) => m.name === NODE_NAMES[ann].mode);
  if (!speed || !size || !system || !hybrid) return null;
  return {
    createdAt: speed.createdAt,
    commit: speed.commit,
    ingestPerSec: system.ingestPerSec,
    hybrid: { median: hybrid.latency.median, p95: hybrid.latency.p95 },
    coldOpenMs: system.coldOpenMs,
    memory: { rss: system.memory.rss, rssOverBaseline: system.memory.rssOverBaseline, heapUsed: system.memory.heapUsed, external: system.memory.external },
    load: system.load,
  };
}

/**
 * RSS of the page's renderer process in the Chromium started on `profile` (the page and its workers live
 * in one renderer): a check on measureUserAgentSpecificMemory, which counts JS heaps and buffers only.
 */
function rendererRss(profile: string): { bytes: number; all: number[] } {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,rss=,args='], { encoding: 'utf8' }).split('\n').map((line) => {
    const [pid, ppid, rss, ...args] = line.trim().split(/\s+/);
    return { pid: Number(pid), ppid: Number(ppid), rss: Number(rss) * 1024, args: args.join(' ') };
  });
  const family = new Set(rows.filter((r) => r.args.includes(`--user-data-dir=${profile}`) && !r.args.includes('--type=')).map((r) => r.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const r of rows) {
      if (family.has(r.ppid) && !family.has(r.pid)) {
        family.add(r.pid);
        grew = true;
      }
    }
  }
  const renderers = rows.filter((r) => family.has(r.pid) && r.args.includes('--type=renderer'));
  // Headless Chromium keeps spare renderers beside the page's; the page's (page + workers) is the largest.
  const all = renderers.map((r) => r.rss).sort((a, b) => b - a);
  return { bytes: all[0] ?? 0, all };
}

async function runSize(n: number, ann: BrowserAnn, o: BrowserOptions, url: string): Promise<{ size: BrowserSize; chromium: BrowserReport['chromium'] }> {
  const profile = await mkdtemp(join(os.tmpdir(), 'hybridmind-browser-bench-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true });
  const load: [number, number] = [os.loadavg()[0]!, 0];
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => o.log(`    page error: ${e.message}`));
    await page.goto(url);
    await page.waitForFunction(() => 'bench' in window);
    const userAgent = await page.evaluate(() => navigator.userAgent);
    const store = `bench-${n}${ann === 'default' ? '-default' : ''}`;

    o.log(`  n=${n}, ${ann}: ingest (load ${load[0].toFixed(2)})`);
    const { doneAtMs, ...ingest } = await page.evaluate(([count, name]) => window.bench.ingest(count, name), [n, store] as const) as IngestResult;
    o.log(`    ${(ingest.ingestMs / 1000).toFixed(1)} s, ${Math.round(n / (ingest.ingestMs / 1000))} docs/s`);
    let annBuiltS: number | null = null;
    if (ann === 'default') {
      const built = await page.evaluate(([prefixes, wait]) => window.bench.annSettled(prefixes, wait), [BUILT, ANN_WAIT_MS] as const);
      annBuiltS = built ? (built.atMs - doneAtMs) / 1000 : null;
      o.log(`    ${built ? `${built.message} (${annBuiltS!.toFixed(1)} s after ingest)` : 'no HNSW build message'}`);
    }
    const afterIngest = await page.evaluate(() => window.bench.memory()) as WorkerMemory | { error: string };
    const rendererAfterIngest = rendererRss(profile);
    const { latencyMs, ids } = await page.evaluate((count) => window.bench.queries(count), o.queries);
    o.log(`    hybrid p50 ${summarize(latencyMs).median.toFixed(2)} ms`);
    const afterQueries = await page.evaluate(() => window.bench.memory()) as WorkerMemory | { error: string };
    const rendererAfterQueries = rendererRss(profile);
    await page.evaluate(() => window.bench.close());

    const q = makeCorpus(n, 384).queries[0]!;
    const colds: ColdOpenSample[] = [];
    for (let i = 0; i < COLD_OPENS; i++) {
      if (i > 0) await page.evaluate(() => window.bench.close());
      const t0 = performance.now();
      await page.reload();
      await page.waitForFunction(() => 'bench' in window);
      const { startedAtMs, ...cold } = await page.evaluate(([name, query]) => window.bench.coldOpen(name, query), [store, { text: q.text, vector: [...q.vector] }] as const) as ColdOpenResult;
      const reloadToAnswerMs = performance.now() - t0;
      // Untimed: the next reload waits until the worker is done with the saved graph.
      const reopened = ann === 'default' ? await page.evaluate(([prefixes, wait]) => window.bench.annSettled(prefixes, wait), [REOPENED, ANN_WAIT_MS] as const) : null;
      colds.push({ ...cold, reloadToAnswerMs, ...(ann === 'default' ? { ann: reopened && { afterMs: reopened.atMs - startedAtMs, message: reopened.message } } : {}) });
      o.log(`    cold open ${cold.totalMs.toFixed(0)} ms (reload → answer ${reloadToAnswerMs.toFixed(0)} ms), ${cold.memories} memories${reopened ? `; ${(reopened.atMs - startedAtMs).toFixed(0)} ms: ${reopened.message}` : ''}`);
    }
    const afterColdOpen = await page.evaluate(() => window.bench.memory()) as WorkerMemory | { error: string };
    const rendererAfterColdOpen = rendererRss(profile);
    await page.evaluate(() => window.bench.close());
    const empties: number[] = [];
    for (let i = 0; i < EMPTY_OPENS; i++) {
      await page.reload();
      await page.waitForFunction(() => 'bench' in window);
      empties.push(await page.evaluate((name) => window.bench.emptyOpen(name), `${store}-empty-${i}`));
    }
    load[1] = os.loadavg()[0]!;
    return {
      chromium: { version: execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(), userAgent, executable: CHROMIUM, args: ARGS },
      size: {
        n,
        ann,
        ...(ann === 'default' ? { annBuiltS } : {}),
        ingest: { ...ingest, perSec: n / (ingest.ingestMs / 1000) },
        hybrid: summarize(latencyMs),
        hitsPerQuery: ids.reduce((sum, hits) => sum + hits.length, 0) / ids.length,
        coldOpen: { ...medians(colds), emptyOpenMs: summarize(empties).median, samples: colds, emptyOpenSamples: empties },
        memory: { afterIngest, afterQueries, afterColdOpen },
        renderer: { afterIngest: rendererAfterIngest, afterQueries: rendererAfterQueries, afterColdOpen: rendererAfterColdOpen },
        load,
      },
    };
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}

export async function runBrowser(o: BrowserOptions): Promise<BrowserSize[]> {
  const root = new URL('../../', import.meta.url).pathname;
  const outDir = await mkdtemp(join(os.tmpdir(), 'hybridmind-browser-build-'));
  // The page opens with `model: false`, so the build carries no model files; the plugin patches hnswlib as in an app.
  const config = { root, configFile: false as const, logLevel: 'error' as const, appType: 'mpa' as const, plugins: hybridmind({ models: false }), worker: { format: 'es' as const, plugins: () => hybridmind({ models: false }) } };
  await build({ ...config, build: { outDir, emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 4000, rollupOptions: { input: { bench: join(root, 'bench/browser/page.html') } } } });
  const server = await preview({ ...config, build: { outDir }, preview: { port: o.port, strictPort: true, headers: ISOLATION } });
  const out: BrowserSize[] = [];
  try {
    for (const n of o.sizes) {
      // Up to the threshold the default is the exact scan: the same store twice.
      for (const ann of n > ANN_THRESHOLD ? (['exact', 'default'] as const) : (['exact'] as const)) {
        const { size, chromium: browser } = await runSize(n, ann, o, `http://localhost:${o.port}/bench/browser/page.html${ann === 'default' ? '?ann=default' : ''}`);
        out.push(size);
        await o.onSize(out, browser);
      }
    }
  } finally {
    await new Promise<void>((resolve) => server.httpServer.close(() => resolve()));
    await rm(outDir, { recursive: true, force: true });
  }
  return out;
}

export async function readSpeed(path: URL): Promise<SpeedReport | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as SpeedReport;
  } catch {
    return null;
  }
}

export async function writeBrowser(dir: URL, name: string, report: BrowserReport): Promise<void> {
  await writeFile(new URL(`${name}.json`, dir), JSON.stringify(report, null, 2));
  await writeFile(new URL(`${name}.md`, dir), renderBrowser(report));
}
