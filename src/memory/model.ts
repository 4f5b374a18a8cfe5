import type { Embedder } from '../embedder/types.js';
import { HybridMindError } from '../errors.js';
import type { Repository } from '../storage/repository.js';

/** Vectors someone already holds (a store, a snapshot, an embedder's output), as messages name them. */
export interface HeldModel {
  /** e.g. 'the store', 'the snapshot'. */
  holder: string;
  dim: number | null;
  embedderId: string | null;
}

/** What a caller brings: an explicit `dim` and/or an embedder (whose dim counts when `dim` is absent). */
export interface WantedModel {
  dim?: number | undefined;
  /** What the explicit `dim` is, in messages. Default `'options.dim'`. */
  dimFrom?: string | undefined;
  embedder: Pick<Embedder, 'id' | 'dim'> | null;
}

/**
 * The one model rule, for every door vectors come through (open, restore, snapshot import,
 * `open()`'s own options, Postgres): vectors of one dimension from one embedder. Returns the
 * refusal (DIMENSION_MISMATCH before MODEL_MISMATCH), or null when `wanted` fits `held`;
 * `hint` says how to get past it where there is a way.
 */
export function modelConflict(method: string, held: HeldModel, wanted: WantedModel, hint = ''): HybridMindError | null {
  const { embedder } = wanted;
  const dim = wanted.dim ?? embedder?.dim ?? null;
  if (held.dim !== null && dim !== null && held.dim !== dim) {
    const source = wanted.dim !== undefined ? `${wanted.dimFrom ?? 'options.dim'} ${dim}` : `the embedder ${JSON.stringify(embedder!.id)}, which makes ${dim}-d vectors`;
    return new HybridMindError('DIMENSION_MISMATCH', method, `${held.holder} holds ${held.dim}-d vectors, received ${source}${hint}`);
  }
  if (embedder && held.embedderId !== null && held.embedderId !== embedder.id) {
    return new HybridMindError('MODEL_MISMATCH', method, `${held.holder}'s vectors come from ${JSON.stringify(held.embedderId)}, received embedder ${JSON.stringify(embedder.id)}${hint}`);
  }
  return null;
}

/**
 * A store remembers its vector dimension and embedder; opening it with others would mix
 * incomparable vectors, so that is refused rather than padded or truncated — unless the caller
 * asks to re-embed, which drops the old vectors and adopts the new model.
 */
export function reconcileModel(method: string, repo: Repository, wanted: WantedModel, reembed: boolean): number | null {
  const storedDim = repo.getMeta('dim');
  const storedModel = repo.getMeta('embedder_id');
  const { embedder } = wanted;
  const conflict = modelConflict(method, { holder: 'the store', dim: storedDim === null ? null : Number(storedDim), embedderId: storedModel }, wanted, '; pass reembed: true to re-embed with the new model');
  if (conflict && reembed && embedder) {
    dropVectors(method, repo, embedder);
    return embedder.dim;
  }
  if (conflict) throw conflict;
  const requestedDim = wanted.dim ?? embedder?.dim ?? null;
  const dim = storedDim === null ? requestedDim : Number(storedDim);
  const recordDim = storedDim === null && dim !== null;
  const recordModel = embedder !== null && embedder !== undefined && storedModel === null;
  // A store that records both already opens without a write: even an empty transaction made a cold
  // open run (and, in a fresh worker, compile) SQLite's write path, ~5 ms of a 100k store's connect.
  if (recordDim || recordModel) {
    repo.transaction(method, () => {
      if (recordDim) repo.setMeta('dim', String(dim));
      if (recordModel) repo.setMeta('embedder_id', embedder.id);
    });
  }
  return dim;
}

/** Forgets every vector (and the ANN bytes built from them) and records the embedder that will redo them. */
export function dropVectors(method: string, repo: Repository, embedder: Pick<Embedder, 'id' | 'dim'>): void {
  repo.transaction(method, () => {
    repo.deleteAllVectors();
    repo.setMeta('dim', String(embedder.dim));
    repo.setMeta('embedder_id', embedder.id);
  });
}
