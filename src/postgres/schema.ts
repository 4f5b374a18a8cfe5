import { HybridMindError } from '../errors.js';
import { checkSchemaVersion } from '../storage/schema.js';
import type { Db, Query } from './db.js';
import { writeMentions } from './entities.js';

/** Rows per statement when a migration indexes existing memories. */
const BACKFILL_CHUNK = 2000;

/**
 * Versioned migrations of one memory's schema. Step i brings version i to i + 1; never edit a
 * released step, append one. `{s}` is replaced by the quoted schema name; a step that must derive
 * rows in the library (entity extraction is not SQL) is a function.
 */
const MIGRATIONS: ReadonlyArray<string | ((q: Query, db: Db) => Promise<void>)> = [
  `CREATE EXTENSION IF NOT EXISTS vector;
   CREATE TABLE {s}.memories (
     no bigserial PRIMARY KEY,
     id text NOT NULL UNIQUE,
     text text NOT NULL,
     kind text,
     domain text,
     -- The JSON text exactly as written (snapshots carry it byte for byte); jsonb for filters.
     metadata text NOT NULL DEFAULT '{}',
     meta jsonb GENERATED ALWAYS AS (metadata::jsonb) STORED,
     created_at bigint NOT NULL,
     valid_from bigint NOT NULL,
     valid_to bigint,
     -- Distinct lexical terms: the BM25 document length, as minisearch counts it.
     term_count integer NOT NULL,
     generation bigint NOT NULL,
     updated_at bigint NOT NULL
   );
   CREATE INDEX memories_generation ON {s}.memories (generation);
   CREATE INDEX memories_kind ON {s}.memories (kind);
   CREATE INDEX memories_domain ON {s}.memories (domain);
   CREATE INDEX memories_meta ON {s}.memories USING gin (meta jsonb_path_ops);
   CREATE TABLE {s}.postings (
     term text NOT NULL,
     no bigint NOT NULL REFERENCES {s}.memories (no) ON DELETE CASCADE,
     tf integer NOT NULL,
     PRIMARY KEY (term, no)
   );
   CREATE INDEX postings_no ON {s}.postings (no);
   CREATE TABLE {s}.lexical_stats (
     one boolean PRIMARY KEY DEFAULT true CHECK (one),
     docs bigint NOT NULL,
     terms bigint NOT NULL
   );
   INSERT INTO {s}.lexical_stats VALUES (true, 0, 0);
   CREATE TABLE {s}.edges (
     no bigserial PRIMARY KEY,
     id text NOT NULL UNIQUE,
     src bigint NOT NULL REFERENCES {s}.memories (no) ON DELETE CASCADE,
     dst bigint NOT NULL REFERENCES {s}.memories (no) ON DELETE CASCADE,
     type text NOT NULL,
     weight double precision NOT NULL,
     metadata text NOT NULL DEFAULT '{}',
     valid_from bigint NOT NULL,
     created_at bigint NOT NULL,
     closes_valid_to integer NOT NULL DEFAULT 0,
     prior_valid_to bigint,
     generation bigint NOT NULL,
     UNIQUE (src, dst, type)
   );
   CREATE INDEX edges_dst ON {s}.edges (dst);
   CREATE INDEX edges_generation ON {s}.edges (generation);
   -- Forgotten memories and removed edges, so a device syncing later learns of them.
   CREATE TABLE {s}.tombstones (
     kind text NOT NULL CHECK (kind IN ('memory', 'edge')),
     key text NOT NULL,
     generation bigint NOT NULL,
     PRIMARY KEY (kind, key)
   );
   CREATE INDEX tombstones_generation ON {s}.tombstones (generation);`,
  // The entity graph: the keys memories name and who names which (see entities.ts), indexed for
  // memories stored before this step too.
  async (q, db) => {
    const s = `"${db.schema}"`;
    await q(`CREATE TABLE ${s}.entities (id bigserial PRIMARY KEY, key text NOT NULL UNIQUE)`);
    await q(`CREATE TABLE ${s}.mentions (
      entity bigint NOT NULL REFERENCES ${s}.entities (id),
      no bigint NOT NULL REFERENCES ${s}.memories (no) ON DELETE CASCADE,
      -- Where the memory's text names it, and when it was indexed: the embedded index's orders.
      ord integer NOT NULL,
      seq bigserial NOT NULL,
      PRIMARY KEY (entity, no)
    )`);
    await q(`CREATE INDEX mentions_no ON ${s}.mentions (no, ord)`);
    for (let after = 0; ; ) {
      const rows = (await q(`SELECT no, text, metadata FROM ${s}.memories WHERE no > $1 ORDER BY no LIMIT ${BACKFILL_CHUNK}`, [after])).rows;
      if (rows.length === 0) break;
      await writeMentions(q, db, rows.map((r) => ({ no: Number(r['no']), text: String(r['text']), metadata: String(r['metadata']) })));
      after = Number(rows[rows.length - 1]!['no']);
    }
  },
];

export const PG_SCHEMA_VERSION = MIGRATIONS.length;

/**
 * A row's generation is the 64-bit id of the transaction that wrote it. Unlike a sequence value
 * it orders by commit visibility: every transaction below a snapshot's xmin has finished, so a
 * sync that resumes from that xmin cannot miss a write that was still in flight.
 */
export const GENERATION = 'pg_current_xact_id()::text::bigint';

/** The generation a reader may resume from: nothing older than it was still being written. */
export const SNAPSHOT_XMIN = 'pg_snapshot_xmin(pg_current_snapshot())::text::bigint';

/** One lock for every schema: `CREATE EXTENSION` is database-wide, so two memories must not race on it. */
const MIGRATION_LOCK = 'hybridmind:migrate';

/**
 * Brings the schema to the current version. Several processes may open the same memory at once:
 * a transaction-scoped advisory lock makes them take turns, and each
 * re-reads the version under the lock, so every step runs exactly once.
 */
export async function migrate(db: Db, method: string): Promise<void> {
  const s = `"${db.schema}"`;
  // A schema already current is only read, so memories open on a read-only hot standby too.
  const meta = (await db.query(method, 'SELECT to_regclass($1) IS NOT NULL AS present', [`${s}.meta`])).rows[0]!;
  if (meta['present'] === true) {
    const current = (await db.query(method, `SELECT value FROM ${s}.meta WHERE key = 'schema_version'`)).rows[0];
    if (current && Number(current['value']) === PG_SCHEMA_VERSION) return;
  }
  await db.transaction(method, async (q) => {
    await q('SELECT pg_advisory_xact_lock(hashtext($1))', [MIGRATION_LOCK]);
    await q(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await q(`CREATE TABLE IF NOT EXISTS ${s}.meta (key text PRIMARY KEY, value text NOT NULL)`);
    const row = (await q(`SELECT value FROM ${s}.meta WHERE key = 'schema_version'`)).rows[0];
    const from = row ? checkSchemaVersion(method, row['value'], `schema ${db.schema}`, { min: 0, supported: PG_SCHEMA_VERSION }) : 0;
    for (let v = from; v < PG_SCHEMA_VERSION; v++) {
      const step = MIGRATIONS[v]!;
      if (typeof step === 'string') await q(step.replaceAll('{s}', s));
      else await step(q, db);
    }
    await q(`INSERT INTO ${s}.meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [String(PG_SCHEMA_VERSION)]);
  });
}

/**
 * The vectors table is typed by its dimension (HNSW needs it), so it is created once the store
 * knows its dim, under the same lock as migrations.
 */
export async function ensureVectorTable(db: Db, method: string, dim: number): Promise<void> {
  const s = `"${db.schema}"`;
  await db.transaction(method, async (q) => {
    await q('SELECT pg_advisory_xact_lock(hashtext($1))', [MIGRATION_LOCK]);
    const stored = (await q(`SELECT value FROM ${s}.meta WHERE key = 'dim'`)).rows[0];
    if (stored) {
      if (Number(stored['value']) !== dim) throw new HybridMindError('DIMENSION_MISMATCH', method, `the store holds ${String(stored['value'])}-d vectors, received ${dim}-d`);
      return;
    }
    await q(`CREATE TABLE ${s}.vectors (
      no bigint PRIMARY KEY REFERENCES ${s}.memories (no) ON DELETE CASCADE,
      embedding vector(${dim}) NOT NULL
    )`);
    await q(hnswIndexSql(db));
    await q(`INSERT INTO ${s}.meta (key, value) VALUES ('dim', $1)`, [String(dim)]);
  });
}

/** The dense leg's index: pgvector HNSW over cosine distance, with pgvector's default m and ef_construction. */
export function hnswIndexSql(db: Db): string {
  return `CREATE INDEX vectors_hnsw ON ${db.t('vectors')} USING hnsw (embedding vector_cosine_ops)`;
}
