import type { Embedder } from '../embedder/types.js';
import { HybridMindError } from '../errors.js';
import type { Repository } from '../storage/repository.js';

/**
 * A store remembers its vector dimension and embedder; opening it with others would mix
 * incomparable vectors, so that is refused rather than padded or truncated — unless the caller
 * asks to re-embed, which drops the old vectors and adopts the new model.
 */
export function reconcileModel(method: string, repo: Repository, embedder: Embedder | null, requestedDim: number | null, reembed: boolean): number | null {
  const storedDim = repo.getMeta('dim');
  const storedModel = repo.getMeta('embedder_id');
  const dimDiffers = storedDim !== null && requestedDim !== null && Number(storedDim) !== requestedDim;
  const modelDiffers = embedder !== null && storedModel !== null && storedModel !== embedder.id;
  if ((dimDiffers || modelDiffers) && reembed && embedder) {
    dropVectors(method, repo, embedder);
    return embedder.dim;
  }
  if (dimDiffers) throw new HybridMindError('DIMENSION_MISMATCH', method, `the store holds ${storedDim}-d vectors, received dim ${requestedDim}; pass reembed: true to re-embed with the new model`);
  if (modelDiffers) {
    throw new HybridMindError('MODEL_MISMATCH', method, `the store's vectors come from ${JSON.stringify(storedModel)}, received embedder ${JSON.stringify(embedder!.id)}; pass reembed: true to re-embed with it`);
  }
  const dim = storedDim === null ? requestedDim : Number(storedDim);
  repo.transaction(method, () => {
    if (storedDim === null && dim !== null) repo.setMeta('dim', String(dim));
    if (embedder && storedModel === null) repo.setMeta('embedder_id', embedder.id);
  });
  return dim;
}

/** Forgets every vector (and the ANN bytes built from them) and records the embedder that will redo them. */
export function dropVectors(method: string, repo: Repository, embedder: Embedder): void {
  repo.transaction(method, () => {
    repo.deleteAllVectors();
    repo.setMeta('dim', String(embedder.dim));
    repo.setMeta('embedder_id', embedder.id);
  });
}
