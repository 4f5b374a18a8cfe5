import { GraphIndex } from '../legs/graph/graph-index.js';
import { Bm25Index } from '../legs/lexical/bm25-index.js';
import { FlatVectorIndex } from '../legs/vector/flat-index.js';
import type { VectorKernel } from '../legs/vector/kernel.js';
import type { LexicalIndex, VectorIndex } from '../legs/types.js';
import type { EdgeRow, MemoryRow, Repository } from '../storage/repository.js';
import { Catalog } from './catalog.js';
import type { RecallParts } from './recall.js';

/**
 * The in-memory side of a store: catalog and the four legs' indexes. They are derived from SQLite
 * and only ever changed after a commit, so a failed write never leaves them ahead of the truth.
 */
export class Indexes implements RecallParts {
  readonly catalog = new Catalog();
  readonly lexical: LexicalIndex = new Bm25Index();
  readonly graph = new GraphIndex();
  vector: VectorIndex | null = null;
  readonly repository: Repository;
  readonly #kernel: VectorKernel | null;

  constructor(repository: Repository, kernel: VectorKernel | null, dim: number | null) {
    this.repository = repository;
    this.#kernel = kernel;
    if (dim !== null) this.vector = new FlatVectorIndex(dim, kernel);
  }

  /** Rebuilds every index from SQLite (open, import). */
  rebuild(): void {
    for (const row of this.repository.allMemories()) this.addMemory(row);
    for (const edge of this.repository.allEdges()) this.addEdge(edge);
    const vectors = this.repository.allVectors();
    if (vectors.length > 0) {
      const index = this.ensureVectorIndex(vectors[0]!.vector.length);
      for (const { no, vector } of vectors) index.add(no, vector);
    }
  }

  ensureVectorIndex(dim: number): VectorIndex {
    if (!this.vector) this.vector = new FlatVectorIndex(dim, this.#kernel);
    return this.vector;
  }

  addMemory(row: MemoryRow): void {
    this.catalog.set(row);
    this.lexical.add(row.no, row.text);
    this.graph.addNode(row.no);
  }

  /** After an update: the text is re-indexed only when it changed. */
  updateMemory(before: MemoryRow, after: MemoryRow): void {
    this.catalog.set(after);
    if (before.text !== after.text) this.lexical.add(after.no, after.text);
  }

  removeMemory(no: number): void {
    this.catalog.delete(no);
    this.lexical.remove(no);
    this.graph.removeNode(no);
    this.vector?.remove(no);
  }

  addEdge(edge: EdgeRow): void {
    this.graph.addEdge(edge.id, Number(edge.src), Number(edge.dst), {
      type: edge.type,
      weight: Number(edge.weight),
      createdAt: Number(edge.created_at),
    });
  }

  setVector(no: number, vector: Float32Array): void {
    this.ensureVectorIndex(vector.length).add(no, vector);
  }

  clear(): void {
    this.catalog.clear();
    this.lexical.clear();
    this.graph.clear();
    this.vector?.clear();
  }
}
