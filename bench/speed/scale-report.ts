import { describeMachine, mib, ms, num, table } from '../lib/format.js';
import { SETTLE_MS } from './memory-reading.js';
import type { SpeedReport } from './report.js';
import type { ScaleSize } from './run-scale.js';

export interface ScaleReport {
  createdAt: string;
  commit: string;
  machine: SpeedReport['machine'];
  settings: { sizes: number[]; queries: number; dim: number; readyMinutes: number | null };
  /** 1-minute load average when the run started and ended. */
  load: { start: number; end: number };
  sizes: ScaleSize[];
}

const LEGS = ['hybrid (4 legs)', 'vector leg', 'lexical leg', 'graph leg'];
/** Mode names carry the variant (", file store"; ", HNSW" in runs before it had its own); the tables name the leg only. */
const leg = (name: string) => name.replace(/^hybridmind /, '').replace(/, (?:HNSW|file store)$/, '');
const p50 = (s: ScaleSize, name: string) => s.modes.find((m) => leg(m.name) === name)?.latency.median ?? null;

/** Growth of `a` to `b` per tenfold of the store: (b/a)^(1 / log10(nb/na)), so sizes need not be a decade apart. */
function perDecade(a: number | null, b: number | null, na: number, nb: number): number | null {
  if (a === null || b === null || a <= 0) return null;
  return (b / a) ** (1 / Math.log10(nb / na));
}

function growthRows(r: ScaleReport): string[][] {
  const rows: string[][] = [];
  for (let i = 1; i < r.sizes.length; i++) {
    const [a, b] = [r.sizes[i - 1]!, r.sizes[i]!];
    for (const name of LEGS) {
      const g = perDecade(p50(a, name), p50(b, name), a.n, b.n);
      rows.push([`${a.n.toLocaleString('en')} → ${b.n.toLocaleString('en')}`, name, ms(p50(a, name)), ms(p50(b, name)), g === null ? '–' : `${num(g, 2)}×`, name === LEGS[0] ? (g === null ? '–' : g <= 3 ? 'yes' : '**no**') : '']);
    }
  }
  return rows;
}

export function renderScale(r: ScaleReport): string {
  const m = r.machine;
  const config = r.sizes[0]?.system.config;
  const lines = [
    '# HybridMind scale run',
    '',
    `Run ${r.createdAt} (commit ${r.commit}) on ${describeMachine(m)}, Node ${m.node}.`,
    `Versions: ${Object.entries(m.versions).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
    `Settings: sizes ${r.settings.sizes.join(', ')}; ${r.settings.queries} queries per size; k = 10; ${r.settings.dim}-d clustered synthetic vectors (the speed benchmark's corpus, query set and edges); queries wait for HNSW ${r.settings.readyMinutes === null ? 'however long it takes' : `at most ${r.settings.readyMinutes} min from the start of ingest`}.`,
    '',
    `Load average (1 min): ${r.load.start.toFixed(2)} at the start, ${r.load.end.toFixed(2)} at the end, and per size below. The machine (2 cores) was shared with other work, so absolute times carry that noise.`,
    '',
    `Method: HybridMind alone, opened with its defaults on the Node file store (better-sqlite3): the int8 scan with an exact f32 re-rank, and HNSW built in the background once the store holds 20,000 vectors. Each size runs in its own Node process (\`bench/speed/child.ts\`, the speed benchmark's child): the corpus is generated, ingested (timed until every leg answers), then the queries wait for the background HNSW build ("indexes ready" counts from the start of ingest). Memory is the process's RSS, heap and external settled: after the corpus was dropped, ${SETTLE_MS / 1000} s idle and two full GCs (the speed benchmark's reading; see its report). The four modes run query by query in turn, each through its own seeded order, the whole set once untimed (a warm-up pass, since 2026-12-05) and then measured. Recall@10 is against an exact float64 top 10 computed in the parent process, outside the system. Cold open: after the queries the store is closed (which saves its derived indexes and HNSW graph), then opened again from its file and asked one hybrid query; that time is set against the ingest that built the store (the full rebuild a reopen without saved indexes would redo).`,
    '',
    '## Growth of p50 per tenfold of the store (issue 14: hybrid ≤ 3× per decade)',
    '',
    table(['sizes', 'mode', 'p50 ms before', 'p50 ms after', 'growth per decade', 'goal met'], growthRows(r)),
    '',
    '## Build and memory',
    '',
    table(['n', 'ingest s', 'ingest docs/s', 'indexes ready s', 'RSS MiB', 'heap MiB', 'external MiB', 'array buffers MiB', 'on disk MiB', 'load before → after'], r.sizes.map((s) => [
      s.n.toLocaleString('en'),
      num(s.system.buildMs / 1000, 1),
      num(s.system.ingestPerSec, 0),
      s.system.readyMs === null ? '' : num(s.system.readyMs / 1000, 1),
      mib(s.system.memory.rss),
      mib(s.system.memory.heapUsed),
      mib(s.system.memory.external),
      mib(s.system.memory.arrayBuffers),
      mib(s.system.persistedBytes),
      `${s.system.load[0].toFixed(2)} → ${s.system.load[1].toFixed(2)}`,
    ])),
    '',
    '## Cold open of the file store (issue 14: ≤ 0.05× a full rebuild)',
    '',
    table(['n', 'cold open ms (open + first hybrid answer)', 'full rebuild ms (ingest)', 'ratio', 'goal met'], r.sizes.map((s) => {
      const ratio = s.system.coldOpenMs === null ? null : s.system.coldOpenMs / s.system.buildMs;
      return [s.n.toLocaleString('en'), ms(s.system.coldOpenMs), ms(s.system.buildMs), ratio === null ? '–' : `${num(ratio, 3)}×`, ratio === null ? '–' : ratio <= 0.05 ? 'yes' : '**no**'];
    })),
    '',
    '## Latency',
    '',
    table(['n', 'mode', 'p50 ms', 'p95 ms', 'p95 / p50', 'mean ms', 'recall@10 vs exact'], r.sizes.flatMap((s) => s.modes.map((x) => [
      s.n.toLocaleString('en'),
      leg(x.name),
      ms(x.latency.median),
      ms(x.latency.p95),
      `${num(x.latency.p95 / x.latency.median, 2)}×`,
      ms(x.latency.mean),
      x.recallAt10 === null ? '' : num(x.recallAt10),
    ]))),
    '',
    '## What the store logged about HNSW',
    '',
    ...r.sizes.map((s) => `- n = ${s.n.toLocaleString('en')}: ${s.notes.length === 0 ? 'nothing (below the 20,000-vector threshold the exact scan answers)' : s.notes.join('; ')}`),
    '',
    '## Configuration',
    '',
    `- **${r.sizes[0]?.system.name ?? 'hybridmind'}**: \`${JSON.stringify(config ?? {})}\``,
    '',
  ];
  return lines.join('\n');
}
