import type { EntityLeg, GraphLeg, LegFactory, LexicalIndex, VectorIndex } from '../legs/types.js';
import type { Logger } from '../logger.js';
import { sqlAnnStore } from '../storage/ann-store.js';
import { storedEdges } from '../storage/edge-source.js';
import { readVectorsByNo, type GraphEdgeRow } from '../storage/bulk-read.js';
import type { MemoryRow, Repository } from '../storage/repository.js';
import { afterOpen, inSlices, now } from '../util/slices.js';
import { AutoEdges, sessionOf, type ResolvedAutoEdges } from './auto-edges.js';
import { Catalog } from './catalog.js';
import { CATALOG } from './saved-catalog.js';
import { EDGE_TYPES, EdgeTypeCounts } from './edge-type-counts.js';
import { ENTITIES, LEXICAL, loadSaved, QUANTIZED, save, saveBytes, savedParts, storeStamp } from './saved-lexical.js';
import { joinParts, type PartedBytes } from '../util/parted-bytes.js';
import { readAll } from './read-store.js';
import type { NeighbourAveraging } from './neighbour-averaging.js';
import type { RecallParts } from './recall.js';

/** Every name the indexes save a derived value under: a store that keeps them in files opens one per name. */
export const DERIVED_NAMES: readonly string[] = [LEXICAL.name, ENTITIES.name, CATALOG.name, EDGE_TYPES.name, QUANTIZED];

export interface IndexOptions {
  /** Where every leg index comes from (chosen by the entry point). */
  legs: LegFactory;
  dim: number | null;
  logger: Logger;
  autoEdges: ResolvedAutoEdges | null;
  neighbourAveraging?: NeighbourAveraging | null | undefined;
  /** False for an in-memory database: only an export reads its saved indexes, so the HNSW graph is written then, not when built. */
  keepsData: boolean;
}

/**
 * The in-memory side of a store: catalog and the four legs' indexes. They are derived from SQLite
 * and only ever changed after a commit, so a failed write never leaves them ahead of the truth.
 */
export class Indexes implements RecallParts {
  readonly catalog = new Catalog();
  /** The store's edges per type, for `stats()`. */
  readonly edgeTypes = new EdgeTypeCounts();
  lexical: LexicalIndex;
  readonly graph: GraphLeg;
  /** Memories by the entities their text names: what the graph leg walks when no edge leads on. */
  entities: EntityLeg;
  vector: VectorIndex | null = null;
  readonly repository: Repository;
  /** Lookups for edges the store draws itself; null when `autoEdges: false`. */
  readonly auto: AutoEdges | null;
  /** When set, new vectors are indexed averaged with their neighbours (see `neighbour-averaging.ts`). */
  readonly neighbourAveraging: NeighbourAveraging | null;
  readonly #legs: LegFactory;
  readonly #logger: Logger;
  readonly #options: IndexOptions;
  /** Stamp of the values saved in the derived store (lexical, entities, catalog, edge counts, vector codes), when it matches the ones in memory. */
  #savedStamp: string | null = null;
  /** The background warm-up running after an open (`#warmLater`); replaced or cleared to stop it. */
  #warming: object | null = null;

  constructor(repository: Repository, options: IndexOptions) {
    this.repository = repository;
    this.#options = options;
    this.#legs = options.legs;
    this.#logger = options.logger;
    this.lexical = options.legs.lexical();
    this.graph = options.legs.graph(this.catalog);
    this.entities = options.legs.entities();
    this.auto = options.autoEdges ? new AutoEdges(options.autoEdges) : null;
    this.neighbourAveraging = options.neighbourAveraging ?? null;
    if (options.dim !== null) this.vector = this.#createVectorIndex(options.dim);
  }

  /** Memories the dense leg searches: the vector index holds only memories the catalog holds (a vector is committed only for one it still has). */
  get semantic(): number {
    return this.vector?.size ?? 0;
  }

  #createVectorIndex(dim: number): VectorIndex {
    return this.#legs.vector(dim, sqlAnnStore(this.repository.db, !this.#options.keepsData), (nos, into) => readVectorsByNo(this.repository.db, nos, into));
  }

  /** Stops background indexing (before the database closes), saving what it has not saved yet when `save`. */
  close(save: boolean): void {
    this.#warming = null;
    this.graph.stop?.();
    if (save) this.vector?.close?.();
    else this.vector?.dispose?.();
  }

  /**
   * Builds every index from SQLite (open, import). A restore reads `source`, a checked copy of
   * the rows about to replace this repository's, so the indexes are ready before the swap. On
   * open, the lexical and entity indexes saved at close are loaded when still current, the texts
   * are read only if one of them (or auto edges) needs them, the vector index is offered its
   * saved int8 codes so it copies them instead of quantizing every vector, and the graph takes
   * its edges in the background (`GraphLeg.fill`), answering from the store's meanwhile.
   */
  rebuild(source: Repository = this.repository): void {
    const logger = this.#logger;
    const stamp = source === this.repository ? storeStamp(this.repository) : null;
    const rows = readAll(source);
    // Vectors first, while the heap is small: their blobs are external memory, and each ~64 MB
    // of it makes V8 mark the whole heap. Read after the lexical index and graph (~220 MB of heap
    // at 100k memories), that was five full collections of ~0.45 s each.
    const quantized = stamp && savedParts(this.repository, QUANTIZED, stamp);
    const adoption = quantized ? this.#adoptQuantized(quantized) : 'declined';
    // Codes that did not read are not offered again: the index quantizes as it would without them.
    let offer = adoption === 'declined' && quantized ? joinParts(quantized) : null;
    if (adoption !== 'adopted') rows.vectors((nos, vectors) => {
      const index = this.ensureVectorIndex(vectors.length / nos.length);
      if (offer) offerQuantized(index, offer, logger);
      offer = null;
      if (index.addPacked) index.addPacked(nos, vectors);
      // A copy each: the chunk may be a view of SQLite's memory, valid only during this call.
      else for (let i = 0; i < nos.length; i++) index.add(nos[i]!, vectors.slice(i * index.dim, (i + 1) * index.dim));
    });
    this.vector?.useQuantized?.(null);
    const lexical = stamp && loadSaved(this.repository, LEXICAL, this.#legs, stamp, logger);
    const entities = stamp && loadSaved(this.repository, ENTITIES, this.#legs, stamp, logger);
    if (lexical) this.lexical = lexical;
    if (entities) this.entities = entities;
    const catalog = stamp && loadSaved(this.repository, CATALOG, this.#legs, stamp, logger);
    if (catalog) this.catalog.adopt(catalog, (id) => this.repository.noOfId(id));
    else for (const row of rows.catalog()) this.catalog.set(row);
    const texts = lexical && entities && !this.auto ? null : rows.texts();
    if (texts) {
      for (const entry of this.catalog.values()) {
        const { no } = entry;
        this.graph.addNode(no);
        const text = texts.get(no)!;
        if (!lexical) this.lexical.add(no, text);
        if (!entities) this.entities.add(no, text, sessionOf(entry.metadata));
        this.auto?.register({ no, id: entry.id, text, metadata: entry.metadata });
      }
    }
    // The store's own edges come in the background on an open; a restore's must all be in first.
    const edgeTypes = stamp && loadSaved(this.repository, EDGE_TYPES, this.#legs, stamp, logger);
    if (source === this.repository && this.graph.fill) {
      this.graph.fill(storedEdges(source.db), logger);
      if (edgeTypes) this.edgeTypes.start(edgeTypes.types);
    } else {
      this.edgeTypes.start();
      for (const edge of rows.edges()) this.addEdge(edge);
    }
    if (stamp && lexical && entities && catalog && edgeTypes && (quantized || !this.vector?.saveQuantized)) this.#savedStamp = stamp.key;
    if (catalog) this.#warmLater();
  }

  /**
   * After an open from a saved catalog, makes what a first write would otherwise make (its id
   * map) in slices, so a write that comes a moment later finds it made and queries meanwhile wait
   * at most a slice.
   */
  #warmLater(): void {
    const token = {};
    this.#warming = token;
    const started = now();
    inSlices((until) => this.catalog.fillIds(until), () => this.#warming === token, () => {
      this.#warming = null;
      this.#logger('debug', `made the loaded catalog's id map in ${(now() - started).toFixed(0)} ms`, { memories: this.catalog.size });
    }, afterOpen);
  }

  /** Hands the saved codes to a vector index that can answer from them without the vectors being read. */
  #adoptQuantized(bytes: PartedBytes): 'adopted' | 'declined' | 'unreadable' {
    const dim = this.repository.getMeta('dim');
    if (dim === null) return 'declined';
    try {
      const index = this.ensureVectorIndex(Number(dim));
      if (!index.adoptQuantized?.(bytes)) return 'declined';
      this.#logger('debug', 'opened the dense leg from its saved codes; vectors are read from the store when needed', { vectors: index.size });
      return 'adopted';
    } catch (error) {
      this.#logger('warn', 'the saved quantized vectors could not be read; quantizing them again', { error });
      return 'unreadable';
    }
  }

  /**
   * Saves the lexical and entity indexes and the vector codes for the next open (and whatever the
   * HNSW graph has not saved), unless the saved ones are already current: false then.
   */
  saveDerived(): boolean {
    const parts = this.#saveParts();
    for (;;) {
      const part = parts.next();
      if (part.done) return part.value;
    }
  }

  /**
   * `saveDerived` once writes went quiet, a part per slice of background work (the lexical
   * index, the entities and catalog, the codes), so it holds the thread for its largest
   * part instead of all of them: at 100k memories ~0.3 s (the lexical index) instead of ~0.7 s. It
   * stops when `current()` turns false (a write or a close came in between: the parts saved carry
   * the old stamp, which no open trusts, and the write's own quiet period saves again); `done`
   * hears whether it saved anything, or what failed.
   */
  saveDerivedInSlices(current: () => boolean, done: (saved: boolean, error?: unknown) => void): void {
    partsInSlices(this.#saveParts(), current, (saved, _ms, error) => done(saved ?? false, error));
  }

  /**
   * What `saveDerived` writes, a part per step; returns whether it wrote anything. First the HNSW
   * graph an in-memory store held back (`VectorIndex.flush`), which only an export finds: a store
   * that keeps its data wrote its graph when it was built.
   */
  *#saveParts(): Generator<void, boolean> {
    this.vector?.flush?.();
    const stamp = storeStamp(this.repository);
    if (stamp.key === this.#savedStamp) return false;
    yield;
    save(this.repository, LEXICAL, stamp, this.lexical);
    yield;
    save(this.repository, ENTITIES, stamp, this.entities);
    saveBytes(this.repository, CATALOG.name, stamp, this.catalog.save());
    saveBytes(this.repository, EDGE_TYPES.name, stamp, this.edgeTypes.save(stamp.memories, () => this.repository.edgeTypeCounts()));
    yield;
    const quantized = this.vector?.saveQuantized?.() ?? null;
    if (quantized) saveBytes(this.repository, QUANTIZED, stamp, quantized);
    this.#savedStamp = stamp.key;
    return true;
  }

  /**
   * What a save folds, for a store that does not save (an in-memory one) once its writes went
   * quiet: the lexical and entity indexes' many changes since their last fold (`foldsChanges`),
   * moved from the lists and maps that held them into flat arrays. Answers are unchanged. One
   * index per slice of background work (at 100k memories after an ingest, ~65 ms the lexical
   * index and ~45 ms the entities); `done` hears which folded and the work's time, or what failed.
   */
  compactInSlices(current: () => boolean, done: (folded: string[], ms: number, error?: unknown) => void): void {
    partsInSlices(this.#compactParts(), current, (folded, ms, error) => done(folded ?? [], ms, error));
  }

  /** `compactInSlices`' work, an index per step; returns the names of those that folded. */
  *#compactParts(): Generator<void, string[]> {
    const folded: string[] = [];
    if (this.lexical.compact?.()) folded.push('lexical');
    yield;
    if (this.entities.compact?.()) folded.push('entities');
    return folded;
  }

  /** Empty indexes over the same database, legs and options, to be filled and swapped in by a restore. */
  emptyLike(dim: number | null): Indexes {
    return new Indexes(this.repository, { ...this.#options, dim });
  }

  ensureVectorIndex(dim: number): VectorIndex {
    if (!this.vector) this.vector = this.#createVectorIndex(dim);
    return this.vector;
  }

  /** `lexical: false` when the lexical index already holds the text (loaded from its saved form). */
  addMemory(row: MemoryRow, lexical = true): void {
    const entry = this.catalog.set(row);
    if (lexical) this.lexical.add(row.no, row.text);
    this.graph.addNode(row.no);
    this.entities.add(row.no, row.text, sessionOf(entry.metadata));
    this.auto?.register({ no: row.no, id: row.id, text: row.text, metadata: entry.metadata });
  }

  /** After an update: the text is re-indexed only when it changed. */
  updateMemory(before: MemoryRow, after: MemoryRow): void {
    const entry = this.catalog.set(after);
    if (before.text !== after.text) {
      this.lexical.remove(after.no, before.text);
      this.lexical.add(after.no, after.text);
    }
    this.entities.add(after.no, after.text, sessionOf(entry.metadata));
    this.auto?.unregister(after.no);
    this.auto?.register({ no: after.no, id: after.id, text: after.text, metadata: entry.metadata });
  }

  /** `text`: what the memory held, read before its row was deleted (the lexical index removes by it). */
  removeMemory(no: number, text: string): void {
    this.auto?.unregister(no);
    this.catalog.delete(no);
    this.lexical.remove(no, text);
    this.entities.remove(no);
    this.graph.removeNode(no);
    this.vector?.remove(no);
  }

  /** A committed edge (or, in `rebuild`, one the store holds). */
  addEdge(edge: GraphEdgeRow): void {
    this.graph.addEdge(edge.id, Number(edge.src), Number(edge.dst), {
      type: edge.type,
      weight: Number(edge.weight),
      createdAt: Number(edge.created_at),
    });
    this.edgeTypes.change(edge.type, 1);
  }

  /** An edge whose row was deleted. */
  removeEdge(edge: Pick<GraphEdgeRow, 'id' | 'type'>): void {
    this.graph.removeEdge(edge.id);
    this.edgeTypes.change(edge.type, -1);
  }

  setVector(no: number, vector: Float32Array): void {
    this.ensureVectorIndex(vector.length).add(no, vector);
  }

  clear(): void {
    this.catalog.clear();
    this.edgeTypes.forget();
    this.lexical.clear();
    this.graph.clear();
    this.entities.clear();
    this.vector?.clear();
  }
}

/** Saved codes that do not read are only a slower open: the index quantizes as it would without them. */
function offerQuantized(index: VectorIndex, bytes: Uint8Array, logger: Logger): void {
  try {
    index.useQuantized?.(bytes);
  } catch (error) {
    logger('warn', 'the saved quantized vectors could not be read; quantizing them again', { error });
  }
}

/**
 * Runs `parts` a step per slice of background work (`inSlices`) until it returns or throws, then
 * tells `done` what it returned (undefined if it threw or was stopped first), the steps' own time,
 * and what it threw; a slice whose `current()` is false stops it.
 */
function partsInSlices<T>(parts: Generator<void, T>, current: () => boolean, done: (result: T | undefined, ms: number, error?: unknown) => void): void {
  let result: T | undefined;
  let ms = 0;
  let error: unknown;
  inSlices(
    () => {
      const started = now();
      try {
        const part = parts.next();
        if (part.done) result = part.value;
        else return true;
      } catch (cause) {
        error = cause;
      } finally {
        ms += now() - started;
      }
      return false;
    },
    current,
    () => done(result, ms, error),
  );
}
