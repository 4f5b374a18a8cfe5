import { buildContext, checkCitations, contextOptions, type CitationEvidence, type CitationReport, type Context, type ContextOptions } from '../agent/context.js';
import { defaultEmbedder } from '../embedder/default.js';
import type { Embedder } from '../embedder/types.js';
import { HybridMindError, invalid, notFound, messageOf } from '../errors.js';
import { statusAt } from '../legs/time/temporal.js';
import { DIRECTIONS } from '../legs/types.js';
import { defaultLogger, type Logger } from '../logger.js';
import { resolveDefaults, resolveRecall, type ResolvedDefaults, type ResolvedRecall } from '../memory/recall-options.js';
import { modelConflict } from '../memory/model.js';
import { toEdge, toRecord } from '../memory/rows.js';
import { checkList, type ListOptions, type MemoryPage } from '../memory/listing.js';
import { walkOptions } from '../memory/traversal.js';
import { checkId, checkIntInRange, checkOneOf, checkOptions, checkQuery, checkStoreMany, isEmbedder, keysOf, normalizedVector } from '../memory/validate.js';
import type { HybridMemory } from '../hybrid-memory.js';
import type { SnapshotLimits } from '../snapshot/format.js';
import type {
  CompareResult, Direction, Edge, Hit, MemoryInput, MemoryPatch, MemoryRecord, RecallDefaults, RecallOptions, RecallReport,
  RelateOptions, Stats, TraceOptions, TraceResult,
} from '../types.js';
import { Db, type Query } from './db.js';
import { labelSql, Params, walk } from './legs.js';
import { bfsPath } from './path.js';
import { loadPg, type PgPool } from './pg.js';
import { pgRecall } from './recall.js';
import { EDGE_COLUMNS, MEMORY_COLUMNS, toEdgeRow, toMemoryRow } from './rows.js';
import { ensureVectorTable, migrate, PG_SCHEMA_VERSION } from './schema.js';
import { exportPgSnapshot, readPgContent, readSnapshotContent, replacePgContent } from './snapshot.js';
import { checkSyncTarget, syncDevice, type SyncCursor, type SyncReport } from './sync.js';
import { Rescorer } from './rescore.js';
import { PgWriter } from './writer.js';

/** Options of `PostgresMemory.open`. */
export interface PostgresOpenOptions {
  /** A connection string or node-postgres pool config (the memory owns and closes that pool), or a pool you own. */
  connection: string | Record<string, unknown> | { pool: PgPool };
  /** The schema holding this memory's tables (several memories can share a database). Default `hybridmind`. */
  schema?: string | undefined;
  /** As in `HybridMemory.open`: omitted, all-MiniLM-L6-v2; `null`, no dense leg unless vectors are given. */
  embedder?: Embedder | null | undefined;
  now?: (() => number) | undefined;
  logger?: Logger | undefined;
  recall?: RecallDefaults | undefined;
  /** pgvector HNSW search breadth (`hnsw.ef_search`); default 100. */
  efSearch?: number | undefined;
}

const OPEN_KEYS = keysOf<PostgresOpenOptions>({ connection: true, schema: true, embedder: true, now: true, logger: true, recall: true, efSearch: true });
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The same memory as `HybridMemory`, on PostgreSQL + pgvector: for a store shared by many agents
 * or processes, larger than a device should hold, or run with the replication and backups an
 * operator already has. Same API, same coded errors, same answers: the dense leg runs in pgvector
 * (HNSW, cosine), BM25 in SQL over the same tokens, the graph as recursive queries, time in SQL,
 * and the core's own fusion ranks the result. Writes are one transaction each and embed first,
 * so a stored memory is searchable by every leg when `store` returns.
 *
 * @example
 * import { PostgresMemory } from 'hybridmind/postgres';
 * const mem = await PostgresMemory.open({ connection: process.env.DATABASE_URL!, schema: 'team' });
 * await mem.store({ id: 'adr-007', text: 'ADR-007: SQLite-WASM on OPFS is the source of truth' });
 * const hits = await mem.recall('where does memory live?');
 */
export class PostgresMemory {
  readonly #db: Db;
  readonly #embedder: Embedder | null;
  readonly #now: () => number;
  readonly #defaults: ResolvedDefaults;
  readonly #efSearch: number;
  readonly #writer: PgWriter;
  readonly #rescorer = new Rescorer();
  #dim: number | null;
  #closed = false;

  private constructor(db: Db, embedder: Embedder | null, now: () => number, defaults: ResolvedDefaults, efSearch: number, dim: number | null) {
    this.#db = db;
    this.#embedder = embedder;
    this.#now = now;
    this.#defaults = defaults;
    this.#efSearch = efSearch;
    this.#dim = dim;
    this.#writer = new PgWriter(db, embedder, now, () => this.#dim, (method, d) => this.#ensureDim(method, d));
  }

  /** Connects, creates or migrates the schema (safe from several processes at once) and checks the model. */
  static async open(options: PostgresOpenOptions): Promise<PostgresMemory> {
    const method = 'PostgresMemory.open';
    const o = checkOptions(method, 'options', options, OPEN_KEYS) as PostgresOpenOptions;
    const schema = o.schema ?? 'hybridmind';
    if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) throw invalid(method, 'options.schema must be a lower-case SQL identifier (letters, digits, _; at most 63)', schema);
    if (o.embedder != null && !isEmbedder(o.embedder)) {
      throw invalid(method, 'options.embedder must be an Embedder ({ id, dim, embed }) or null', o.embedder);
    }
    if (o.now !== undefined && typeof o.now !== 'function') throw invalid(method, 'options.now must be a function returning epoch ms', o.now);
    const efSearch = checkIntInRange(method, 'options.efSearch', o.efSearch ?? 100, 1, 1000);
    const defaults = resolveDefaults(method, o.recall);
    const db = await connect(method, o.connection, schema);
    try {
      await migrate(db, method);
      const embedder = o.embedder === undefined ? await defaultEmbedder(o.logger ?? defaultLogger, false) : o.embedder;
      const dim = await reconcile(db, method, embedder);
      return new PostgresMemory(db, embedder, o.now ?? Date.now, defaults, efSearch, dim);
    } catch (error) {
      await db.close();
      throw error;
    }
  }

  /**
   * A new Postgres memory filled from a `.mind.zip` (from a browser, Node or another Postgres
   * memory), validated completely first by the core's reader. The schema must be empty
   * (`restoreSnapshot` replaces a filled one).
   *
   * @example
   * const pg = await PostgresMemory.importSnapshot(await local.exportSnapshot(), { connection, schema: 'team' });
   */
  static async importSnapshot(bytes: Uint8Array, options: PostgresOpenOptions & { limits?: SnapshotLimits | undefined }): Promise<PostgresMemory> {
    const method = 'PostgresMemory.importSnapshot';
    const { limits, ...rest } = checkOptions(method, 'options', options, [...OPEN_KEYS, 'limits']) as PostgresOpenOptions & { limits?: SnapshotLimits };
    const mem = await PostgresMemory.open(rest);
    try {
      await mem.#replace(method, bytes, limits, true);
      return mem;
    } catch (error) {
      await mem.close();
      throw error;
    }
  }

  /** Replaces this memory's whole content with a `.mind.zip`'s in one transaction; on any failure nothing changes. */
  async restoreSnapshot(bytes: Uint8Array, options: { limits?: SnapshotLimits | undefined } = {}): Promise<void> {
    const method = 'restoreSnapshot';
    this.#open(method);
    const o = checkOptions(method, 'options', options, ['limits']);
    await this.#replace(method, bytes, o.limits as SnapshotLimits | undefined, false);
  }

  async #replace(method: string, bytes: Uint8Array, limits: SnapshotLimits | undefined, mustBeEmpty: boolean): Promise<void> {
    const content = await readSnapshotContent(method, bytes, this.#embedder, limits);
    if (content.dim !== null && content.vectors.length > 0) await this.#ensureDim(method, content.dim);
    await this.#db.transaction(method, async (q) => {
      if (mustBeEmpty && (await q(`SELECT 1 FROM ${this.#db.t('memories')} LIMIT 1`)).rows.length > 0) {
        throw new HybridMindError('CONFLICT', method, `schema ${this.#db.schema} already holds memories; use restoreSnapshot() to replace them`);
      }
      await replacePgContent(q, this.#db, method, content, this.#now());
    });
  }

  /** The memory as a `.mind.zip`, read in one snapshot transaction; `HybridMemory.importSnapshot` opens it anywhere. */
  async exportSnapshot(): Promise<Uint8Array> {
    const method = 'exportSnapshot';
    this.#open(method);
    const content = await this.#db.transaction(method, (q) => readPgContent(q, this.#db, this.#dim), 'read');
    return exportPgSnapshot(method, content, this.#now());
  }

  /** Stores one memory in one transaction, embedded first: every leg sees it when this resolves. */
  async store(input: MemoryInput): Promise<string> {
    this.#open('store');
    return (await this.#writer.store('store', [input], 'input'))[0]!;
  }

  /** Stores many memories in one transaction: all or nothing. */
  async storeMany(inputs: MemoryInput[], options: { onProgress?: ((p: { done: number; total: number }) => void) | undefined } = {}): Promise<string[]> {
    this.#open('storeMany');
    const checked = checkStoreMany(inputs, options);
    return this.#writer.store('storeMany', checked.inputs as MemoryInput[], 'inputs', checked.onProgress);
  }

  /** Adds a typed, directed edge. `relate(newer, older, 'SUPERSEDES')` closes `older`'s validity. */
  async relate(fromId: string, toId: string, type: string, options: RelateOptions = {}): Promise<string> {
    this.#open('relate');
    return (await this.#writer.relate('relate', [this.#writer.draftEdge('relate', fromId, toId, type, options)]))[0]!;
  }

  /** Adds many edges in one transaction, all or nothing. */
  async relateMany(edges: Array<{ from: string; to: string; type: string } & RelateOptions>): Promise<string[]> {
    this.#open('relateMany');
    return this.#writer.relate('relateMany', this.#writer.draftEdges('relateMany', edges));
  }

  async unrelate(edgeId: string): Promise<void> {
    this.#open('unrelate');
    await this.#writer.unrelate(edgeId);
  }

  async update(id: string, patch: MemoryPatch): Promise<MemoryRecord> {
    this.#open('update');
    await this.#writer.update(id, patch);
    return (await this.#record('update', checkId('update', 'id', id)))!;
  }

  /** Removes a memory, its vector and its edges (undoing supersessions it made); leaves a tombstone for sync. */
  async forget(id: string): Promise<void> {
    this.#open('forget');
    await this.#writer.forget(id);
  }

  async get(id: string): Promise<MemoryRecord | null> {
    this.#open('get');
    return this.#record('get', checkId('get', 'id', id));
  }

  /**
   * A page of memories in storage order, optionally one kind, domain or id prefix, with the
   * number that match in all (the same page as `HybridMemory.list`).
   */
  async list(options: ListOptions = {}): Promise<MemoryPage> {
    const method = 'list';
    this.#open(method);
    const o = checkList(method, options);
    const now = this.#now();
    const vectors = this.#dim === null ? 'false' : `EXISTS (SELECT 1 FROM ${this.#db.t('vectors')} v WHERE v.no = m.no)`;
    const p = new Params();
    const conds: string[] = [];
    if (o.kind !== undefined) conds.push(labelSql('kind', new Set([o.kind]), p));
    if (o.domain !== undefined) conds.push(labelSql('domain', new Set([o.domain]), p));
    if (o.idPrefix !== null) {
      const prefix = p.add(o.idPrefix);
      conds.push(`left(id, length(${prefix}::text)) = ${prefix}`);
    }
    const where = conds.join(' AND ') || 'true';
    const filtered = [...p.values];
    const page = `OFFSET ${p.add(o.offset)} LIMIT ${p.add(o.limit)}`;
    return this.#db.transaction(method, async (q) => {
      const total = Number((await q(`SELECT count(*) AS n FROM ${this.#db.t('memories')} WHERE ${where}`, filtered)).rows[0]!['n']);
      const rows = (await q(`SELECT ${MEMORY_COLUMNS}, ${vectors} AS semantic FROM ${this.#db.t('memories')} m WHERE ${where} ORDER BY no ${page}`, p.values)).rows;
      return { records: rows.map((r) => toRecord(toMemoryRow(r), now, r['semantic'] ? 'semantic' : 'lexical')), total };
    }, 'read');
  }

  async edges(id: string, options: { direction?: Direction | undefined } = {}): Promise<Edge[]> {
    const method = 'edges';
    this.#open(method);
    const checked = checkId(method, 'id', id);
    const o = checkOptions(method, 'options', options, ['direction']);
    const direction = o.direction === undefined ? 'both' : checkOneOf(method, 'options.direction', o.direction, DIRECTIONS);
    return this.#db.transaction(method, async (q) => {
      const no = await this.#requireNo(q, method, checked);
      const where = direction === 'out' ? 'src = $1' : direction === 'in' ? 'dst = $1' : 'src = $1 OR dst = $1';
      const rows = (await q(`SELECT ${EDGE_COLUMNS} FROM ${this.#db.t('edges')} WHERE ${where} ORDER BY no`, [no])).rows.map(toEdgeRow);
      const idOf = await this.#idsOf(q, rows.flatMap((e) => [e.src, e.dst]));
      return rows.map((e) => toEdge(e, (n) => idOf.get(n)!));
    }, 'read');
  }

  async recall(query: string, options: RecallOptions = {}): Promise<Hit[]> {
    return (await this.#recall('recall', query, options)).hits;
  }

  /** `recall` plus how many memories have no vector (stored with `embedder: null` and no embedding). */
  async recallReport(query: string, options: RecallOptions = {}): Promise<RecallReport> {
    const { hits, legsRun } = await this.#recall('recall', query, options);
    const pending = this.#dim === null
      ? (await this.#db.query('recall', `SELECT count(*) AS n FROM ${this.#db.t('memories')}`)).rows[0]!['n']
      : (await this.#db.query('recall', `SELECT count(*) AS n FROM ${this.#db.t('memories')} m WHERE NOT EXISTS (SELECT 1 FROM ${this.#db.t('vectors')} v WHERE v.no = m.no)`)).rows[0]!['n'];
    return { hits, pendingSemantic: Number(pending), legsRun };
  }

  async #recall(method: string, query: string, options: unknown): Promise<{ hits: Hit[]; legsRun: RecallReport['legsRun'] }> {
    this.#open(method);
    const o = this.#resolve(method, query, options);
    const queryVector = await this.#queryVector(method, query, o);
    const now = this.#now();
    return this.#db.transaction(method, async (q) => {
      await this.#requireAnchors(q, method, o);
      return pgRecall(q, this.#db, o, query, queryVector, now, this.#settings());
    }, 'read');
  }

  /** The same query through each leg alone and fused, side by side, from one snapshot. */
  async compare(query: string, options: Omit<RecallOptions, 'mode'> = {}): Promise<CompareResult> {
    const method = 'compare';
    this.#open(method);
    const base = this.#resolve(method, query, options);
    const queryVector = await this.#queryVector(method, query, base);
    const now = this.#now();
    return this.#db.transaction(method, async (q) => {
      await this.#requireAnchors(q, method, base);
      const run = async (mode: ResolvedRecall['mode']) => (await pgRecall(q, this.#db, { ...base, mode }, query, queryVector, now, this.#settings())).hits;
      return { vector: await run('vector'), lexical: await run('lexical'), graph: await run('graph'), hybrid: await run('hybrid') };
    }, 'read');
  }

  /** Evidence for a prompt, built by the core's context builder from this memory's recall. */
  async context(query: string, options: ContextOptions = {}): Promise<Context> {
    this.#open('context');
    checkQuery('context', 'query', query);
    const { context, recall } = contextOptions('context', options);
    const { hits } = await this.#recall('context', query, { ...recall, k: Math.min(1000, context.maxItems * 3), explain: false });
    const embedder = this.#embedder;
    return buildContext(hits, context, embedder?.countTokens ? (texts) => embedder.countTokens!(texts) : null);
  }

  async checkCitations(text: string, contextOrIds: CitationEvidence | readonly string[]): Promise<CitationReport> {
    this.#open('checkCitations');
    return checkCitations('checkCitations', text, contextOrIds);
  }

  /** The graph neighbourhood of a memory (by id) or of the best hit for a query. */
  async trace(idOrQuery: string, options: TraceOptions = {}): Promise<TraceResult> {
    const method = 'trace';
    this.#open(method);
    // An id is at most MAX_ID_LENGTH, so anything that may be an id passes the query rule too.
    checkQuery(method, 'idOrQuery', idOrQuery);
    const w = walkOptions(method, options, 2);
    let start = (await this.#db.query(method, `SELECT no FROM ${this.#db.t('memories')} WHERE id = $1`, [idOrQuery])).rows[0]?.['no'];
    if (start === undefined) {
      const best = (await this.#recall(method, idOrQuery, { k: 1, explain: false })).hits[0];
      start = best && (await this.#db.query(method, `SELECT no FROM ${this.#db.t('memories')} WHERE id = $1`, [best.id])).rows[0]?.['no'];
    }
    if (start === undefined) return { nodes: [], edges: [] };
    const now = this.#now();
    return this.#db.transaction(method, async (q) => {
      const reached = await walk(q, this.#db, [Number(start)], { ...w, recordedBy: null });
      const nos = reached.map((r) => r.no);
      const rows = new Map((await q(`SELECT ${MEMORY_COLUMNS} FROM ${this.#db.t('memories')} WHERE no = ANY($1)`, [nos])).rows.map((r) => [Number(r['no']), toMemoryRow(r)]));
      const nodes = [...reached].sort((a, b) => a.distance - b.distance || a.no - b.no).map((r) => {
        const row = rows.get(r.no)!;
        return { id: row.id, text: row.text, distance: r.distance, status: statusAt({ createdAt: row.created_at, validFrom: row.valid_from, validTo: row.valid_to }, now) };
      });
      const types = w.edgeTypes.length > 0 ? w.edgeTypes : null;
      const edgeRows = (await q(
        `SELECT ${EDGE_COLUMNS} FROM ${this.#db.t('edges')} WHERE src = ANY($1) AND dst = ANY($1) AND ($2::text[] IS NULL OR type = ANY($2)) ORDER BY no`,
        [nos, types],
      )).rows.map(toEdgeRow);
      return { nodes, edges: edgeRows.map((e) => toEdge(e, (n) => rows.get(n)!.id)) };
    }, 'read');
  }

  /** The shortest path of typed edges between two memories, as ids, or null. */
  async path(fromId: string, toId: string, options: Omit<TraceOptions, 'depth'> = {}): Promise<string[] | null> {
    const method = 'path';
    this.#open(method);
    const from = checkId(method, 'id', fromId);
    const to = checkId(method, 'id', toId);
    const w = walkOptions(method, options, 0);
    return this.#db.transaction(method, async (q) => {
      const a = await this.#requireNo(q, method, from);
      const b = await this.#requireNo(q, method, to);
      const nos = await bfsPath(q, this.#db, a, b, w);
      if (!nos) return null;
      const idOf = await this.#idsOf(q, nos);
      return nos.map((n) => idOf.get(n)!);
    }, 'read');
  }

  async stats(): Promise<Stats & { enrichment: null }> {
    const method = 'stats';
    this.#open(method);
    const now = this.#now();
    return this.#db.transaction(method, async (q) => {
      const m = (await q(
        `SELECT count(*) AS n, count(*) FILTER (WHERE valid_from <= $1 AND (valid_to IS NULL OR valid_to > $1)) AS current FROM ${this.#db.t('memories')}`,
        [now],
      )).rows[0]!;
      const vectors = this.#dim === null ? 0 : Number((await q(`SELECT count(*) AS n FROM ${this.#db.t('vectors')}`)).rows[0]!['n']);
      const edgeTypes: Record<string, number> = {};
      for (const r of (await q(`SELECT type, count(*) AS n FROM ${this.#db.t('edges')} GROUP BY type ORDER BY type`)).rows) edgeTypes[String(r['type'])] = Number(r['n']);
      const embedderId = (await q(`SELECT value FROM ${this.#db.t('meta')} WHERE key = 'embedder_id'`)).rows[0]?.['value'];
      const memories = Number(m['n']);
      return {
        memories,
        edges: Object.values(edgeTypes).reduce((a, b) => a + b, 0),
        current: Number(m['current']),
        historical: memories - Number(m['current']),
        readiness: { stored: 0, lexical: memories - vectors, semantic: vectors },
        dim: this.#dim,
        embedderId: embedderId === undefined ? null : String(embedderId),
        schemaVersion: PG_SCHEMA_VERSION,
        edgeTypes,
        vectorBytes: vectors * (this.#dim ?? 0) * 4,
        storage: `postgres:${this.#db.schema}`,
        enrichment: null,
      };
    }, 'read');
  }

  /** Nothing runs in the background here (writes embed before they commit); kept for API parity. */
  async ready(): Promise<void> {
    this.#open('ready');
  }

  /** Closes the pool the memory opened (a pool you passed stays open); later calls fail with CLOSED. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#db.close();
  }

  /**
   * Two-way sync with a device's embedded store that worked offline: its changes since `cursor`
   * go to Postgres, everyone else's come to it, in both cases memories, edges, forgets and
   * unlinks. On a conflict the last write to reach the server wins — the device's, which
   * arrives now. Keep the returned `cursor` (plain JSON) for the next sync; `null` the first time.
   *
   * @example
   * let cursor = JSON.parse(localStorage.getItem('sync') ?? 'null');
   * ({ cursor } = await server.syncWith(device, cursor));
   * localStorage.setItem('sync', JSON.stringify(cursor));
   */
  async syncWith(local: HybridMemory, cursor: SyncCursor | null): Promise<SyncReport> {
    const method = 'syncWith';
    this.#open(method);
    return syncDevice(method, { db: this.#db, now: this.#now, ensureDim: (m, d) => this.#ensureDim(m, d) }, checkSyncTarget(method, local), cursor);
  }

  #open(method: string): void {
    if (this.#closed) throw new HybridMindError('CLOSED', method, 'the store is closed');
  }

  #settings() {
    return { efSearch: this.#efSearch, hasVectors: this.#dim !== null, rescorer: this.#rescorer };
  }

  async #ensureDim(method: string, dim: number): Promise<void> {
    if (this.#dim === dim) return;
    if (this.#dim !== null) throw new HybridMindError('DIMENSION_MISMATCH', method, `the store holds ${this.#dim}-d vectors, received ${dim}-d`);
    await ensureVectorTable(this.#db, method, dim);
    this.#dim = dim;
  }

  #resolve(method: string, query: unknown, options: unknown): ResolvedRecall {
    checkQuery(method, 'query', query);
    return resolveRecall(method, options, this.#defaults);
  }

  async #requireAnchors(q: Query, method: string, o: ResolvedRecall): Promise<void> {
    for (const id of o.anchors ?? []) await this.#requireNo(q, method, id);
  }

  async #queryVector(method: string, query: string, o: ResolvedRecall): Promise<Float32Array | null> {
    if (o.queryEmbedding !== null) return normalizedVector(method, 'options.queryEmbedding', o.queryEmbedding, this.#dim ?? this.#embedder?.dim ?? null);
    const wantsVector = o.mode === 'vector' || o.mode === 'hybrid' || (o.mode === 'graph' && o.anchors === null);
    if (!wantsVector || !this.#embedder || this.#dim === null) return null;
    let vectors: Float32Array[];
    try {
      vectors = await this.#embedder.embed([query]);
    } catch (cause) {
      throw new HybridMindError('EMBEDDER', method, `embedding the query failed: ${messageOf(cause)}`, { cause });
    }
    return normalizedVector(method, 'the query embedding', vectors[0], this.#dim);
  }

  async #requireNo(q: Query, method: string, id: string): Promise<number> {
    const row = (await q(`SELECT no FROM ${this.#db.t('memories')} WHERE id = $1`, [id])).rows[0];
    if (!row) throw notFound(method, 'memory', id);
    return Number(row['no']);
  }

  async #idsOf(q: Query, nos: readonly number[]): Promise<Map<number, string>> {
    const rows = (await q(`SELECT no, id FROM ${this.#db.t('memories')} WHERE no = ANY($1)`, [[...new Set(nos)]])).rows;
    return new Map(rows.map((r) => [Number(r['no']), String(r['id'])]));
  }

  async #record(method: string, id: string): Promise<MemoryRecord | null> {
    const vectors = this.#dim === null ? 'false' : `EXISTS (SELECT 1 FROM ${this.#db.t('vectors')} v WHERE v.no = m.no)`;
    const row = (await this.#db.query(method, `SELECT ${MEMORY_COLUMNS}, ${vectors} AS semantic FROM ${this.#db.t('memories')} m WHERE id = $1`, [id])).rows[0];
    return row ? toRecord(toMemoryRow(row), this.#now(), row['semantic'] ? 'semantic' : 'lexical') : null;
  }
}

async function connect(method: string, connection: unknown, schema: string): Promise<Db> {
  if (typeof connection === 'object' && connection !== null && 'pool' in connection) {
    const pool = (connection as { pool: PgPool }).pool;
    if (typeof pool?.query !== 'function' || typeof pool.connect !== 'function') throw invalid(method, 'options.connection.pool must be a pg Pool', pool);
    return new Db(pool, schema, false);
  }
  if (typeof connection !== 'string' && (typeof connection !== 'object' || connection === null)) {
    throw invalid(method, 'options.connection must be a connection string, a pg pool config or { pool }', connection);
  }
  const { Pool } = await loadPg(method);
  const pool = new Pool(typeof connection === 'string' ? { connectionString: connection } : (connection as Record<string, unknown>));
  // An idle client's network error must not crash the process; the next query reports it.
  (pool as unknown as { on?: (event: string, fn: () => void) => void }).on?.('error', () => {});
  return new Db(pool, schema, true);
}

/**
 * A memory remembers its embedder and dimension; opening it with another model would mix
 * incomparable vectors, so that is refused (re-embedding a Postgres memory is a migration to plan,
 * not an open option).
 */
async function reconcile(db: Db, method: string, embedder: Embedder | null): Promise<number | null> {
  const meta = new Map((await db.query(method, `SELECT key, value FROM ${db.t('meta')}`)).rows.map((r) => [String(r['key']), String(r['value'])]));
  const storedDim = meta.has('dim') ? Number(meta.get('dim')) : null;
  const storedModel = meta.get('embedder_id') ?? null;
  const conflict = modelConflict(method, { holder: 'the store', dim: storedDim, embedderId: storedModel }, { embedder });
  if (conflict) throw conflict;
  if (embedder && storedModel === null) {
    await db.query(method, `INSERT INTO ${db.t('meta')} (key, value) VALUES ('embedder_id', $1) ON CONFLICT (key) DO NOTHING`, [embedder.id]);
  }
  if (embedder && storedDim === null) {
    await ensureVectorTable(db, method, embedder.dim);
    return embedder.dim;
  }
  return storedDim;
}
