import pg from 'pg';
import { HybridMemory, type Embedder, type RecallOptions } from '../../src/index.js';
import { queryTerms, tokenize } from '../../src/legs/lexical/tokenizer.js';
import { PostgresMemory } from '../../src/postgres/index.js';
import { cachedVectors } from '../quality/datasets.js';
import { cachedEmbeddings } from '../quality/vector-cache.js';
import { recallAt } from '../quality/metrics.js';
import { systemsFor } from '../quality/systems.js';
import type { RetrievalSet } from '../lib/datasets.js';

/** One dataset: one or more stores (LoCoMo has one per conversation), scored together. */
export interface PgDataset {
  name: string;
  sets: RetrievalSet[];
}

export interface PgQualityRow {
  dataset: string;
  system: string;
  embedded: number;
  postgres: number;
}

/**
 * How close each Postgres lexical ranking is to the embedded BM25 leg: recall@10, and the share
 * of the embedded leg's top 10 it also returns in its top 10.
 */
export interface LexicalCloseness {
  dataset: string;
  embedded: number;
  bm25Sql: { recall: number; overlap: number };
  fullText: { recall: number; overlap: number };
}

export interface PgQualityResult {
  datasets: Array<{ name: string; docs: number; queries: number }>;
  rows: PgQualityRow[];
  lexical: LexicalCloseness[];
}

type Connection = { host: string; port: number; user: string; database: string };

const K = 10;

/**
 * Recall@10 of every leg and fusion on the embedded store and on Postgres holding the same
 * memories: the embedded store (plain, and with automatic edges) is built as the quality
 * benchmark builds it, exported as `.mind.zip` and imported into Postgres, then both answer the
 * same queries with the same query vectors and the same options (the defaults included).
 */
export async function runPostgresQuality(o: { connection: Connection; schema: (p: string) => string; embedder: Embedder; datasets: PgDataset[]; log: (s: string) => void; limit?: number }): Promise<PgQualityResult> {
  const systems = systemsFor(true);
  const result: PgQualityResult = { datasets: [], rows: [], lexical: [] };
  const admin = new pg.Pool({ ...o.connection, max: 2 });
  try {
    for (const dataset of o.datasets) {
      const sums = new Map<string, { embedded: number; postgres: number }>();
      const closeness = { embedded: 0, bm25: 0, fts: 0, bm25Overlap: 0, ftsOverlap: 0 };
      let queries = 0;
      let docs = 0;
      for (const set of dataset.sets) {
        o.log(`postgres quality: ${set.name}: ${set.docs.length} docs, ${set.queries.length} queries`);
        const vectors = await cachedVectors(set, o.embedder, o.log);
        const open = async (autoEdges: boolean) => {
          const mem = await HybridMemory.open({ embedder: o.embedder, autoEdges });
          await mem.storeMany(set.docs.map((d, i) => ({ id: d.id, text: d.text, embedding: vectors[i]!, ...(d.createdAt === undefined ? {} : { createdAt: d.createdAt }), ...(d.metadata ? { metadata: d.metadata } : {}) })));
          await mem.ready();
          const schema = o.schema('quality');
          const pgMem = await PostgresMemory.importSnapshot(await mem.exportSnapshot(), { connection: o.connection, schema, embedder: o.embedder });
          return { mem, pg: pgMem, schema };
        };
        const plain = await open(false);
        // Only systems that ask for automatic edges need a second store built with them.
        const auto = systems.some((s) => s.autoEdges) ? await open(true) : plain;
        const list = set.queries.slice(0, o.limit ?? set.queries.length);
        const queryVectors = await cachedEmbeddings(list.map((q) => q.text), o.embedder, o.log);
        await buildFullText(admin, plain.schema);
        for (const [i, q] of list.entries()) {
          const relevant = new Set(q.relevant);
          const extra: RecallOptions = { queryEmbedding: queryVectors[i]!, k: K, explain: false };
          for (const system of systems) {
            const stores = system.autoEdges ? auto : plain;
            const a = (await stores.mem.recall(q.text, { ...system.options, ...extra })).map((h) => h.id);
            const b = (await stores.pg.recall(q.text, { ...system.options, ...extra })).map((h) => h.id);
            const s = sums.get(system.name) ?? { embedded: 0, postgres: 0 };
            s.embedded += recallAt(a, relevant, K);
            s.postgres += recallAt(b, relevant, K);
            sums.set(system.name, s);
          }
          const lexical = (await plain.mem.recall(q.text, { ...extra, mode: 'lexical' })).map((h) => h.id);
          const bm25 = (await plain.pg.recall(q.text, { ...extra, mode: 'lexical' })).map((h) => h.id);
          const fts = await fullTextTop(admin, plain.schema, q.text);
          closeness.embedded += recallAt(lexical, relevant, K);
          closeness.bm25 += recallAt(bm25, relevant, K);
          closeness.fts += recallAt(fts, relevant, K);
          closeness.bm25Overlap += overlap(lexical, bm25);
          closeness.ftsOverlap += overlap(lexical, fts);
        }
        queries += list.length;
        docs += set.docs.length;
        for (const s of new Set([plain, auto])) {
          await s.mem.close();
          await s.pg.close();
        }
      }
      result.datasets.push({ name: dataset.name, docs, queries });
      for (const [system, s] of sums) result.rows.push({ dataset: dataset.name, system, embedded: s.embedded / queries, postgres: s.postgres / queries });
      result.lexical.push({
        dataset: dataset.name,
        embedded: closeness.embedded / queries,
        bm25Sql: { recall: closeness.bm25 / queries, overlap: closeness.bm25Overlap / queries },
        fullText: { recall: closeness.fts / queries, overlap: closeness.ftsOverlap / queries },
      });
    }
  } finally {
    await admin.end();
  }
  return result;
}

function overlap(reference: readonly string[], other: readonly string[]): number {
  if (reference.length === 0) return other.length === 0 ? 1 : 0;
  const set = new Set(other);
  return reference.filter((id) => set.has(id)).length / reference.length;
}

/** A tsvector / tsquery literal element: quoted, with quotes and backslashes escaped. */
const lexeme = (term: string) => `'${term.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/**
 * The alternative the issue asks to measure: PostgreSQL full-text search over the same
 * identifier-aware tokens (stored with their positions as a tsvector, GIN-indexed), ranked by
 * ts_rank with length normalisation.
 */
async function buildFullText(pool: pg.Pool, schema: string): Promise<void> {
  const rows = (await pool.query(`SELECT no, text FROM "${schema}".memories`)).rows as Array<{ no: string; text: string }>;
  await pool.query(`CREATE TABLE "${schema}".fts (no bigint PRIMARY KEY, tsv tsvector NOT NULL)`);
  for (let i = 0; i < rows.length; i += 1000) {
    const chunk = rows.slice(i, i + 1000);
    const tsv = chunk.map((r) => tokenize(r.text).slice(0, 16000).map((t, p) => `${lexeme(t)}:${p + 1}`).join(' '));
    await pool.query(`INSERT INTO "${schema}".fts SELECT * FROM unnest($1::bigint[], $2::tsvector[])`, [chunk.map((r) => r.no), tsv]);
  }
  await pool.query(`CREATE INDEX ON "${schema}".fts USING gin (tsv)`);
}

async function fullTextTop(pool: pg.Pool, schema: string, query: string): Promise<string[]> {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  const rows = (await pool.query(
    `SELECT m.id FROM "${schema}".fts f JOIN "${schema}".memories m ON m.no = f.no, CAST($1 AS tsquery) q
     WHERE f.tsv @@ q ORDER BY ts_rank(f.tsv, q, 1) DESC, f.no LIMIT ${K}`,
    [terms.map(lexeme).join(' | ')],
  )).rows as Array<{ id: string }>;
  return rows.map((r) => r.id);
}
