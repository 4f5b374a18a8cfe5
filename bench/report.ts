import type { DatasetResult } from './quality/datasets.js';
import type { EmbeddingThroughput } from './quality/embedding.js';
import type { SuiteResult } from './quality/synthetic.js';
import type { Scores } from './quality/metrics.js';
import { num, table } from './lib/format.js';

export interface BenchResults {
  createdAt: string;
  smoke: boolean;
  machine: { cpu: string; cores: number; memoryGiB: number; platform: string; node: string; versions: Record<string, string> };
  settings: { part: string };
  embedding?: EmbeddingThroughput;
  quality?: { embedderId: string | null; synthetic: SuiteResult; datasets: DatasetResult[] };
}


interface Target {
  name: string;
  goal: string;
  measured: number | null;
  pass: (x: number) => boolean;
  detail: string;
}

/** The project's quality-side targets, each as a measured ratio (speed targets: bench/results/speed.md). */
export function targets(r: BenchResults): Target[] {
  const out: Target[] = [];
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

export function renderReport(r: BenchResults): string {
  const lines: string[] = [`# HybridMind benchmark report${r.smoke ? ' (smoke run: sizes too small to mean anything)' : ''}`, ''];
  lines.push(`Run ${r.createdAt} on ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memoryGiB} GiB, ${r.machine.platform}, Node ${r.machine.node}.`);
  lines.push(`Versions: ${Object.entries(r.machine.versions).map(([p, v]) => `${p} ${v}`).join(', ')}.`);
  lines.push(`Parts: ${r.settings.part}. Speed is reported separately in speed.md.`, '');
  const t = targets(r);
  if (t.length > 0) {
    lines.push('## Targets', '', table(['target', 'goal', 'measured', 'met', 'detail'], t.map((x) => [x.name, x.goal, x.measured == null ? '–' : `${num(x.measured, 3)}×`, x.measured == null ? '–' : x.pass(x.measured) ? 'yes' : '**no**', x.detail])), '');
  }
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
  return lines.join('\n');
}
