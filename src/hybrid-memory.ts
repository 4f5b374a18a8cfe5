import { buildContext, checkCitations, contextOptions, type CitationEvidence, type CitationReport, type Context, type ContextOptions } from './agent/context.js';
import type { WorkerLike } from './client/connect.js';
import type { ComposedMethods, ConnectOptions, RemoteMemory } from './client/types.js';
import { invalid } from './errors.js';
import { defaultLegs } from './legs/default.js';
import { asCallError, nameFailuresByCall } from './call-errors.js';
import { MemoryCore, openCore } from './memory/core.js';
import { OPEN_KEYS, type OpenOptions } from './memory/open-options.js';
import { checkOptions, checkQuery } from './memory/validate.js';
import type { SnapshotLimits } from './snapshot/format.js';
import { openSnapshot } from './snapshot/read.js';
import { writeSnapshot } from './snapshot/write.js';

export type { OpenOptions };

/** `HybridMemory.importSnapshot` options: those of `open` (the storage is the snapshot) plus reader limits. */
export type ImportSnapshotOptions = Omit<OpenOptions, 'storage'> & { limits?: SnapshotLimits | undefined };

/**
 * An agent's long-term memory: SQLite as the truth, four retrieval legs (dense vectors, BM25,
 * a typed graph with an entity graph derived from the text, time) fused by normalised scores.
 * The memory core (src/memory/core.ts) with the services composed on top of it: `.mind.zip`
 * snapshots, the agent's context and citations, and the worker client.
 *
 * @example
 * const mem = await HybridMemory.open({ embedder: null });
 * await mem.store({ text: 'ADR-007: we use SQLite-WASM on OPFS', id: 'adr-007' });
 * const hits = await mem.recall('which ADR covers storage?');
 */
export class HybridMemory extends MemoryCore implements ComposedMethods {
  /**
   * Opens a store in a Web Worker started from `hybridmind/worker` and returns this API with every
   * method async. A thin forwarder to `connect` in `hybridmind/client`: pages that only talk to a
   * worker should import that instead, so the engine stays out of their bundle.
   *
   * @example
   * const mem = await HybridMemory.connect(new Worker(workerUrl, { type: 'module' }), { store: 'notes' });
   */
  static async connect(worker: WorkerLike, options: ConnectOptions = {}): Promise<RemoteMemory> {
    return (await import('./client/connect.js')).connect(worker, options);
  }

  /** Opens (or creates) a store and rebuilds its indexes from SQLite. */
  static async open(options: OpenOptions = {}): Promise<HybridMemory> {
    const method = 'HybridMemory.open';
    return new HybridMemory(await openCore(method, options, defaultLegs).catch((error: unknown) => {
      throw asCallError(method, error);
    }));
  }

  /**
   * The evidence for a prompt: recall hits with near-duplicates removed, at most `maxPerSource`
   * per source, each tagged with a citation id (`M1`…), status and dates, cut to `budgetTokens`
   * counted with the embedding model's tokenizer. Other options are recall's.
   *
   * @example
   * const ctx = await mem.context('why is search slow at night?', { budgetTokens: 1024 });
   * prompt += `Evidence:\n${ctx.content}\nCite as [M1].`;
   */
  async context(query: string, options: ContextOptions = {}): Promise<Context> {
    this.assertOpen('context');
    checkQuery('context', 'query', query);
    const { context, recall } = contextOptions('context', options);
    const { hits } = await this.recallAs('context', query, { ...recall, k: Math.min(1000, context.maxItems * 3), explain: false });
    const embedder = this.embedder;
    return buildContext(hits, context, embedder?.countTokens ? (texts) => embedder.countTokens!(texts) : null);
  }

  /**
   * Which citations in an answer (`[M2]`, `[adr-007]`) point into the evidence it was given, and
   * which do not — refuse an answer whose `ok` is false.
   */
  async checkCitations(text: string, contextOrIds: CitationEvidence | readonly string[]): Promise<CitationReport> {
    this.assertOpen('checkCitations');
    return checkCitations('checkCitations', text, contextOrIds);
  }

  /**
   * The store as a `.mind.zip` (src/snapshot/FORMAT.md): the SQLite database plus vectors, graph
   * and lexical tokens in open formats, each part checksummed. Memories still waiting for their
   * embedding travel without a vector; `await ready()` first to include them.
   *
   * @example
   * const zip = await mem.exportSnapshot();
   * const copy = await HybridMemory.importSnapshot(zip, { embedder });
   */
  async exportSnapshot(): Promise<Uint8Array> {
    this.assertOpen('exportSnapshot');
    return writeSnapshot('exportSnapshot', this.repository, this.now());
  }

  /**
   * A new in-memory store from a `.mind.zip`, validated completely first: any problem is a coded
   * error (CORRUPT, UNSUPPORTED, DIMENSION_MISMATCH, MODEL_MISMATCH) and no store is created.
   *
   * @example
   * const mem = await HybridMemory.importSnapshot(zip, { embedder, limits: { maxTotalBytes: 2 ** 31 } });
   */
  static async importSnapshot(bytes: Uint8Array, options: ImportSnapshotOptions = {}): Promise<HybridMemory> {
    const method = 'HybridMemory.importSnapshot';
    const { limits, ...rest } = checkOptions(method, 'options', options, [...OPEN_KEYS, 'limits']) as ImportSnapshotOptions & { storage?: unknown };
    if (rest.storage !== undefined) throw invalid(method, 'options.storage is not accepted: the snapshot is the storage (restoreSnapshot() fills an existing store)', rest.storage);
    const snapshot = await openSnapshot(method, bytes, { embedder: rest.embedder === 'required' ? null : rest.embedder ?? null, ...(rest.dim === undefined ? {} : { dim: rest.dim }), limits }).catch((error: unknown) => {
      throw asCallError(method, error);
    });
    try {
      return await HybridMemory.open({ ...rest, storage: snapshot.repository.db });
    } catch (error) {
      snapshot.repository.db.close();
      throw error;
    }
  }

  /**
   * Replaces this store's whole content with a `.mind.zip`'s, atomically: the archive is
   * validated completely and the new indexes are built before one transaction swaps the rows in
   * (on this store's own storage, so a persistent store stays persistent). On any failure the
   * store is unchanged, down to the bytes of its database. Writes made while the archive is
   * being validated are replaced with the rest.
   */
  async restoreSnapshot(bytes: Uint8Array, options: { limits?: SnapshotLimits | undefined } = {}): Promise<void> {
    const method = 'restoreSnapshot';
    this.assertOpen(method);
    const o = checkOptions(method, 'options', options, ['limits']);
    const snapshot = await openSnapshot(method, bytes, { embedder: this.embedder, limits: o.limits as SnapshotLimits | undefined });
    try {
      await this.replaceContentWith(method, snapshot.repository);
    } finally {
      snapshot.repository.db.close();
    }
  }
}

// A failure in any public method names that method, whichever part of the store raised it.
nameFailuresByCall(HybridMemory.prototype);
