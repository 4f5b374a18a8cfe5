import { fallback, readCatalogRows, readGraphEdges, readTexts, readVectors, type CatalogRow, type GraphEdgeRow } from '../storage/bulk-read.js';
import type { MemoryRow, Repository } from '../storage/repository.js';

export type PackedAdd = (nos: ArrayLike<number>, vectors: Float32Array) => void;

/** A store's rows as an open reads them, each when asked. */
export interface StoreRows {
  catalog(): CatalogRow[];
  edges(): GraphEdgeRow[];
  texts(): Map<number, string>;
  /** Hands every vector to `add`, in chunks laid back to back (see `readVectors`). */
  vectors(add: PackedAdd): void;
}

/**
 * Reads in bulk (see `bulk-read.ts`); what the bulk reads refuse (a value JSON cannot carry,
 * vectors of mixed widths) is read row by row instead, as it always was, so it opens exactly as
 * before. Nothing is read until asked: an open with its saved catalog never reads the rows.
 */
export function readAll(repo: Repository): StoreRows {
  const db = repo.db;
  let memories: MemoryRow[] | null = null;
  const allMemories = (): MemoryRow[] => (memories ??= repo.allMemories());
  return {
    catalog: () => fallback(() => readCatalogRows(db), allMemories),
    edges: () => fallback(() => readGraphEdges(db), () => repo.allEdges()),
    texts: () => fallback(() => readTexts(db), () => new Map(allMemories().map((m) => [m.no, m.text]))),
    vectors: (add) => {
      const dim = repo.getMeta('dim');
      // A chunk added before the bulk read gave up is added again row by row: `add` replaces.
      if (dim === null) rowByRow(repo, add);
      else fallback(() => readVectors(db, Number(dim) * 4, add), () => rowByRow(repo, add));
    },
  };
}

function rowByRow(repo: Repository, add: PackedAdd): void {
  for (const { no, vector } of repo.allVectors()) add([no], vector);
}
