import { defaultEmbedder } from '../embedder/default.js';
import type { Embedder } from '../embedder/types.js';
import { HybridMindError, invalid, messageOf } from '../errors.js';
import { DIRECTIONS, type ChooseLegs } from '../legs/types.js';
import { defaultLogger, type Logger } from '../logger.js';
import { Repository, type MemoryRow } from '../storage/repository.js';
import { SCHEMA_VERSION } from '../storage/schema.js';
import { replaceContent } from '../storage/replace.js';
import type {
  CompareResult, Direction, Edge, Hit, MemoryInput, MemoryPatch, MemoryRecord, Readiness,
  RecallOptions, RecallReport, RelateOptions, Stats, TraceOptions, TraceResult,
} from '../types.js';
import { EnrichmentQueue, type EnrichmentOptions, type EnrichmentProgress, type EnrichmentStatus } from './enrichment.js';
import { Indexes } from './indexes.js';
import { search } from './recall.js';
import { resolveRecall, type ResolvedDefaults, type ResolvedRecall } from './recall-options.js';
import { toEdge, toRecord } from './rows.js';
import { checkId, checkOneOf, checkOptions, checkQuery, checkStoreMany, normalizedVector } from './validate.js';
import { Writer } from './writer.js';
import { dropVectors, reconcileModel } from './model.js';
import { autoEdgeKind, type AutoEdgeKind } from './auto-edges.js';
import { checkOpenOptions, openDriver, type OpenOptions } from './open-options.js';
import { DEFAULT_SAVE_AFTER_MS, inMemory, QuietTimer, resolveSaveDelay } from './quiet-save.js';

/** What `ready()` resolves to. */
export interface ReadyReport {
  /** The store's embedder, or null when it has none (no dense leg for memories stored without a vector). */
  embedderId: string | null;
  /** Memories the dense leg can find. */
  semantic: number;
  /** Ids whose embedding failed after every retry; `reembed()` tries again. */
  failed: string[];
}
import { graphPath, graphTrace, walkOptions } from './traversal.js';
import { listMemories, type ListOptions, type MemoryPage } from './listing.js';

/** An opened store with its indexes built: what `openCore` hands a facade's constructor. */
export interface OpenedCore {
  repo: Repository;
  indexes: Indexes;
  embedder: Embedder | null;
  now: () => number;
  logger: Logger;
  defaults: ResolvedDefaults;
  enrichment: EnrichmentOptions | undefined;
  /** Quiet time after a write before the derived indexes are saved, or null (see `saveIndexesAfterMs`). */
  saveAfterMs: number | null;
  /** False for an in-memory database, which nothing reads once it is closed. */
  keepsData: boolean;
}

/** Opens (or creates) a store and rebuilds its indexes from SQLite, with the legs `chooseLegs` makes. */
export async function openCore(method: string, options: OpenOptions, chooseLegs: ChooseLegs): Promise<OpenedCore> {
  const { o, defaults, autoEdges, neighbourAveraging } = checkOpenOptions(method, options);
  const logger = o.logger ?? defaultLogger;
  const embedder = o.embedder === undefined || o.embedder === 'required' ? await defaultEmbedder(logger, o.embedder === 'required') : o.embedder;
  const driver = await openDriver(method, o.storage);
  try {
    const repo = new Repository(driver);
    const dim = reconcileModel(method, repo, { dim: o.dim, embedder }, o.reembed === true);
    const legs = await chooseLegs({ vectorKernel: o.vectorKernel, ann: o.ann, vectorThreads: o.vectorThreads, logger });
    const keepsData = !inMemory(driver);
    const saveAfterMs = resolveSaveDelay(o.saveIndexesAfterMs, keepsData);
    const indexes = new Indexes(repo, { legs, dim, logger, autoEdges, neighbourAveraging, keepsData });
    indexes.rebuild();
    return { repo, indexes, embedder, now: o.now ?? Date.now, logger, defaults, enrichment: o.enrichment, saveAfterMs, keepsData };
  } catch (error) {
    driver.close();
    throw error;
  }
}

/**
 * The memory itself: SQLite as the truth, four retrieval legs (dense vectors, BM25, a typed
 * graph with an entity graph derived from the text, time) fused by normalised scores. It knows
 * its legs, fusion, storage and embedder only; the public `HybridMemory` (src/hybrid-memory.ts)
 * adds snapshots, agent context and the worker client on top of it.
 */
export class MemoryCore {
  readonly #repo: Repository;
  // The next three are replaced together, and only by replaceContentWith().
  #indexes: Indexes;
  #enrichment: EnrichmentQueue | null;
  #writer: Writer;
  readonly #embedder: Embedder | null;
  readonly #now: () => number;
  readonly #defaults: ResolvedDefaults;
  readonly #logger: Logger;
  readonly #enrichmentOptions: EnrichmentOptions | undefined;
  /**
   * What runs once writes went quiet: the save of the derived indexes, or, in a store that does not
   * save them in the background (an in-memory one, by default), their compaction (`Indexes.compact`).
   */
  readonly #quiet: QuietTimer;
  readonly #keepsData: boolean;
  /** Committed writes so far: a quiet save that sees it move stops (the write's own quiet period saves again). */
  #writes = 0;
  #closed = false;

  protected constructor({ repo, indexes, embedder, now, logger, defaults, enrichment, saveAfterMs, keepsData }: OpenedCore) {
    this.#repo = repo;
    this.#indexes = indexes;
    this.#embedder = embedder;
    this.#now = now;
    this.#defaults = defaults;
    this.#logger = logger;
    this.#enrichmentOptions = enrichment;
    this.#enrichment = this.#newEnrichmentQueue();
    this.#writer = new Writer(repo, indexes, this.#enrichment, now);
    this.#enrichment?.enqueue(repo.memoriesWithoutVector());
    this.#quiet = saveAfterMs === null ? new QuietTimer(DEFAULT_SAVE_AFTER_MS, () => this.#compactQuietly()) : new QuietTimer(saveAfterMs, () => this.#saveQuietly());
    this.#keepsData = keepsData;
    repo.onWrite = () => {
      this.#writes++;
      this.#quiet.touch();
    };
    // An open that rebuilt an index saves it too, or a store only read from would rebuild at every open.
    this.#quiet.touch();
  }

  #newEnrichmentQueue(): EnrichmentQueue | null {
    if (!this.#embedder) return null;
    return new EnrichmentQueue(this.#embedder, { textOf: (no) => this.#textOf(no), commit: (batch) => this.#writer.commitVectors(batch) }, this.#logger, this.#enrichmentOptions);
  }

  /**
   * Stores one memory. Returns once SQLite has committed it and the lexical, graph and time legs
   * see it; its embedding follows in the background (`ready()` waits for it).
   */
  async store(input: MemoryInput): Promise<string> {
    this.#open('store');
    return this.#writer.store('store', [input], 'input')[0]!;
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
    return this.#writer.relate(fromId, toId, type, options);
  }

  /**
   * Adds many edges in one transaction, all or nothing.
   *
   * @example
   * await mem.relateMany([{ from: 'search', to: 'hnsw', type: 'DEPENDS_ON' }, { from: 'hnsw', to: 'backfill', type: 'DEPENDS_ON' }]);
   */
  async relateMany(edges: Array<{ from: string; to: string; type: string } & RelateOptions>): Promise<string[]> {
    this.#open('relateMany');
    return this.#writer.relateMany(edges);
  }

  async unrelate(edgeId: string): Promise<void> {
    this.#open('unrelate');
    this.#writer.unrelate(edgeId);
  }

  async update(id: string, patch: MemoryPatch): Promise<MemoryRecord> {
    this.#open('update');
    this.#writer.update(id, patch);
    return this.#record(this.#repo.memoryById(id)!);
  }

  /** Removes a memory, its vector and its edges (undoing supersessions it made) from SQLite and every leg. */
  async forget(id: string): Promise<void> {
    this.#open('forget');
    this.#writer.forget(id);
  }

  async get(id: string): Promise<MemoryRecord | null> {
    this.#open('get');
    checkId('get', 'id', id);
    // By id in SQLite: a lookup in a loaded catalog would first make its whole id map.
    const row = this.#repo.memoryById(id);
    return row ? this.#record(row) : null;
  }

  /**
   * A page of memories in storage order, optionally only one kind, domain or id prefix, with the
   * number that match in all: what an inspector needs to browse a store page by page.
   *
   * @example
   * const { records, total } = await mem.list({ offset: 50, limit: 50, kind: 'adr' });
   */
  async list(options: ListOptions = {}): Promise<MemoryPage> {
    this.#open('list');
    return listMemories(this.#indexes.catalog, options, (no) => this.#record(this.#repo.memoryByNo(no)!));
  }

  async edges(id: string, options: { direction?: Direction | undefined } = {}): Promise<Edge[]> {
    this.#open('edges');
    const checked = checkId('edges', 'id', id);
    const o = checkOptions('edges', 'options', options, ['direction']);
    const direction = o.direction === undefined ? 'both' : checkOneOf('edges', 'options.direction', o.direction, DIRECTIONS);
    const no = this.#indexes.catalog.requireNo('edges', checked);
    return this.#repo
      .edgesOf(no)
      .filter((e) => direction === 'both' || (direction === 'out' ? Number(e.src) === no : Number(e.dst) === no))
      .map((e) => toEdge(e, (n) => this.#indexes.catalog.entry(n).id));
  }

  /** Edges the store drew itself at ingest (see `autoEdges`), each with `metadata.auto = { by, reason }`. */
  async autoEdges(options: { by?: AutoEdgeKind | undefined } = {}): Promise<Edge[]> {
    this.#open('autoEdges');
    return this.#repo.autoEdges(autoEdgeKind('autoEdges', options)).map((e) => toEdge(e, (n) => this.#indexes.catalog.entry(n).id));
  }

  /** Removes the edges the store drew itself (of one kind, or all); returns how many. */
  async removeAutoEdges(options: { by?: AutoEdgeKind | undefined } = {}): Promise<number> {
    this.#open('removeAutoEdges');
    return this.#writer.removeAutoEdges(autoEdgeKind('removeAutoEdges', options));
  }

  /** The top hits for a query, fused from the legs the mode selects. */
  async recall(query: string, options: RecallOptions = {}): Promise<Hit[]> {
    return (await this.recallAs('recall', query, options)).hits;
  }

  /** `recall` plus what the answer could not cover: memories not yet searchable semantically. */
  async recallReport(query: string, options: RecallOptions = {}): Promise<RecallReport> {
    return this.recallAs('recall', query, options);
  }

  /**
   * `recallReport` on behalf of the public method that needs hits (`trace`, `context`): not a call
   * of the public `recall`, whose failures would name `recall` to a caller that called neither.
   */
  protected async recallAs(method: string, query: string, options: RecallOptions): Promise<RecallReport> {
    this.#open(method);
    const o = this.#resolve(method, query, options);
    const queryVector = await this.#queryVector(method, query, o);
    this.#open(method);
    const now = this.#now();
    const { hits, legsRun } = search(this.#indexes, o, query, queryVector, now);
    return { hits, pendingSemantic: this.#indexes.catalog.size - this.#indexes.semantic, legsRun };
  }

  /** The same query through each leg alone and fused, side by side. */
  async compare(query: string, options: Omit<RecallOptions, 'mode'> = {}): Promise<CompareResult> {
    this.#open('compare');
    const base = this.#resolve('compare', query, options);
    const queryVector = await this.#queryVector('compare', query, base);
    const now = this.#now();
    const run = (mode: ResolvedRecall['mode']): Hit[] => search(this.#indexes, { ...base, mode }, query, queryVector, now).hits;
    return { vector: run('vector'), lexical: run('lexical'), graph: run('graph'), hybrid: run('hybrid') };
  }

  /** The graph neighbourhood of a memory (by id) or of the best hit for a query. */
  async trace(idOrQuery: string, options: TraceOptions = {}): Promise<TraceResult> {
    this.#open('trace');
    // An id is at most MAX_ID_LENGTH, so anything that may be an id passes the query rule too.
    checkQuery('trace', 'idOrQuery', idOrQuery);
    const walk = walkOptions('trace', options, 2);
    let start = this.#indexes.catalog.noOf(idOrQuery);
    if (start === undefined) {
      const best = (await this.recallAs('trace', idOrQuery, { k: 1, explain: false })).hits[0];
      start = best ? this.#indexes.catalog.noOf(best.id) : undefined;
    }
    return graphTrace(this.#indexes, start ?? null, walk, this.#now());
  }

  /** The shortest path of typed edges between two memories, as ids, or null. */
  async path(fromId: string, toId: string, options: Omit<TraceOptions, 'depth'> = {}): Promise<string[] | null> {
    this.#open('path');
    const from = checkId('path', 'id', fromId);
    const to = checkId('path', 'id', toId);
    const walk = walkOptions('path', options, 0);
    const { catalog } = this.#indexes;
    return graphPath(this.#indexes, catalog.requireNo('path', from), catalog.requireNo('path', to), walk);
  }

  /**
   * Computes every vector again with the store's embedder (after a model update, or to retry
   * memories whose embedding failed). The old vectors are dropped first, so the dense leg answers
   * only for memories already redone while it runs. Resolves when all are done.
   *
   * @example
   * await mem.reembed({ onProgress: ({ done, pending }) => showProgress(done, done + pending) });
   */
  async reembed(options: { onProgress?: ((p: EnrichmentProgress) => void) | undefined } = {}): Promise<void> {
    this.#open('reembed');
    const o = checkOptions('reembed', 'options', options, ['onProgress']);
    if (o.onProgress !== undefined && typeof o.onProgress !== 'function') throw invalid('reembed', 'options.onProgress must be a function', o.onProgress);
    const enrichment = this.#enrichment;
    if (!enrichment || !this.#embedder) throw new HybridMindError('UNSUPPORTED', 'reembed', 'the store was opened with embedder null; open it with an embedder to re-embed');
    dropVectors('reembed', this.#repo, this.#embedder);
    this.#indexes.vector?.clear();
    const stop = o.onProgress ? enrichment.listen(o.onProgress as (p: EnrichmentProgress) => void) : () => {};
    try {
      enrichment.enqueue([...this.#indexes.catalog.values()].map((e) => e.no));
      await enrichment.idle();
    } finally {
      stop();
    }
  }

  /**
   * Resolves when every memory stored so far has its embedding (or has failed to get one), with
   * what the dense leg can see: `embedderId` null means the store has no embedder (e.g. the default
   * one could not load), `failed` lists the memories whose embedding failed after every retry.
   *
   * @example
   * const { failed, embedderId } = await mem.ready();
   * if (embedderId === null || failed.length > 0) warnUser(failed);
   */
  async ready(): Promise<ReadyReport> {
    this.#open('ready');
    await this.#enrichment?.idle();
    const { catalog } = this.#indexes;
    const failed = (this.#enrichment?.failedNumbers() ?? []).flatMap((no) => catalog.get(no)?.id ?? []);
    return { embedderId: this.#embedder?.id ?? null, semantic: this.#indexes.semantic, failed };
  }

  async stats(): Promise<Stats & { enrichment: EnrichmentStatus | null }> {
    this.#open('stats');
    const { catalog, vector } = this.#indexes;
    const current = catalog.countCurrent(this.#now());
    const semantic = this.#indexes.semantic;
    const edgeTypes = this.#indexes.edgeTypes.read(() => this.#repo.edgeTypeCounts());
    return {
      memories: catalog.size,
      edges: Object.values(edgeTypes).reduce((sum, n) => sum + n, 0),
      current,
      historical: catalog.size - current,
      readiness: { stored: 0, lexical: catalog.size - semantic, semantic },
      dim: vector?.dim ?? null,
      embedderId: this.#repo.getMeta('embedder_id'),
      schemaVersion: SCHEMA_VERSION,
      edgeTypes,
      vectorBytes: vector?.byteSize() ?? 0,
      storage: this.#repo.db.name,
      enrichment: this.#enrichment?.status() ?? null,
    };
  }

  /** Reclaims the space of deleted rows (SQLite VACUUM); the in-memory indexes drop deleted entries at once. */
  async compact(): Promise<void> {
    this.#open('compact');
    this.#repo.vacuum();
  }

  /** The SQLite database as bytes (`open({ storage: { bytes } })` reopens it). */
  async exportDatabase(): Promise<Uint8Array> {
    this.#open('exportDatabase');
    if (!this.#repo.db.serialize) throw new HybridMindError('UNSUPPORTED', 'exportDatabase', `storage ${this.#repo.db.name} cannot serialise itself`);
    this.#saveDerived();
    return this.#repo.db.serialize();
  }

  /**
   * Replaces this store's whole content with `source`'s, atomically: the new indexes are built
   * before one transaction copies the rows in (on this store's own storage, so a persistent
   * store stays persistent). On any failure the store is unchanged, down to the bytes of its
   * database. Writes made before this call are replaced with the rest.
   */
  protected async replaceContentWith(method: string, source: Repository): Promise<void> {
    this.#open(method);
    const dim = reconcileModel(method, source, { embedder: this.#embedder }, false);
    const indexes = this.#indexes.emptyLike(dim);
    try {
      indexes.rebuild(source);
      replaceContent(method, source, this.#repo);
    } catch (error) {
      indexes.clear();
      throw error;
    }
    // Stopping is synchronous up to its first await, so the old queue can commit nothing after the swap.
    const stopping = this.#enrichment?.stop();
    const previous = this.#indexes;
    this.#indexes = indexes;
    this.#enrichment = this.#newEnrichmentQueue();
    this.#writer = new Writer(this.#repo, indexes, this.#enrichment, this.#now);
    this.#enrichment?.enqueue(this.#repo.memoriesWithoutVector());
    previous.clear();
    await stopping;
  }

  /** The store's database, for the services composed on top of the core (snapshots). */
  protected get repository(): Repository {
    return this.#repo;
  }

  protected get embedder(): Embedder | null {
    return this.#embedder;
  }

  /** The store's clock, epoch ms. */
  protected now(): number {
    return this.#now();
  }

  /** Fails with CLOSED once `close()` ran. */
  protected assertOpen(method: string): void {
    this.#open(method);
  }

  /**
   * Stops background work and closes the database; later calls fail with CLOSED. The derived
   * indexes are saved first unless the database is in memory: it is gone once closed, and saving
   * into it took 0.66 s at 100k memories (exact scan), more with an HNSW graph.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#enrichment?.stop();
    this.#quiet.stop();
    if (this.#keepsData) this.#saveDerived();
    this.#indexes.close(this.#keepsData);
    this.#indexes.clear();
    this.#repo.db.close();
  }

  /** The next open loads the lexical index instead of rebuilding it; failing to save only costs that. */
  #saveDerived(): void {
    try {
      this.#indexes.saveDerived();
    } catch (error) {
      this.#couldNotSave(error);
    }
  }

  /** The save once writes went quiet, a part at a time in the background; a write or close meanwhile ends it. */
  #saveQuietly(): void {
    if (this.#closed) return;
    const writes = this.#writes;
    const indexes = this.#indexes;
    indexes.saveDerivedInSlices(
      () => !this.#closed && this.#writes === writes && this.#indexes === indexes,
      (saved, error) => {
        if (error !== undefined) this.#couldNotSave(error);
        else if (saved) this.#logger('debug', 'saved the derived indexes after writes went quiet', { memories: indexes.catalog.size });
      },
    );
  }

  /** The compaction once writes went quiet, an index per slice; a close or a restore meanwhile ends it. */
  #compactQuietly(): void {
    if (this.#closed) return;
    const indexes = this.#indexes;
    indexes.compactInSlices(
      () => !this.#closed && this.#indexes === indexes,
      (folded, ms, error) => {
        if (error !== undefined) this.#logger('warn', 'could not compact the lexical and entity indexes; they answer as they are', { error });
        else if (folded.length > 0) this.#logger('debug', 'compacted the derived indexes after writes went quiet', { folded, memories: indexes.catalog.size, ms: Math.round(ms) });
      },
    );
  }

  #couldNotSave(error: unknown): void {
    this.#logger('warn', 'could not save the lexical index; the next open rebuilds it', { error });
  }

  #open(method: string): void {
    if (this.#closed) throw new HybridMindError('CLOSED', method, 'the store is closed');
  }

  #resolve(method: string, query: unknown, options: unknown): ResolvedRecall {
    checkQuery(method, 'query', query);
    const o = resolveRecall(method, options, this.#defaults);
    for (const id of o.anchors ?? []) this.#indexes.catalog.requireNo(method, id);
    return o;
  }

  async #queryVector(method: string, query: string, o: ResolvedRecall): Promise<Float32Array | null> {
    const dim = this.#indexes.vector?.dim ?? this.#embedder?.dim ?? null;
    if (o.queryEmbedding !== null) return normalizedVector(method, 'options.queryEmbedding', o.queryEmbedding, dim);
    const wantsVector = o.mode === 'vector' || o.mode === 'hybrid' || (o.mode === 'graph' && o.anchors === null);
    if (!wantsVector || !this.#embedder || !this.#indexes.vector || this.#indexes.vector.size === 0) return null;
    let vectors: Float32Array[];
    try {
      vectors = await this.#embedder.embed([query]);
    } catch (cause) {
      throw new HybridMindError('EMBEDDER', method, `embedding the query failed: ${messageOf(cause)}`, { cause });
    }
    return normalizedVector(method, 'the query embedding', vectors[0], dim);
  }

  #record(row: MemoryRow): MemoryRecord {
    const readiness: Readiness = this.#indexes.vector?.has(row.no) ? 'semantic' : 'lexical';
    return toRecord(row, this.#now(), readiness);
  }

  #textOf(no: number): string | undefined {
    return this.#indexes.catalog.get(no) ? this.#repo.memoryByNo(no)?.text : undefined;
  }
}
