/**
 * The lexical leg's latency tail at a store size: `node --import tsx bench/lexical/tail.ts [n] [passes]`.
 * The speed corpus's texts (its Zipf vocabulary, where a function word such as `from` is in a tenth
 * of the documents) go into one `Bm25Index` as a store adds them (a folded base and the lists added
 * since), then its 200 queries are asked for their best 100, as a hybrid recall asks the leg, pass
 * after pass. Printed: p50, p95 and max per pass after two warm-up passes (their medians over the
 * passes), and the slowest queries of the last pass with their terms and how many documents hold
 * any of them, since a common term is what makes a query slow.
 */
import { makeCorpus } from '../lib/corpus.js';
import { Bm25Index } from '../../src/legs/lexical/bm25-index.js';
import { queryTerms } from '../../src/legs/lexical/tokenizer.js';

const n = Number(process.argv[2] ?? 100_000);
const passes = Number(process.argv[3] ?? 12);
const WARMUP = 2;
const K = 100;

const { docs, queries } = makeCorpus(n, 8);
const index = new Bm25Index();
const t0 = performance.now();
docs.forEach((d, i) => index.add(i + 1, d.text));
console.log(`${n} texts added in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${queries.length} queries, k ${K}`);

const at = (sorted: number[], p: number) => sorted[Math.floor(p * (sorted.length - 1))]!;
const p50s: number[] = [];
const p95s: number[] = [];
let last: Array<{ ms: number; query: string }> = [];
for (let pass = 0; pass < passes; pass++) {
  last = queries.map((q) => {
    const t = performance.now();
    index.search(q.text, K);
    return { ms: performance.now() - t, query: q.text };
  });
  const sorted = last.map((r) => r.ms).sort((a, b) => a - b);
  if (pass < WARMUP) continue;
  p50s.push(at(sorted, 0.5));
  p95s.push(at(sorted, 0.95));
  console.log(`pass ${pass}: p50 ${at(sorted, 0.5).toFixed(3)} ms, p95 ${at(sorted, 0.95).toFixed(3)} ms, max ${at(sorted, 1).toFixed(2)} ms`);
}
const median = (xs: number[]) => at([...xs].sort((a, b) => a - b), 0.5);
console.log(`median over ${p50s.length} passes: p50 ${median(p50s).toFixed(3)} ms, p95 ${median(p95s).toFixed(3)} ms`);

console.log('slowest of the last pass (the terms the leg searches; documents holding any of them):');
for (const { ms, query } of last.sort((a, b) => b.ms - a.ms).slice(0, 8)) {
  console.log(`  ${ms.toFixed(2).padStart(7)} ms  ${JSON.stringify(query)}: ${queryTerms(query).join(' ')}; ${index.search(query, n).length} documents`);
}
