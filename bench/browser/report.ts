import { describeMachine, mib, ms, num, table } from '../lib/format.js';
import { summarize, type Summary } from '../lib/stats.js';
import type { SpeedReport } from '../speed/report.js';
import type { ColdOpenResult, IngestResult, WorkerMemory } from './page.js';

export interface NodeFigures {
  createdAt: string;
  commit: string;
  ingestPerSec: number;
  hybrid: { median: number; p95: number };
  coldOpenMs: number | null;
  memory: { rss: number; rssOverBaseline: number | null; heapUsed: number; external: number };
  load: [number, number];
}

type Measured = WorkerMemory | { error: string };

/**
 * One cold open: a page reload, a new worker connecting to the persisted store, its first answer.
 * With HNSW (`ann: 'default'`), `ann` is what the worker then did with the saved graph and how long
 * after the connect began it said so (untimed: the first answer does not wait for it).
 */
export type ColdOpenSample = Omit<ColdOpenResult, 'startedAtMs'> & { reloadToAnswerMs: number; ann?: { afterMs: number; message: string } | null };

/** How the dense leg was opened: `exact` is `ann: false` (the WASM-SIMD scan); `default` the library's default, HNSW past 20,000 vectors. */
export type BrowserAnn = 'exact' | 'default';

export interface BrowserSize {
  n: number;
  /** Absent in runs before the default configuration was measured: those were `exact`. */
  ann?: BrowserAnn;
  /** `default`: seconds from the end of ingest to the worker's "HNSW built" (the queries ran after it; null if it never came). */
  annBuiltS?: number | null;
  ingest: Omit<IngestResult, 'doneAtMs'> & { perSec: number };
  hybrid: Summary;
  /** Mean hits per hybrid answer (k = 10): a worker that answered nothing would look fast. */
  hitsPerQuery: number;
  /** Medians over `samples` (runs before those had one cold open and no samples), and of the empty-store connects. */
  coldOpen: Omit<ColdOpenSample, 'ann'> & { emptyOpenMs: number; samples?: ColdOpenSample[]; emptyOpenSamples?: number[] };
  memory: { afterIngest: Measured; afterQueries: Measured; afterColdOpen: Measured };
  /** RSS of the page's renderer process (page + workers, the largest renderer; `all`: every renderer's; until the page reloads, its heap may still hold the corpus it generated). */
  renderer: Record<'afterIngest' | 'afterQueries' | 'afterColdOpen', { bytes: number; all: number[] }>;
  /** 1-minute load average before and after this size ran. */
  load: [number, number];
  node?: NodeFigures | null;
}

export interface BrowserReport {
  createdAt: string;
  commit: string;
  machine: SpeedReport['machine'];
  chromium: { version: string; userAgent: string; executable: string; args: string[] } | null;
  settings: { sizes: number[]; queries: number; dim: number; page: string; open: Record<string, unknown>; ingest: string; recall: Record<string, unknown>; coldOpen: string; memory: string };
  load: { start: number; end: number };
  sizes: BrowserSize[];
}

/** Each figure's own median over the samples (the memory count is the store's, the same in every one). */
export function medians(samples: ColdOpenSample[]): Omit<ColdOpenSample, 'ann'> {
  const of = (pick: (c: ColdOpenSample) => number) => summarize(samples.map(pick)).median;
  return {
    connectMs: of((c) => c.connectMs),
    firstAnswerMs: of((c) => c.firstAnswerMs),
    totalMs: of((c) => c.totalMs),
    statsMs: of((c) => c.statsMs),
    reloadToAnswerMs: of((c) => c.reloadToAnswerMs),
    memories: samples[0]!.memories,
  };
}

const workerBytes = (m: Measured) => ('error' in m ? null : m.workerBytes);
const ANN_LABEL: Record<BrowserAnn, string> = { exact: 'exact scan (`ann: false`)', default: 'default (HNSW past 20,000)' };
const annOf = (s: BrowserSize): string => ANN_LABEL[s.ann ?? 'exact'];

export function renderBrowser(r: BrowserReport): string {
  const rows = r.sizes.flatMap((s) => {
    const node = s.node;
    return [
      [`${s.n.toLocaleString('en')}`, annOf(s), 'Chromium worker, OPFS', num(s.ingest.perSec, 0), ms(s.hybrid.median), ms(s.hybrid.p95), ms(s.coldOpen.totalMs), `${mib(workerBytes(s.memory.afterQueries))} worker JS, ${mib(s.renderer.afterQueries.bytes)} renderer RSS`, `${s.load[0].toFixed(2)} → ${s.load[1].toFixed(2)}`],
      [`${s.n.toLocaleString('en')}`, annOf(s), 'Node, own process (speed.json)', num(node?.ingestPerSec, 0), ms(node?.hybrid.median), ms(node?.hybrid.p95), ms(node?.coldOpenMs), node ? `${mib(node.memory.rss)} RSS, ${mib(node.memory.rssOverBaseline)} over baseline` : '–', node ? `${node.load[0].toFixed(2)} → ${node.load[1].toFixed(2)}` : '–'],
    ];
  });
  const detail = r.sizes.map((s) => [
    s.n.toLocaleString('en'),
    annOf(s),
    num(s.hitsPerQuery, 1),
    num(s.ingest.storeMs / 1000, 1), num(s.ingest.relateMs / 1000, 2), num(s.ingest.readyMs / 1000, 2),
    ms(s.coldOpen.connectMs), ms(s.coldOpen.firstAnswerMs), ms(s.coldOpen.statsMs), ms(s.coldOpen.reloadToAnswerMs), ms(s.coldOpen.emptyOpenMs),
    mib(workerBytes(s.memory.afterIngest)), mib(workerBytes(s.memory.afterColdOpen)),
    mib(s.renderer.afterQueries.bytes), mib(s.renderer.afterColdOpen.bytes),
  ]);
  const targets = r.sizes.map((s) => {
    const ratio = s.coldOpen.totalMs / s.ingest.ingestMs;
    const samples = s.coldOpen.samples?.map((c) => ms(c.totalMs)).join(', ') ?? ms(s.coldOpen.totalMs);
    return [s.n.toLocaleString('en'), annOf(s), ms(s.coldOpen.totalMs), ms(s.ingest.ingestMs), `${num(ratio, 3)}×`, ratio <= 0.05 ? 'yes' : '**no**', samples];
  });
  const hnsw = r.sizes.filter((s) => s.ann === 'default').flatMap((s) => [
    `- n=${s.n.toLocaleString('en')}: built ${s.annBuiltS == null ? 'never (within the wait)' : `${num(s.annBuiltS, 1)} s after ingest`}`,
    ...(s.coldOpen.samples ?? []).map((c, i) => `  - cold open ${i + 1}: first answer at ${ms(c.totalMs)} ms; ${c.ann ? `${ms(c.ann.afterMs)} ms: ${c.ann.message}` : 'no HNSW message'}`),
  ]);
  const errors = r.sizes.flatMap((s) => Object.entries(s.memory).filter(([, m]) => 'error' in m).map(([k, m]) => `- n=${s.n} ${k}: ${(m as { error: string }).error}`));
  const node = r.sizes.find((s) => s.node)?.node;
  return [
    '# HybridMind in the browser: the speed harness in a Chromium worker on OPFS',
    '',
    `${r.createdAt}, commit ${r.commit.slice(0, 12)}. Machine: ${describeMachine(r.machine)}.`,
    `Chromium: ${r.chromium?.version ?? '–'}, ${r.chromium?.userAgent ?? '–'} (${r.chromium?.executable ?? '–'}), args \`${r.chromium?.args.join(' ') ?? ''}\`.`,
    `Load (1-min average): ${r.load.start.toFixed(2)} at start, ${r.load.end.toFixed(2)} at end.`,
    node ? `Node figures: bench/results/speed.json, ${node.createdAt}, commit ${node.commit.slice(0, 12)} (systems \`hybridmind\`, the exact scan, and \`hybridmind (default ann)\`, both the in-memory store).` : 'Node figures: bench/results/speed.json not found or without these sizes.',
    '',
    '## Settings',
    '',
    `- corpus: bench/lib/corpus.ts \`makeCorpus(n, ${r.settings.dim})\` (the Node harness's generator and seed), generated inside the page; ${r.settings.queries} queries`,
    `- page: ${r.settings.page}`,
    `- open: \`${JSON.stringify(r.settings.open)}\``,
    `- ingest: ${r.settings.ingest}`,
    `- recall: \`${JSON.stringify(r.settings.recall)}\`, timed in the page (round trip to the worker included)`,
    `- cold open: ${r.settings.coldOpen}`,
    `- memory: ${r.settings.memory}`,
    '',
    '## Target (issue 14): cold open ≤ 0.05× a full rebuild',
    '',
    table(['n', 'dense leg', 'cold open ms (median)', 'full rebuild ms (this ingest)', 'ratio', 'met', 'every cold open, ms'], targets),
    '',
    '## Side by side',
    '',
    table(['n', 'dense leg', 'where', 'ingest docs/s', 'hybrid p50 ms', 'hybrid p95 ms', 'cold open ms', 'memory MiB', 'load'], rows),
    '',
    'Node\'s cold open reopens an exported database from bytes in memory; the browser\'s reopens the OPFS file a fresh worker finds after a page reload.',
    'Memory, browser: "worker JS" is measureUserAgentSpecificMemory\'s DedicatedWorkerGlobalScope bytes (JS heaps and the buffers they hold); "renderer RSS" is the page\'s renderer process (page, workers, WebAssembly memories, Blink and the renderer\'s own baseline). Node: the process\'s settled RSS (after build, idle time and GC; see the speed report), and that less a process that built nothing.',
    '',
    '## Browser detail',
    '',
    table(['n', 'dense leg', 'hits/query', 'storeMany s', 'relateMany s', 'ready s', 'connect ms', 'first answer ms', 'then stats() ms', 'reload → answer ms', 'empty store connect ms', 'worker MiB after ingest', 'worker MiB after cold open', 'renderer RSS MiB after queries', 'renderer RSS MiB after cold open'], detail),
    ...(hnsw.length ? ['', '## HNSW (the default configuration)', '', 'After ingest the queries waited for the worker\'s "HNSW built"; after each cold open (its first answer came from the int8 scan, which answers until HNSW is up), what the worker did with the saved graph, and when it said so, from the connect\'s start:', '', ...hnsw] : []),
    ...(errors.length ? ['', 'Memory not measured:', ...errors] : []),
    '',
  ].join('\n');
}
