import type { PgBenchResults } from './run.js';

const n = (x: number | null | undefined, d = 3) => (x == null || Number.isNaN(x) ? '–' : x.toFixed(d));
const table = (head: string[], rows: string[][]) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

/** Within this much recall@10 the Postgres engine counts as giving the same answers. */
export const SAME_ANSWERS = 0.02;

export function renderPostgres(r: PgBenchResults): string {
  const m = r.machine;
  const out = [
    `# hybridmind/postgres benchmark${r.smoke ? ' (smoke)' : ''}`,
    '',
    `${r.createdAt} — ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}. PostgreSQL 15 + pgvector 0.8.1 on a throwaway local cluster (unix socket, fsync off).`,
  ];
  if (r.quality) {
    out.push('', '## Same answers: recall@10, embedded store vs Postgres', '', `Each dataset is stored in the embedded store, exported as .mind.zip and imported into Postgres; both answer the same queries with the same query vectors. Target: |Δ| ≤ ${SAME_ANSWERS}.`, '');
    out.push(table(['dataset', 'docs', 'queries'], r.quality.datasets.map((d) => [d.name, String(d.docs), String(d.queries)])), '');
    out.push(table(['dataset', 'system', 'embedded', 'postgres', 'Δ', 'within 0.02'], r.quality.rows.map((row) => {
      const delta = row.postgres - row.embedded;
      return [row.dataset, row.system, n(row.embedded), n(row.postgres), n(delta), Math.abs(delta) <= SAME_ANSWERS ? 'yes' : '**no**'];
    })));
    out.push('', '### Lexical leg in Postgres: BM25 in SQL vs full-text search', '', 'Both over the same identifier-aware tokens. Overlap: share of the embedded BM25 top 10 the Postgres ranking also has in its top 10.', '');
    out.push(table(['dataset', 'embedded BM25 recall@10', 'BM25 in SQL recall@10', 'BM25 in SQL overlap', 'ts_rank recall@10', 'ts_rank overlap'], r.quality.lexical.map((l) => [l.dataset, n(l.embedded), n(l.bm25Sql.recall), n(l.bm25Sql.overlap), n(l.fullText.recall), n(l.fullText.overlap)])));
  }
  if (r.speed) {
    out.push('', '## Speed: the embedded store and Postgres side by side', '', `Speed corpus (bench/lib/corpus.ts), 384-d vectors given, ${r.settings.queries} hybrid queries with their vectors; ${r.speed[0]?.engines[0]?.concurrent.clients ?? 32} concurrent clients for ${r.settings.seconds} s, each storing 5-memory batches and recalling twice per round.`, '');
    const rows: string[][] = [];
    for (const s of r.speed) {
      for (const e of s.engines) {
        rows.push([String(s.size), e.engine, e.config, n(e.ingestPerSecond, 0), n(e.hybridMs.median, 2), n(e.hybridMs.p95, 2), n(e.concurrent.writesPerSecond, 0), n(e.concurrent.recallsPerSecond, 0), String(e.concurrent.lostWrites), e.concurrent.halfBatches === null ? 'n/a' : String(e.concurrent.halfBatches)]);
      }
      const [embedded, pg] = s.engines;
      if (embedded && pg) rows.push([String(s.size), '**ratio postgres / embedded**', '', n(pg.ingestPerSecond / embedded.ingestPerSecond, 2), n(pg.hybridMs.median / embedded.hybridMs.median, 2), n(pg.hybridMs.p95 / embedded.hybridMs.p95, 2), n(pg.concurrent.writesPerSecond / embedded.concurrent.writesPerSecond, 2), n(pg.concurrent.recallsPerSecond / embedded.concurrent.recallsPerSecond, 2), '', '']);
    }
    out.push(table(['memories', 'engine', 'config', 'ingest /s', 'hybrid p50 ms', 'hybrid p95 ms', 'concurrent writes /s', 'concurrent recalls /s', 'lost writes', 'half batches seen'], rows));
    const loads = r.speed.filter((s) => s.load).map((s) => `${s.size}: ${n(s.load.start, 2)} → ${n(s.load.end, 2)}`);
    if (loads.length > 0) out.push('', `1-minute load average on this ${m.cores}-core machine (start → end of each size): ${loads.join('; ')}.`);
  }
  return `${out.join('\n')}\n`;
}
