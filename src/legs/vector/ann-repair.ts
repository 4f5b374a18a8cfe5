/**
 * Bringing a saved HNSW graph up to date with the vectors a store holds now, instead of building
 * it again: the vectors removed since the save are marked deleted, the added or changed ones
 * added again. The saved graph's per-vector digest entries (ANN format version 2 on) say which.
 */
import type { AnnRecord, VectorDigest } from './ann-format.js';
import type { FlatVectorIndex } from './flat-index.js';
import type { HnswParams } from './hnsw-index.js';

/** Share of a graph's slots that removed vectors may hold before a rebuild pays off. */
export const REBUILD_DELETED_RATIO = 0.25;
/**
 * Share of the vectors a saved graph may lack and still be brought up to date instead of rebuilt:
 * adding a vector to the graph costs about what it cost in the build, so past half the saving is small.
 */
const REPAIR_MAX_SHARE = 0.5;

export interface Repair {
  /** Saved vectors no longer held: marked deleted. */
  removed: number[];
  /** Vectors held that the saved graph lacks or holds with an older vector: added again. */
  pending: number[];
}

/**
 * What brings a saved graph (`record`) to the vectors held now (`digest`, `flat`); null when the
 * bytes carry no per-vector entries (version 1), or when a rebuild costs about as much: more than
 * `REPAIR_MAX_SHARE` of the vectors to add, or more deleted slots than a rebuild would tolerate.
 */
export function planRepair(record: AnnRecord, digest: VectorDigest, flat: FlatVectorIndex): Repair | null {
  const entries = record.entries;
  if (entries === null) return null;
  const saved = new Set<number>();
  const removed: number[] = [];
  const pending: number[] = [];
  record.nos.forEach((no, i) => {
    saved.add(no);
    if (digest.holds(no, entries[2 * i]!, entries[2 * i + 1]!)) return;
    if (flat.has(no)) pending.push(no);
    else removed.push(no);
  });
  for (const no of flat.nos()) if (!saved.has(no)) pending.push(no);
  const slots = record.nos.length + record.deleted.length;
  if (pending.length > REPAIR_MAX_SHARE * flat.size || (record.deleted.length + removed.length) > REBUILD_DELETED_RATIO * slots) return null;
  return { removed, pending };
}

/**
 * How a saved graph serves the vectors held now: as it is (nothing removed, nothing pending), after
 * `planRepair`'s repair, or not at all (null) when it was built for other dimensions or build
 * parameters, or when a rebuild costs about what the repair would.
 */
export function planRestore(record: AnnRecord, dim: number, params: Pick<HnswParams, 'm' | 'efConstruction'>, digest: VectorDigest, flat: FlatVectorIndex): Repair | null {
  if (record.dim !== dim || record.params.m !== params.m || record.params.efConstruction !== params.efConstruction) return null;
  if (record.nos.length === flat.size && digest.equals(record.digest)) return { removed: [], pending: [] };
  return planRepair(record, digest, flat);
}
