/**
 * The library's own legs: the exact WASM-SIMD scan with HNSW past a threshold, BM25 scored as
 * minisearch, graphology for typed edges and the entity graph. Entry points hand this to the
 * memory core, which sees the legs only through `LegFactory`.
 */
import { EntityIndex } from './graph/entity-index.js';
import { GraphIndex } from './graph/graph-index.js';
import { Bm25Index } from './lexical/bm25-index.js';
import type { LegChoice, LegFactory } from './types.js';
import { AdaptiveVectorIndex } from './vector/adaptive-index.js';
import { FlatVectorIndex } from './vector/flat-index.js';
import { loadVectorKernel } from './vector/kernel.js';

export async function defaultLegs({ vectorKernel, ann, vectorThreads, logger }: LegChoice): Promise<LegFactory> {
  const kernel = vectorKernel === false ? null : await loadVectorKernel(vectorKernel, logger, { threads: vectorThreads !== false });
  return {
    vector(dim, saved, read) {
      const flat = new FlatVectorIndex(dim, kernel);
      // Without HNSW the adaptive index never leaves the exact scan; it still opens it from saved codes.
      if (ann === false) return read ? new AdaptiveVectorIndex(flat, { threshold: Infinity }, { logger, read }) : flat;
      return new AdaptiveVectorIndex(flat, ann ?? {}, { store: saved, logger, ...(read ? { read } : {}) });
    },
    lexical: () => new Bm25Index(),
    loadLexical: (bytes) => Bm25Index.load(bytes, { logger }),
    graph: (nodes) => new GraphIndex(nodes),
    entities: () => new EntityIndex(),
    loadEntities: (bytes) => EntityIndex.load(bytes),
  };
}
