import type { Embedder } from '../embedder/types.js';
import { HybridMindError, notFound, messageOf } from '../errors.js';
import { newId } from '../ids.js';
import { applyPatch, duplicateId, prepareBatch, type PreparedMemory } from '../memory/rows.js';
import { checkId, normalizedVector } from '../memory/validate.js';
import { closingTime } from '../memory/writer.js';
import { checkEdgeSpec, checkEdgeSpecs, type EdgeSpec } from '../memory/edge-spec.js';
import type { EdgeRow, MemoryRow, NewMemory } from '../storage/repository.js';
import { EDGE_TYPES } from '../types.js';
import type { Db, Query } from './db.js';
import { writeMentions } from './entities.js';
import { GENERATION } from './schema.js';
import { EDGE_COLUMNS, MEMORY_COLUMNS, postingsOf, toEdgeRow, toMemoryRow, vectorLiteral } from './rows.js';

/** Rows per INSERT statement inside one batch: bounds the size of each statement's parameters. */
const CHUNK = 2000;
/** Texts per embedder call. */
const EMBED_BATCH = 64;

/** An edge as the caller names it, checked, before its ends are looked up. */
export interface EdgeDraft extends EdgeSpec {
  id: string;
  createdAt: number;
}

/** The key of an edge across stores (edge ids differ between them; the triple does not). */
export function edgeKey(fromId: string, toId: string, type: string): string {
  return JSON.stringify([fromId, toId, type]);
}

/**
 * Every write of the Postgres engine: arguments checked first (the core's validators), vectors
 * computed before the transaction, then one transaction per call. Each changed row takes a new
 * `generation` (the writing transaction's id), and removals leave tombstones: what sync reads.
 */
export class PgWriter {
  readonly #db: Db;
  readonly #embedder: Embedder | null;
  readonly #now: () => number;
  readonly #dim: () => number | null;
  readonly #ensureDim: (method: string, dim: number) => Promise<void>;

  constructor(db: Db, embedder: Embedder | null, now: () => number, dim: () => number | null, ensureDim: (method: string, dim: number) => Promise<void>) {
    this.#db = db;
    this.#embedder = embedder;
    this.#now = now;
    this.#dim = dim;
    this.#ensureDim = ensureDim;
  }

  async store(method: string, inputs: unknown[], name: string, onProgress?: (p: { done: number; total: number }) => void): Promise<string[]> {
    const now = this.#now();
    const { prepared, dim } = prepareBatch(method, name, inputs, now, this.#dim());
    await this.#embedMissing(method, prepared, dim);
    const first = prepared.find((p) => p.vector)?.vector;
    if (first) await this.#ensureDim(method, first.length);
    const ids = await this.#db.transaction(method, async (q) => {
      for (let i = 0; i < prepared.length; i += CHUNK) {
        const batch = prepared.slice(i, i + CHUNK);
        const inserted = await insertMemories(q, this.#db, batch.map((p) => p.row), now);
        if (inserted.size < batch.length) throw duplicateId(method, batch.find((p) => !inserted.has(p.row.id))!.row.id);
        await writeVectors(q, this.#db, batch.flatMap((p) => (p.vector ? [[inserted.get(p.row.id)!, p.vector] as const] : [])));
        onProgress?.({ done: Math.min(i + CHUNK, prepared.length), total: prepared.length });
      }
      return prepared.map((p) => p.row.id);
    });
    return ids;
  }

  async #embedMissing(method: string, prepared: PreparedMemory[], dim: number | null): Promise<void> {
    const embedder = this.#embedder;
    if (!embedder) return;
    const missing = prepared.filter((p) => !p.vector);
    for (let i = 0; i < missing.length; i += EMBED_BATCH) {
      const batch = missing.slice(i, i + EMBED_BATCH);
      const vectors = await embed(method, embedder, batch.map((p) => p.row.text));
      batch.forEach((p, j) => (p.vector = normalizedVector(method, "the embedder's vector", vectors[j], dim ?? embedder.dim)));
    }
  }

  /** Checks one edge spec; its ends are resolved inside the write transaction. */
  draftEdge(method: string, fromId: unknown, toId: unknown, type: unknown, options: unknown): EdgeDraft {
    return this.#draft(checkEdgeSpec(method, fromId, toId, type, options));
  }

  draftEdges(method: string, edges: unknown): EdgeDraft[] {
    return checkEdgeSpecs(method, edges).map((spec) => this.#draft(spec));
  }

  #draft(spec: EdgeSpec): EdgeDraft {
    return { id: newId(), ...spec, createdAt: this.#now() };
  }

  async relate(method: string, drafts: EdgeDraft[]): Promise<string[]> {
    return this.#db.transaction(method, (q) => insertEdges(q, this.#db, method, drafts, this.#now()));
  }

  async unrelate(edgeId: unknown): Promise<void> {
    const method = 'unrelate';
    const id = checkId(method, 'edgeId', edgeId);
    await this.#db.transaction(method, async (q) => {
      const edge = (await q(`SELECT ${EDGE_COLUMNS} FROM ${this.#db.t('edges')} WHERE id = $1 FOR UPDATE`, [id])).rows[0];
      if (!edge) throw notFound(method, 'edge', id);
      await dropEdges(q, this.#db, [toEdgeRow(edge)], this.#now());
    });
  }

  async update(id: unknown, patch: unknown): Promise<void> {
    const method = 'update';
    const checked = checkId(method, 'id', id);
    const now = this.#now();
    await this.#db.transaction(method, async (q) => {
      const found = (await q(`SELECT ${MEMORY_COLUMNS} FROM ${this.#db.t('memories')} WHERE id = $1 FOR UPDATE`, [checked])).rows[0];
      if (!found) throw notFound(method, 'memory', checked);
      const before = toMemoryRow(found);
      const { row, vector } = applyPatch(method, before, patch, this.#dim());
      const textChanged = row.text !== before.text;
      let next = vector;
      if (!next && textChanged && this.#embedder) next = normalizedVector(method, "the embedder's vector", (await embed(method, this.#embedder, [row.text]))[0], this.#dim() ?? this.#embedder.dim);
      if (next) await this.#ensureDim(method, next.length);
      await updateMemory(q, this.#db, row, textChanged ? before.text : null, now);
      if (next) await writeVectors(q, this.#db, [[row.no, next]]);
      else if (textChanged && this.#dim() !== null) await q(`DELETE FROM ${this.#db.t('vectors')} WHERE no = $1`, [row.no]);
    });
  }

  async forget(id: unknown): Promise<void> {
    const method = 'forget';
    const checked = checkId(method, 'id', id);
    await this.#db.transaction(method, async (q) => {
      const found = (await q(`SELECT ${MEMORY_COLUMNS} FROM ${this.#db.t('memories')} WHERE id = $1 FOR UPDATE`, [checked])).rows[0];
      if (!found) throw notFound(method, 'memory', checked);
      await forgetMemory(q, this.#db, toMemoryRow(found), this.#now());
    });
  }
}

async function embed(method: string, embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
  try {
    return await embedder.embed(texts);
  } catch (cause) {
    throw new HybridMindError('EMBEDDER', method, `embedding failed: ${messageOf(cause)}`, { cause });
  }
}

/**
 * Inserts memories (with their postings and the lexical statistics) and returns id → number for
 * those inserted; an id that exists already is skipped, so the caller can tell a conflict.
 * `rows` carrying `no` keep it (imports), the others take the sequence's next.
 */
export async function insertMemories(q: Query, db: Db, rows: ReadonlyArray<NewMemory & { no?: number | undefined }>, now: number): Promise<Map<string, number>> {
  if (rows.length === 0) return new Map();
  const lexical = rows.map((r) => postingsOf(r.text));
  const col = <K extends keyof NewMemory>(k: K) => rows.map((r) => r[k]);
  const result = await q(
    `INSERT INTO ${db.t('memories')} (no, id, text, kind, domain, metadata, created_at, valid_from, valid_to, term_count, generation, updated_at)
     SELECT coalesce(u.no, nextval(pg_get_serial_sequence('${db.t('memories')}', 'no'))), u.id, u.text, u.kind, u.domain, u.metadata, u.created_at, u.valid_from, u.valid_to, u.term_count, ${GENERATION}, $11
     FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[], $10::int[])
       AS u(no, id, text, kind, domain, metadata, created_at, valid_from, valid_to, term_count)
     ON CONFLICT (id) DO NOTHING RETURNING id, no`,
    [rows.map((r) => r.no ?? null), col('id'), col('text'), col('kind'), col('domain'), col('metadata'), col('created_at'), col('valid_from'), col('valid_to'), lexical.map((l) => l.distinct), now],
  );
  const inserted = new Map(result.rows.map((r) => [String(r['id']), Number(r['no'])]));
  const terms: string[] = [];
  const nos: number[] = [];
  const tfs: number[] = [];
  rows.forEach((r, i) => {
    const no = inserted.get(r.id);
    if (no === undefined) return;
    const l = lexical[i]!;
    for (let j = 0; j < l.terms.length; j++) {
      terms.push(l.terms[j]!);
      nos.push(no);
      tfs.push(l.tfs[j]!);
    }
  });
  await q(`INSERT INTO ${db.t('postings')} (term, no, tf) SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[])`, [terms, nos, tfs]);
  const added = rows.filter((r) => inserted.has(r.id));
  await writeMentions(q, db, added.map((r) => ({ no: inserted.get(r.id)!, text: r.text, metadata: r.metadata })));
  await q(`UPDATE ${db.t('lexical_stats')} SET docs = docs + $1, terms = terms + $2`, [added.length, lexical.filter((_, i) => inserted.has(rows[i]!.id)).reduce((sum, l) => sum + l.distinct, 0)]);
  await q(`DELETE FROM ${db.t('tombstones')} WHERE kind = 'memory' AND key = ANY($1)`, [added.map((r) => r.id)]);
  return inserted;
}

/**
 * Rewrites a memory's fields; `previousText` (when the text changed) re-indexes its postings. Its
 * entities are indexed afresh on every update, as the embedded store does: a conversation turn's
 * links follow its metadata.
 */
export async function updateMemory(q: Query, db: Db, row: MemoryRow, previousText: string | null, now: number): Promise<void> {
  const lexical = previousText === null ? null : postingsOf(row.text);
  await q(
    `UPDATE ${db.t('memories')} SET text = $2, kind = $3, domain = $4, metadata = $5, valid_from = $6, valid_to = $7,
       term_count = coalesce($8, term_count), generation = ${GENERATION}, updated_at = $9 WHERE no = $1`,
    [row.no, row.text, row.kind, row.domain, row.metadata, row.valid_from, row.valid_to, lexical?.distinct ?? null, now],
  );
  await writeMentions(q, db, [row]);
  if (!lexical || previousText === null) return;
  const before = postingsOf(previousText);
  await q(`DELETE FROM ${db.t('postings')} WHERE no = $1`, [row.no]);
  await q(`INSERT INTO ${db.t('postings')} (term, no, tf) SELECT t, $1, f FROM unnest($2::text[], $3::int[]) AS u(t, f)`, [row.no, lexical.terms, lexical.tfs]);
  await q(`UPDATE ${db.t('lexical_stats')} SET terms = terms + $1`, [lexical.distinct - before.distinct]);
}

export async function writeVectors(q: Query, db: Db, vectors: ReadonlyArray<readonly [number, Float32Array]>): Promise<void> {
  if (vectors.length === 0) return;
  await q(
    `INSERT INTO ${db.t('vectors')} (no, embedding) SELECT no, e::vector FROM unnest($1::bigint[], $2::text[]) AS u(no, e)
     ON CONFLICT (no) DO UPDATE SET embedding = excluded.embedding`,
    [vectors.map(([no]) => no), vectors.map(([, v]) => vectorLiteral(v))],
  );
}

/** Removes a memory with its edges (reopening what they closed), postings and vector; leaves a tombstone. */
export async function forgetMemory(q: Query, db: Db, row: MemoryRow, now: number): Promise<void> {
  const edges = (await q(`SELECT ${EDGE_COLUMNS} FROM ${db.t('edges')} WHERE src = $1 OR dst = $1 ORDER BY no FOR UPDATE`, [row.no])).rows.map(toEdgeRow);
  await dropEdges(q, db, edges, now, false);
  await q(`DELETE FROM ${db.t('memories')} WHERE no = $1`, [row.no]);
  await q(`UPDATE ${db.t('lexical_stats')} SET docs = docs - 1, terms = terms - $1`, [postingsOf(row.text).distinct]);
  await tombstone(q, db, 'memory', row.id);
}

async function tombstone(q: Query, db: Db, kind: 'memory' | 'edge', key: string): Promise<void> {
  await q(
    `INSERT INTO ${db.t('tombstones')} (kind, key, generation) VALUES ($1, $2, ${GENERATION})
     ON CONFLICT (kind, key) DO UPDATE SET generation = excluded.generation`,
    [kind, key],
  );
}

async function memoriesByNo(q: Query, db: Db, nos: readonly number[]): Promise<Map<number, MemoryRow>> {
  const rows = (await q(`SELECT ${MEMORY_COLUMNS} FROM ${db.t('memories')} WHERE no = ANY($1)`, [nos])).rows.map(toMemoryRow);
  return new Map(rows.map((r) => [r.no, r]));
}

async function setValidTo(q: Query, db: Db, no: number, validTo: number | null, now: number): Promise<void> {
  await q(`UPDATE ${db.t('memories')} SET valid_to = $2, generation = ${GENERATION}, updated_at = $3 WHERE no = $1`, [no, validTo, now]);
}

/**
 * Inserts checked edges. A SUPERSEDES edge closes the older fact when the newer one became true
 * (unless it had already ended), keeping the prior end on the edge so removing it can reopen it.
 */
export async function insertEdges(q: Query, db: Db, method: string, drafts: readonly EdgeDraft[], now: number): Promise<string[]> {
  const ids = [...new Set(drafts.flatMap((d) => [d.fromId, d.toId]))];
  const found = (await q(`SELECT no, id FROM ${db.t('memories')} WHERE id = ANY($1) ORDER BY no FOR UPDATE`, [ids])).rows;
  const noOf = new Map(found.map((r) => [String(r['id']), Number(r['no'])]));
  for (const d of drafts) {
    for (const [name, id] of [['fromId', d.fromId], ['toId', d.toId]] as const) if (!noOf.has(id)) throw notFound(method, `memory (${name})`, id);
  }
  const out: string[] = [];
  for (const d of drafts) {
    const src = noOf.get(d.fromId)!;
    const dst = noOf.get(d.toId)!;
    const rows = await memoriesByNo(q, db, [src, dst]);
    const newer = rows.get(src)!;
    const older = rows.get(dst)!;
    const edge: Omit<EdgeRow, 'no'> = {
      id: d.id, src, dst, type: d.type, weight: d.weight, metadata: d.metadata, valid_from: d.validFrom ?? newer.valid_from,
      created_at: d.createdAt, closes_valid_to: 0, prior_valid_to: null,
    };
    if (edge.type === EDGE_TYPES.SUPERSEDES && (older.valid_to === null || older.valid_to > newer.valid_from)) {
      edge.closes_valid_to = 1;
      edge.prior_valid_to = older.valid_to;
      await setValidTo(q, db, dst, closingTime(newer, older), now);
    }
    const inserted = await q(
      `INSERT INTO ${db.t('edges')} (id, src, dst, type, weight, metadata, valid_from, created_at, closes_valid_to, prior_valid_to, generation)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, ${GENERATION}) ON CONFLICT (src, dst, type) DO NOTHING RETURNING id`,
      [edge.id, edge.src, edge.dst, edge.type, edge.weight, edge.metadata, edge.valid_from, edge.created_at, edge.closes_valid_to, edge.prior_valid_to],
    );
    if (inserted.rows.length === 0) throw new HybridMindError('CONFLICT', method, `a ${d.type} edge from ${JSON.stringify(d.fromId)} to ${JSON.stringify(d.toId)} already exists`);
    await q(`DELETE FROM ${db.t('tombstones')} WHERE kind = 'edge' AND key = $1`, [edgeKey(d.fromId, d.toId, d.type)]);
    out.push(edge.id);
  }
  return out;
}

/**
 * Removes edges; a supersession's removal reopens the older fact unless its validity was edited
 * since. `tombstones`: false when the edges go with a forgotten memory (its tombstone says it all).
 */
export async function dropEdges(q: Query, db: Db, edges: readonly EdgeRow[], now: number, tombstones = true): Promise<void> {
  for (const edge of edges) {
    await q(`DELETE FROM ${db.t('edges')} WHERE no = $1`, [edge.no]);
    const rows = await memoriesByNo(q, db, [edge.src, edge.dst]);
    const source = rows.get(edge.src);
    const target = rows.get(edge.dst);
    if (edge.closes_valid_to && source && target && target.valid_to !== null && target.valid_to === closingTime(source, target)) {
      await setValidTo(q, db, edge.dst, edge.prior_valid_to, now);
    }
    if (tombstones && source && target) await tombstone(q, db, 'edge', edgeKey(source.id, target.id, edge.type));
  }
}
