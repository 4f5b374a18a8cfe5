import { messageOf } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { VectorReader } from '../types.js';
import type { VectorDigest } from './ann-format.js';
import type { FlatVectorIndex } from './flat-index.js';
import { afterOpen, inSlices, now, partSpent } from '../../util/slices.js';

/** Vectors read from the store per statement. */
const BATCH = 512;

export interface DigestFillControl {
  /** Asked before every slice: false stops the fill (the index was cleared, disposed or failed). */
  wanted(): boolean;
  /** Called once when the fill ends by itself: with null when every held vector has its entry, else why not. */
  finish(error: Error | null): void;
}

/**
 * Gives `digest` an entry for every vector `flat` holds, reading them from the store in time
 * slices after an open. Saved codes without digest entries (a store written with `ann: false`)
 * are adopted as they are, so an open that may build HNSW still answers from them at once; only
 * the graph, which is checked and saved against the digest, waits for this. Vectors written
 * meanwhile get their entries from `add`, removed ones are passed over. One buffer takes every
 * batch: with one of 768 KiB per batch (150 MB for 100k vectors), glibc's heap 4 s after the open
 * read 80–85 MiB instead of 76–79 (three runs each).
 */
export function fillDigestLater(digest: VectorDigest, flat: FlatVectorIndex, read: VectorReader, logger: Logger, control: DigestFillControl): void {
  const nos = flat.nos();
  const dim = flat.dim;
  const buffer = new Float32Array(BATCH * dim);
  const started = now();
  let next = 0;
  let failure: Error | null = null;
  const step = (until: number): boolean => {
    try {
      for (let k = 0; next < nos.length && !partSpent(k, until, 1); k++) {
        const batch = nos.slice(next, next + BATCH).filter((no) => flat.has(no) && !digest.has(no));
        next += BATCH;
        read(batch, buffer.subarray(0, batch.length * dim));
        for (let i = 0; i < batch.length; i++) {
          const vector = buffer.subarray(i * dim, (i + 1) * dim);
          // The reader leaves NaN where the store has no vector; a stored one is finite.
          if (Number.isNaN(vector[0])) throw new Error(`the store lacks the vector of memory no ${batch[i]}, which the dense leg holds`);
          digest.set(batch[i]!, vector);
        }
      }
    } catch (error) {
      failure = new Error(`computing the digest of the saved vectors failed: ${messageOf(error)}`);
      return false;
    }
    return next < nos.length;
  };
  inSlices(step, () => control.wanted(), () => {
    if (failure === null) logger('debug', `dense leg: read ${nos.length} vectors for their digest in ${(now() - started).toFixed(0)} ms`, { vectors: nos.length });
    control.finish(failure);
  }, afterOpen);
}
