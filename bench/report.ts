import type { SizeResult } from './speed/run-speed.js';
import type { DatasetResult } from './quality/datasets.js';
import type { EmbeddingThroughput } from './quality/embedding.js';
import type { SuiteResult } from './quality/synthetic.js';
import type { Scores } from './quality/metrics.js';

export interface BenchResults {
  createdAt: string;
  smoke: boolean;
  machine: { cpu: string; cores: number; memoryGiB: number; platform: string; node: string; versions: Record<string, string> };
  heapMeasured: boolean;
  settings: { part: string; sizes: number[]; queries: number; hnswMax: number };
  speed?: SizeResult[];
  embedding?: EmbeddingThroughput;
  quality?: { embedderId: string | null; synthetic: SuiteResult; datasets: DatasetResult[] };
}

const ms = (x: number | null | undefined) => (x == null || Number.isNaN(x) ? '–' : x < 1 ? x.toFixed(3) : x < 100 ? x.toFixed(2) : x.toFixed(0));
const mb = (x: number | null | undefined) => (x == null ? '–' : (x / 2 ** 20).toFixed(1));
const num = (x: number | null | undefined, d = 3) => (x == null || Number.isNaN(x) ? '–' : x.toFixed(d));
const table = (head: string[], rows: string[][]) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

interface Target {
  name: string;
  goal: string;
  measured: number | null;
  pass: (x: number) => boolean;
  detail: string;
}

function find(size: SizeResult, name: string) {
  return size.peers.find((p) => p.name === name);
}

/** The project's speed and size targets, each as a measured ratio. */
export function targets(r: BenchResults): Target[] {
  const out: Target[] = [];
  for (const s of r.speed ?? []) {
    const ours = find(s, 'hybridmind hybrid (4 legs)')!;
    const orama = find(s, 'orama hybrid')!;
    const dense = find(s, 'hybridmind vector leg')!;
    const floor = find(s, 'exact scan wasm-simd (floor)')!;
    const at = `n=${s.n}`;
    out.push({ name: `hybrid p50 vs Orama hybrid (${at})`, goal: '≤ 0.10×', measured: ours.latency.median / orama.latency.median, pass: (x) => x <= 0.1, detail: `${ms(ours.latency.median)} vs ${ms(orama.latency.median)} ms` });
    out.push({ name: `dense leg p50 vs WASM-SIMD floor (${at})`, goal: '≤ 1.3×', measured: dense.latency.median / floor.latency.median, pass: (x) => x <= 1.3, detail: `${ms(dense.latency.median)} vs ${ms(floor.latency.median)} ms` });
    out.push({ name: `ingest rate vs Orama (${at})`, goal: '≥ 2×', measured: ours.ingestPerSec! / orama.ingestPerSec!, pass: (x) => x >= 2, detail: `${num(ours.ingestPerSec, 0)} vs ${num(orama.ingestPerSec, 0)} docs/s` });
    if (ours.retainedBytes != null && orama.retainedBytes != null) {
      out.push({ name: `retained memory vs Orama (${at})`, goal: '≤ 0.25×', measured: ours.retainedBytes / orama.retainedBytes, pass: (x) => x <= 0.25, detail: `${mb(ours.retainedBytes)} vs ${mb(orama.retainedBytes)} MiB` });
    }
    out.push({ name: `cold open vs full rebuild (${at})`, goal: '≤ 0.05×', measured: s.coldOpenMs / s.coldOpenRebuildMs, pass: (x) => x <= 0.05, detail: `${ms(s.coldOpenMs)} vs ${ms(s.coldOpenRebuildMs)} ms` });
  }
  if (r.embedding) {
    out.push({ name: `MiniLM batched vs one-by-one`, goal: '≥ 3×', measured: r.embedding.ratio, pass: (x) => x >= 3, detail: `${num(r.embedding.batchedPerSec, 0)} vs ${num(r.embedding.oneByOnePerSec, 0)} texts/s` });
  }
  return out;
}

function scoresTable(bySystem: Record<string, Scores>, metrics: string[]): string {
  return table(['system', ...metrics], Object.entries(bySystem).map(([name, s]) => [name, ...metrics.map((m) => num(s[m]))]));
}

/** Where fusion loses to a single leg: a finding worth reporting, not hiding. */
function losses(bySystem: Record<string, Scores>, metric: string, label: string): string[] {
  const hybrid = bySystem['hybrid rrf']?.[metric];
  if (hybrid === undefined) return [];
  return Object.entries(bySystem)
    .filter(([name, s]) => !name.startsWith('hybrid') && (s[metric] ?? 0) > hybrid + 1e-9)
    .map(([name, s]) => `- ${label}: **${name}** beats hybrid RRF on ${metric} (${num(s[metric])} vs ${num(hybrid)})`);
}

function chart(speed: SizeResult[]): string | null {
  if (speed.length < 1) return null;
  const names = speed[0]!.peers.map((p) => p.name);
  const W = 760, H = 420, L = 70, R = 250, T = 30, B = 50;
  const xs = speed.map((s) => s.n);
  const all = speed.flatMap((s) => s.peers.map((p) => p.latency.median)).filter((x) => x > 0);
  const [ymin, ymax] = [Math.min(...all) / 1.5, Math.max(...all) * 1.5];
  const [xmin, xmax] = [Math.min(...xs) / 1.5, Math.max(...xs) * 1.5];
  const x = (n: number) => L + ((Math.log10(n) - Math.log10(xmin)) / (Math.log10(xmax) - Math.log10(xmin))) * (W - L - R);
  const y = (v: number) => H - B - ((Math.log10(v) - Math.log10(ymin)) / (Math.log10(ymax) - Math.log10(ymin))) * (H - T - B);
  const colors = ['#d62728', '#ff7f0e', '#bcbd22', '#8c564b', '#1f77b4', '#17becf', '#9467bd', '#2ca02c', '#7f7f7f', '#e377c2', '#aec7e8', '#98df8a', '#c5b0d5', '#ffbb78', '#393b79'];
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`, `<rect width="${W}" height="${H}" fill="white"/>`, `<text x="${L}" y="18" font-size="13">Recall latency p50 (ms, log) against store size (log)</text>`];
  for (let e = Math.floor(Math.log10(ymin)); e <= Math.ceil(Math.log10(ymax)); e++) {
    const v = 10 ** e;
    if (v < ymin || v > ymax) continue;
    parts.push(`<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/><text x="${L - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`);
  }
  for (const n of xs) parts.push(`<text x="${x(n)}" y="${H - B + 16}" text-anchor="middle">${n.toLocaleString('en')}</text>`);
  names.forEach((name, i) => {
    const pts = speed.map((s) => [s.n, s.peers.find((p) => p.name === name)?.latency.median ?? NaN] as const).filter(([, v]) => v > 0);
    const c = colors[i % colors.length]!;
    const bold = name.startsWith('hybridmind') ? 3 : 1.5;
    parts.push(`<polyline fill="none" stroke="${c}" stroke-width="${bold}" points="${pts.map(([n, v]) => `${x(n)},${y(v)}`).join(' ')}"/>`);
    for (const [n, v] of pts) parts.push(`<circle cx="${x(n)}" cy="${y(v)}" r="3" fill="${c}"/>`);
    parts.push(`<rect x="${W - R + 10}" y="${T + i * 16}" width="10" height="10" fill="${c}"/><text x="${W - R + 24}" y="${T + i * 16 + 9}">${name}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

export function renderReport(r: BenchResults, svgName: string): { markdown: string; svg: string | null } {
  const lines: string[] = [`# HybridMind benchmark report${r.smoke ? ' (smoke run: sizes too small to mean anything)' : ''}`, ''];
  lines.push(`Run ${r.createdAt} on ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memoryGiB} GiB, ${r.machine.platform}, Node ${r.machine.node}.`);
  lines.push(`Versions: ${Object.entries(r.machine.versions).map(([p, v]) => `${p} ${v}`).join(', ')}.`);
  lines.push(`Settings: sizes ${r.settings.sizes.join(', ') || '–'}, ${r.settings.queries} queries per size, round-robin across peers in one process, k = 10, 384-d clustered synthetic vectors (the same precomputed vectors for every peer), hnswlib-wasm up to n = ${r.settings.hnswMax}.${r.heapMeasured ? '' : ' Heap not measured (run with node --expose-gc).'}`, '');
  const t = targets(r);
  if (t.length > 0) {
    lines.push('## Targets', '', table(['target', 'goal', 'measured', 'met', 'detail'], t.map((x) => [x.name, x.goal, x.measured == null ? '–' : `${num(x.measured, 3)}×`, x.measured == null ? '–' : x.pass(x.measured) ? 'yes' : '**no**', x.detail])), '');
  }
  for (const s of r.speed ?? []) {
    lines.push(`## Speed and size at n = ${s.n.toLocaleString('en')}`, '');
    lines.push(table(['system', 'p50 ms', 'p95 ms', 'build s', 'ingest docs/s', 'retained MiB', 'persisted MiB', 'recall@10 vs exact'], s.peers.map((p) => [p.name, ms(p.latency.median), ms(p.latency.p95), p.buildMs == null ? '' : (p.buildMs / 1000).toFixed(2), p.ingestPerSec == null ? '' : num(p.ingestPerSec, 0), p.retainedBytes == null ? '' : mb(p.retainedBytes), p.persistedBytes == null ? '' : mb(p.persistedBytes), p.recallAt10 == null ? '' : num(p.recallAt10)])));
    lines.push('', `Cold open (database bytes → indexes rebuilt → first answer): ${ms(s.coldOpenMs)} ms; full rebuild (ingest): ${ms(s.coldOpenRebuildMs)} ms.`, '');
  }
  if (r.speed?.length) lines.push(`![latency against store size](${svgName})`, '');
  if (r.embedding) {
    const e = r.embedding;
    lines.push('## Embedding throughput', '', `${e.embedderId}, ${e.texts} sentences: batched ${num(e.batchedPerSec, 0)} texts/s, one-by-one ${num(e.oneByOnePerSec, 0)} texts/s (${num(e.ratio, 2)}×).`, '');
  }
  if (r.quality) {
    const q = r.quality;
    lines.push('## Quality', '', `Embedder: ${q.embedderId ?? 'none (no vector leg)'}.`, '');
    lines.push(`### Synthetic suite (${q.synthetic.memories} memories, ${q.synthetic.cases} labelled cases, seeded)`, '');
    const categories = Object.keys(Object.values(q.synthetic.bySystem)[0] ?? {});
    for (const metric of ['recall@1', 'MRR', 'nDCG@10']) {
      lines.push(`${metric} per category:`, '', table(['system', ...categories], Object.entries(q.synthetic.bySystem).map(([name, cats]) => [name, ...categories.map((c) => num(cats[c]?.[metric]))])), '');
    }
    const findings = categories.flatMap((c) => losses(Object.fromEntries(Object.entries(q.synthetic.bySystem).map(([n, cats]) => [n, cats[c]!])), 'recall@1', `synthetic ${c}`));
    for (const d of q.datasets) {
      lines.push(`### ${d.name} (${d.docs} documents, ${d.queries} queries)`, '', scoresTable(d.bySystem, ['recall@2', 'recall@5', 'recall@10', 'all@5', 'all@10', 'MRR', 'nDCG@10']), '');
      findings.push(...losses(d.bySystem, 'recall@10', d.name), ...losses(d.bySystem, 'nDCG@10', d.name));
    }
    lines.push('### Where hybrid loses to a single leg', '', ...(findings.length ? findings : ['- nowhere in this run']), '');
  }
  return { markdown: lines.join('\n'), svg: r.speed?.length ? chart(r.speed) : null };
}
