import { HybridMindError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { EdgeRow, MemoryRow, Repository } from '../storage/repository.js';
import { EDGE_TYPES, type Metadata } from '../types.js';
import type { EnrichmentQueue } from './enrichment.js';
import type { Indexes } from './indexes.js';
import { averageWithNeighbours } from './neighbour-averaging.js';
import { applyPatch, duplicateId, prepareBatch } from './rows.js';
import { checkId, normalizedVector } from './validate.js';
import { checkEdgeSpec, checkEdgeSpecs, type EdgeSpec } from './edge-spec.js';
import { lendSlab } from '../util/vector.js';

const PROGRESS_EVERY = 1000;

/**
 * Every write: checked completely first, then one SQLite transaction, then the indexes. A write
 * that fails anywhere before the commit leaves SQLite and the indexes as they were.
 */
export class Writer {
  readonly #repo: Repository;
  readonly #indexes: Indexes;
  readonly #enrichment: EnrichmentQueue | null;
  readonly #now: () => number;

  constructor(repo: Repository, indexes: Indexes, enrichment: EnrichmentQueue | null, now: () => number) {
    this.#repo = repo;
    this.#indexes = indexes;
    this.#enrichment = enrichment;
    this.#now = now;
  }

  get #dim(): number | null {
    const stored = this.#repo.getMeta('dim');
    return this.#indexes.vector?.dim ?? (stored === null ? null : Number(stored));
  }

  store(method: string, inputs: unknown[], name: string, onProgress?: (p: { done: number; total: number }) => void): string[] {
    // SQLite and the indexes copy the vectors they keep before this returns, so the batch's can
    // share blocks, and the next batch can write over them.
    const blocks = lendSlab(inputs.length);
    try {
      return this.#store(method, inputs, name, blocks.take, onProgress);
    } finally {
      blocks.done();
    }
  }

  #store(method: string, inputs: unknown[], name: string, take: (length: number) => Float32Array, onProgress?: (p: { done: number; total: number }) => void): string[] {
    const now = this.#now();
    const { prepared, dim } = prepareBatch(method, name, inputs, now, this.#dim, take);
    const taken = prepared.find((p) => this.#indexes.catalog.noOf(p.row.id) !== undefined);
    if (taken) throw duplicateId(method, taken.row.id);
    const [rows, edges] = this.#repo.transaction(method, () => {
      if (this.#repo.getMeta('dim') === null && dim !== null) this.#repo.setMeta('dim', String(dim));
      const nos = this.#repo.insertMemories(prepared.map((p) => p.row));
      const plain: Array<{ no: number; vector: Float32Array }> = [];
      const inserted: MemoryRow[] = prepared.map((p, i) => {
        const no = nos[i]!;
        if (p.vector) {
          const stored = this.#averaged(no, p.vector);
          if (stored === p.vector) plain.push({ no, vector: stored });
          else this.#repo.setVector(no, stored, p.vector);
          p.vector = stored;
        }
        return { ...p.row, no };
      });
      this.#repo.setVectors(plain);
      const vectors = new Map(prepared.flatMap((p, i) => (p.vector ? [[inserted[i]!.no, p.vector] as const] : [])));
      return [inserted, this.#insertEdges(this.#autoEdgeDrafts(inserted, vectors))] as const;
    });
    const waiting: number[] = [];
    rows.forEach((row, i) => {
      this.#indexes.addMemory(row);
      const vector = prepared[i]!.vector;
      if (vector) this.#indexes.setVector(row.no, vector);
      else waiting.push(row.no);
      if (onProgress && ((i + 1) % PROGRESS_EVERY === 0 || i + 1 === rows.length)) onProgress({ done: i + 1, total: rows.length });
    });
    this.#indexEdges(edges);
    this.#enrichment?.enqueue(waiting);
    return rows.map((r) => r.id);
  }

  /**
   * Edges the store draws for new memories (and for memories that just got their `vectors`),
   * marked `auto: { by, reason }`, minus ones that exist.
   */
  #autoEdgeDrafts(rows: readonly MemoryRow[], vectors: ReadonlyMap<number, Float32Array>): EdgeRow[] {
    const auto = this.#indexes.auto;
    if (!auto || (rows.length === 0 && vectors.size === 0)) return [];
    const batch = rows.map((r) => ({ no: r.no, id: r.id, text: r.text, metadata: JSON.parse(r.metadata) as Metadata }));
    const validFrom = new Map(rows.map((r) => [r.no, Number(r.valid_from)]));
    const index = this.#indexes.vector;
    const similar = index ? [...vectors].flatMap(([no, v]) => auto.similar(no, v, (q, k, accept) => index.search(q, k, accept))) : [];
    const proposals = [...auto.propose(batch), ...similar];
    const existing = this.#repo.existingEdges(proposals.map((p) => ({ src: p.from, dst: p.to, type: p.type })));
    return proposals
      .filter((p) => !existing.has(edgeKey({ src: p.from, dst: p.to, type: p.type })))
      .map((p) => ({
        no: 0,
        id: newId(),
        src: p.from,
        dst: p.to,
        type: p.type,
        weight: p.weight,
        metadata: JSON.stringify({ auto: { by: p.by, reason: p.reason } }),
        valid_from: validFrom.get(p.from) ?? this.#indexes.catalog.entry(p.from).validFrom,
        created_at: this.#now(),
        closes_valid_to: 0,
        prior_valid_to: null,
      }));
  }

  /** Background embeddings land here; a memory whose text changed meanwhile is skipped. */
  commitVectors(batch: Array<{ no: number; text: string; vector: Float32Array }>): void {
    const fresh = batch.filter((b) => this.#indexes.catalog.get(b.no) && this.#repo.memoryByNo(b.no)?.text === b.text);
    const dim = this.#dim;
    const raws = fresh.map((b) => normalizedVector('enrichment', 'the embedder\'s vector', b.vector, dim));
    const vectors = fresh.map((b, i) => this.#averaged(b.no, raws[i]!));
    const edges = this.#repo.transaction('enrichment', () => {
      if (this.#repo.getMeta('dim') === null && vectors[0]) this.#repo.setMeta('dim', String(vectors[0].length));
      fresh.forEach((b, i) => this.#repo.setVector(b.no, vectors[i]!, vectors[i] === raws[i] ? null : raws[i]!));
      return this.#insertEdges(this.#autoEdgeDrafts([], new Map(fresh.map((b, i) => [b.no, vectors[i]!]))));
    });
    fresh.forEach((b, i) => this.#indexes.setVector(b.no, vectors[i]!));
    this.#indexEdges(edges);
  }

  /**
   * The vector `no` is searched by: its raw vector, or with neighbour averaging on, that vector
   * pulled toward the raw vectors of its nearest indexed neighbours.
   */
  #averaged(no: number, raw: Float32Array): Float32Array {
    const averaging = this.#indexes.neighbourAveraging;
    const index = this.#indexes.vector;
    if (!averaging || !index || index.size === 0) return raw;
    const neighbours = index
      .search(raw, averaging.k, (n) => n !== no)
      .map((hit) => this.#repo.rawVector(hit.no))
      .filter((v): v is Float32Array => v !== undefined);
    return averageWithNeighbours(raw, neighbours, averaging.weight);
  }

  relate(fromId: unknown, toId: unknown, type: unknown, options: unknown): string {
    const draft = this.#draftEdge('relate', checkEdgeSpec('relate', fromId, toId, type, options));
    if (this.#repo.edgeBetween(draft.src, draft.dst, draft.type)) throw this.#edgeExists('relate', draft);
    return this.commitEdges('relate', [draft])[0]!;
  }

  /** Many edges in one transaction: all or nothing. */
  relateMany(edges: unknown): string[] {
    const method = 'relateMany';
    const drafts = checkEdgeSpecs(method, edges).map((spec) => this.#draftEdge(method, spec));
    // One lookup for the whole batch rather than one query per edge.
    const existing = this.#repo.existingEdges(drafts);
    const clash = existing.size > 0 && drafts.find((d) => existing.has(edgeKey(d)));
    if (clash) throw this.#edgeExists(method, clash);
    return this.commitEdges(method, drafts);
  }

  /**
   * Writes checked edges in one transaction. A SUPERSEDES edge closes the older fact when the
   * newer one became true, unless it had already ended; the prior end is kept on the edge so
   * removing the edge can reopen it.
   */
  commitEdges(method: string, drafts: EdgeRow[]): string[] {
    const rows = this.#repo.transaction(method, () => this.#insertEdges(drafts));
    this.#indexEdges(rows);
    return rows.map((r) => r.id);
  }

  /**
   * The drafts, numbered as they go in. Each was made for this write alone (`#draftEdge`,
   * `#autoEdgeDrafts`) and is dropped if it fails, so it becomes the row instead of being copied
   * twice (50k edges: two objects each that lived through the whole batch).
   */
  #insertEdges(drafts: EdgeRow[]): EdgeRow[] {
    for (const edge of drafts) {
      if (edge.type !== EDGE_TYPES.SUPERSEDES) continue;
      const newer = this.#repo.memoryByNo(edge.src)!;
      const older = this.#repo.memoryByNo(edge.dst)!;
      const startsAt = Number(newer.valid_from);
      if (older.valid_to === null || Number(older.valid_to) > startsAt) {
        edge.closes_valid_to = 1;
        edge.prior_valid_to = older.valid_to === null ? null : Number(older.valid_to);
        this.#repo.setValidTo(edge.dst, closingTime(newer, older));
      }
    }
    const nos = this.#repo.insertEdges(drafts);
    for (let i = 0; i < drafts.length; i++) drafts[i]!.no = nos[i]!;
    return drafts;
  }

  #indexEdges(rows: readonly EdgeRow[]): void {
    for (const row of rows) {
      this.#indexes.addEdge(row);
      if (row.closes_valid_to) this.#indexes.catalog.set(this.#repo.memoryByNo(row.dst)!);
    }
  }

  #edgeExists(method: string, e: Pick<EdgeRow, 'src' | 'dst' | 'type'>): HybridMindError {
    const id = (no: number) => JSON.stringify(this.#indexes.catalog.entry(no).id);
    return new HybridMindError('CONFLICT', method, `a ${e.type} edge from ${id(e.src)} to ${id(e.dst)} already exists`);
  }

  /** A checked edge with its ends looked up, numbered when it is inserted. */
  #draftEdge(method: string, spec: EdgeSpec): EdgeRow {
    const from = this.#indexes.catalog.requireNo(method, spec.fromId);
    const to = this.#indexes.catalog.requireNo(method, spec.toId);
    const validFrom = spec.validFrom ?? this.#indexes.catalog.entry(from).validFrom;
    return { no: 0, id: newId(), src: from, dst: to, type: spec.type, weight: spec.weight, metadata: spec.metadata, valid_from: validFrom, created_at: this.#now(), closes_valid_to: 0, prior_valid_to: null };
  }

  unrelate(edgeId: unknown): void {
    const id = checkId('unrelate', 'edgeId', edgeId);
    const edge = this.#repo.edgeById(id);
    if (!edge) throw notFound('unrelate', 'edge', id);
    this.#repo.transaction('unrelate', () => this.#dropEdge(edge));
    this.#afterEdgeDropped(edge);
  }

  /** Removes the edges the store drew itself (of one kind, or all) in one transaction; returns how many. */
  removeAutoEdges(by: string | null): number {
    const edges = this.#repo.autoEdges(by);
    this.#repo.transaction('removeAutoEdges', () => {
      for (const edge of edges) this.#dropEdge(edge);
    });
    for (const edge of edges) this.#afterEdgeDropped(edge);
    return edges.length;
  }

  update(id: unknown, patch: unknown): void {
    const no = this.#indexes.catalog.requireNo('update', checkId('update', 'id', id));
    const before = this.#repo.memoryByNo(no)!;
    const { row, vector } = applyPatch('update', before, patch, this.#dim);
    const textChanged = row.text !== before.text;
    const stored = vector && this.#averaged(no, vector);
    this.#repo.transaction('update', () => {
      this.#repo.updateMemory(row);
      if (vector && stored) this.#repo.setVector(no, stored, stored === vector ? null : vector);
      else if (textChanged) this.#repo.deleteVector(no);
    });
    this.#indexes.updateMemory(before, row);
    if (stored) {
      this.#enrichment?.cancel(no);
      this.#indexes.setVector(no, stored);
    } else if (textChanged) {
      this.#indexes.vector?.remove(no);
      this.#enrichment?.enqueue([no]);
    }
  }

  forget(id: unknown): void {
    const no = this.#indexes.catalog.requireNo('forget', checkId('forget', 'id', id));
    const { text } = this.#repo.memoryByNo(no)!;
    const edges = this.#repo.edgesOf(no);
    this.#repo.transaction('forget', () => {
      for (const edge of edges) this.#dropEdge(edge);
      this.#repo.deleteMemory(no);
    });
    for (const edge of edges) this.#afterEdgeDropped(edge);
    this.#enrichment?.cancel(no);
    this.#indexes.removeMemory(no, text);
  }

  /** Removing a supersession reopens the older fact, unless its validity was edited since. */
  #dropEdge(edge: EdgeRow): void {
    this.#repo.deleteEdge(edge.no);
    if (!edge.closes_valid_to) return;
    const target = this.#repo.memoryByNo(Number(edge.dst));
    const source = this.#repo.memoryByNo(Number(edge.src));
    if (target && source && target.valid_to !== null && Number(target.valid_to) === closingTime(source, target)) {
      this.#repo.setValidTo(Number(edge.dst), edge.prior_valid_to);
    }
  }

  #afterEdgeDropped(edge: EdgeRow): void {
    this.#indexes.removeEdge(edge);
    const target = this.#repo.memoryByNo(Number(edge.dst));
    if (target) this.#indexes.catalog.set(target);
  }
}

/** An edge's identity: at most one edge of a type from one memory to another. */
export function edgeKey(e: Pick<EdgeRow, 'src' | 'dst' | 'type'>): string {
  return `${e.src}:${e.dst}:${e.type}`;
}

/** When a supersession ends the older fact: as the newer one starts, but never before the older began. */
export function closingTime(newer: MemoryRow, older: MemoryRow): number {
  return Math.max(Number(newer.valid_from), Number(older.valid_from) + 1);
}
