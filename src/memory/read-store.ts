import { readCatalogRows, readEdges, readTexts, readVectors, type CatalogRow } from '../storage/bulk-read.js';
import type { EdgeRow, Repository } from '../storage/repository.js';

/** A store's rows as an open reads them: the catalog and edges at once, texts and vectors on demand. */
export interface StoreRows {
  catalog: CatalogRow[];
  edges: EdgeRow[];
  texts(): Map<number, string>;
  vectors(): Array<{ no: number; vector: Float32Array }>;
}

/**
 * Reads in bulk (see `bulk-read.ts`); a database the bulk reads refuse (a value JSON cannot carry,
 * vectors of mixed widths) is read row by row instead, as it always was, so it opens exactly as before.
 */
export function readAll(repo: Repository): StoreRows {
  const db = repo.db;
  try {
    const catalog = readCatalogRows(db);
    const edges = readEdges(db);
    return {
      catalog,
      edges,
      texts: () => fallback(() => readTexts(db), () => new Map(repo.allMemories().map((m) => [m.no, m.text]))),
      vectors: () => {
        const dim = repo.getMeta('dim');
        return dim === null ? repo.allVectors() : fallback(() => readVectors(db, Number(dim) * 4), () => repo.allVectors());
      },
    };
  } catch {
    const memories = repo.allMemories();
    return { catalog: memories, edges: repo.allEdges(), texts: () => new Map(memories.map((m) => [m.no, m.text])), vectors: () => repo.allVectors() };
  }
}

function fallback<T>(fast: () => T, slow: () => T): T {
  try {
    return fast();
  } catch {
    return slow();
  }
}
