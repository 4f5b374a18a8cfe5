import type { DatasetResult } from './quality/datasets.js';
import type { EmbeddingThroughput } from './quality/embedding.js';
import type { SuiteResult } from './quality/synthetic.js';
import type { Scores } from './quality/metrics.js';
import { describeMachine, num, table } from './lib/format.js';
import type { Machine } from './lib/machine.js';

export interface BenchResults {
  createdAt: string;
  smoke: boolean;
  machine: Machine;
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

const DEFAULT_HYBRID = 'hybrid (default)';
const SINGLE_LEGS = ['vector', 'lexical', 'graph'];

/** Where fusion loses to a single leg: a finding worth reporting, not hiding. */
function losses(bySystem: Record<string, Scores>, metric: string, label: string): string[] {
  const hybrid = bySystem[DEFAULT_HYBRID]?.[metric];
  if (hybrid === undefined) return [];
  return Object.entries(bySystem)
    .filter(([name, s]) => SINGLE_LEGS.includes(name) && (s[metric] ?? 0) > hybrid + 1e-9)
    .map(([name, s]) => `- ${label}: **${name}** beats the default hybrid on ${metric} (${num(s[metric])} vs ${num(hybrid)})`);
}

/** Issue 13's rule: the default hybrid ≥ best single leg + 0.02 overall, ≥ best − 0.01 in every category. */
function fusionRule(d: DatasetResult): string[] {
  return Object.entries(d.byGroup).map(([group, bySystem]) => {
    const margin = group === 'overall' ? 0.02 : -0.01;
    const legs = SINGLE_LEGS.filter((n) => bySystem[n]).map((n) => [n, bySystem[n]!['recall@10']!] as const);
    const [bestName, best] = legs.reduce((a, b) => (b[1] > a[1] ? b : a), ['none', 0] as readonly [string, number]);
    const hybrid = bySystem[DEFAULT_HYBRID]?.['recall@10'] ?? Number.NaN;
    const met = hybrid >= best + margin - 1e-9;
    return `| ${d.name} ${group} | ${num(hybrid)} | ${bestName} ${num(best)} | ${margin >= 0 ? '+' : '−'}${Math.abs(margin).toFixed(2)} | ${met ? 'yes' : '**no**'} |`;
  });
}

export function renderReport(r: BenchResults): string {
  const lines: string[] = [`# HybridMind benchmark report${r.smoke ? ' (smoke run: sizes too small to mean anything)' : ''}`, ''];
  lines.push(`Run ${r.createdAt} on ${describeMachine(r.machine)}, Node ${r.machine.node}.`);
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
    const rule: string[] = [];
    for (const d of q.datasets) {
      lines.push(`### ${d.name} (${d.docs} documents, ${d.queries} queries)`, '');
      for (const [group, bySystem] of Object.entries(d.byGroup)) {
        const n = Object.values(bySystem)[0]?.queries ?? 0;
        if (Object.keys(d.byGroup).length > 1) lines.push(`${group} (${n} questions):`, '');
        lines.push(scoresTable(bySystem, ['recall@10', 'all@10', 'nDCG@10', 'MRR', 'ms p50', 'ms p95']), '');
        findings.push(...losses(bySystem, 'recall@10', `${d.name} ${group}`), ...losses(bySystem, 'nDCG@10', `${d.name} ${group}`));
      }
      rule.push(...fusionRule(d));
    }
    if (rule.length > 0) {
      lines.push('### Fusion against its best single leg (recall@10)', '', '| set | default hybrid | best single leg | required margin | met |', '|---|---|---|---|---|', ...rule, '');
    }
    lines.push('### Where hybrid loses to a single leg', '', ...(findings.length ? findings : ['- nowhere in this run']), '');
  }
  return lines.join('\n');
}
