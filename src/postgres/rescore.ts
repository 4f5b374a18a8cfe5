import { FlatVectorIndex } from '../legs/vector/flat-index.js';
import type { Scored } from '../legs/types.js';

/**
 * pgvector's candidates scored again by the embedded store's own exact scan (the same float32
 * SIMD kernel), so both engines give a memory the same cosine to the last bit: pgvector sums in
 * another order, and near-duplicates 1e-8 apart tie in one engine and not the other, which moves
 * ranks and so rank fusion. One scratch index per memory, filled, read and emptied without
 * yielding, so concurrent recalls never see each other's candidates.
 */
export class Rescorer {
  #index: Promise<FlatVectorIndex> | null = null;

  async score(query: Float32Array, candidates: ReadonlyArray<{ no: number; vector: Float32Array }>): Promise<Scored[]> {
    if (candidates.length === 0) return [];
    this.#index ??= FlatVectorIndex.create(query.length);
    const index = await this.#index;
    for (const c of candidates) index.add(c.no, c.vector);
    const scored = index.search(query, candidates.length);
    index.clear();
    return scored;
  }
}
