import type { Embedder } from '../embedder/types.js';
import { modelConflict } from '../memory/model.js';
import type { SnapshotLimits } from '../snapshot/format.js';
import { openSnapshot } from '../snapshot/read.js';
import { writeSnapshot } from '../snapshot/write.js';
import { Repository, type EdgeRow, type MemoryRow } from '../storage/repository.js';
import type { Db, Query } from './db.js';
import { EDGE_COLUMNS, MEMORY_COLUMNS, parseVector, toEdgeRow, toMemoryRow } from './rows.js';
import { GENERATION, hnswIndexSql } from './schema.js';
import { insertMemories, writeVectors } from './writer.js';

const COPY_CHUNK = 2000;

/** Everything a memory holds, as the core's rows. */
export interface PgContent {
  memories: MemoryRow[];
  edges: EdgeRow[];
  vectors: Array<{ no: number; vector: Float32Array }>;
  dim: number | null;
  embedderId: string | null;
}

/** Reads the whole memory inside the caller's snapshot transaction, so every part describes one state. */
export async function readPgContent(q: Query, db: Db, dim: number | null): Promise<PgContent> {
  const meta = new Map((await q(`SELECT key, value FROM ${db.t('meta')}`)).rows.map((r) => [String(r['key']), String(r['value'])]));
  const memories = (await q(`SELECT ${MEMORY_COLUMNS} FROM ${db.t('memories')} ORDER BY no`)).rows.map(toMemoryRow);
  const edges = (await q(`SELECT ${EDGE_COLUMNS} FROM ${db.t('edges')} ORDER BY no`)).rows.map(toEdgeRow);
  const vectors = dim === null ? [] : (await q(`SELECT no, embedding::text AS e FROM ${db.t('vectors')} ORDER BY no`)).rows.map((r) => ({ no: Number(r['no']), vector: parseVector(r['e']) }));
  return { memories, edges, vectors, dim: meta.has('dim') ? Number(meta.get('dim')) : null, embedderId: meta.get('embedder_id') ?? null };
}

/**
 * A `.mind.zip` of a Postgres memory, written by the core's snapshot writer: the rows are copied,
 * numbers kept, into an in-memory SQLite database of the embedded schema, which is what the
 * format carries as its truth.
 */
export async function exportPgSnapshot(method: string, content: PgContent, createdAt: number): Promise<Uint8Array> {
  const { SqliteWasmDriver } = await import('../storage/sqlite-wasm.js');
  const repo = new Repository(await SqliteWasmDriver.open());
  try {
    repo.transaction(method, () => {
      if (content.dim !== null) repo.setMeta('dim', String(content.dim));
      if (content.embedderId !== null) repo.setMeta('embedder_id', content.embedderId);
      for (const m of content.memories) {
        repo.db.exec('INSERT INTO memories (no, id, text, kind, domain, metadata, created_at, valid_from, valid_to) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [m.no, m.id, m.text, m.kind, m.domain, m.metadata, m.created_at, m.valid_from, m.valid_to]);
      }
      for (const e of content.edges) {
        repo.db.exec(
          'INSERT INTO edges (no, id, src, dst, type, weight, metadata, valid_from, created_at, closes_valid_to, prior_valid_to) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          [e.no, e.id, e.src, e.dst, e.type, e.weight, e.metadata, e.valid_from, e.created_at, e.closes_valid_to, e.prior_valid_to],
        );
      }
      for (const v of content.vectors) repo.setVector(v.no, v.vector);
    });
    return await writeSnapshot(method, repo, createdAt);
  } finally {
    repo.db.close();
  }
}

/**
 * Opens and validates a `.mind.zip` with the core's reader (every check it makes) and returns
 * its rows. Nothing in Postgres is touched.
 */
export async function readSnapshotContent(method: string, bytes: unknown, embedder: Embedder | null, limits: SnapshotLimits | undefined): Promise<PgContent> {
  const { repository } = await openSnapshot(method, bytes, { embedder, limits });
  try {
    const dim = repository.getMeta('dim');
    return {
      memories: repository.allMemories(),
      edges: repository.allEdges(),
      vectors: repository.allVectors(),
      dim: dim === null ? null : Number(dim),
      embedderId: repository.getMeta('embedder_id'),
    };
  } finally {
    repository.db.close();
  }
}

/**
 * Replaces every row of the memory with `content`, numbers kept, inside the caller's
 * transaction (so a failure leaves the memory as it was), and moves the sequences past them.
 */
export async function replacePgContent(q: Query, db: Db, method: string, content: PgContent, now: number): Promise<void> {
  const storedDim = (await q(`SELECT value FROM ${db.t('meta')} WHERE key = 'dim'`)).rows[0]?.['value'];
  if (content.vectors.length > 0 && storedDim !== undefined) {
    const conflict = modelConflict(method, { holder: 'the store', dim: Number(storedDim), embedderId: null }, { dim: content.dim ?? undefined, dimFrom: "the snapshot's dim", embedder: null });
    if (conflict) throw conflict;
  }
  await q(`DELETE FROM ${db.t('edges')}`);
  await q(`DELETE FROM ${db.t('memories')}`);
  await q(`DELETE FROM ${db.t('entities')}`);
  await q(`DELETE FROM ${db.t('tombstones')}`);
  await q(`UPDATE ${db.t('lexical_stats')} SET docs = 0, terms = 0`);
  for (let i = 0; i < content.memories.length; i += COPY_CHUNK) await insertMemories(q, db, content.memories.slice(i, i + COPY_CHUNK), now);
  if (content.vectors.length > 0) {
    // pgvector builds an HNSW index far faster over loaded rows than row by row; the restore
    // holds the table's lock until it commits either way.
    await q(`DROP INDEX IF EXISTS "${db.schema}"."vectors_hnsw"`);
    for (let i = 0; i < content.vectors.length; i += COPY_CHUNK) await writeVectors(q, db, content.vectors.slice(i, i + COPY_CHUNK).map((v) => [v.no, v.vector] as const));
    await q(`SET LOCAL maintenance_work_mem = '256MB'`);
    await q(hnswIndexSql(db));
  }
  for (const e of content.edges) {
    await q(
      `INSERT INTO ${db.t('edges')} (no, id, src, dst, type, weight, metadata, valid_from, created_at, closes_valid_to, prior_valid_to, generation)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, ${GENERATION})`,
      [e.no, e.id, e.src, e.dst, e.type, e.weight, e.metadata, e.valid_from, e.created_at, e.closes_valid_to, e.prior_valid_to],
    );
  }
  for (const table of ['memories', 'edges']) {
    await q(`SELECT setval(pg_get_serial_sequence('${db.t(table)}', 'no'), greatest((SELECT max(no) FROM ${db.t(table)}), 0) + 1, false)`);
  }
  if (content.embedderId !== null) {
    await q(`INSERT INTO ${db.t('meta')} (key, value) VALUES ('embedder_id', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [content.embedderId]);
  }
}
