import { messageOf } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { VectorReader } from '../types.js';
import type { FlatVectorIndex } from './flat-index.js';
import { afterOpen, nextSlice, now, SLICE_MS } from '../../util/slices.js';

export interface ReadBackControl {
  /** Asked before every slice: false stops the read-back (HNSW started, the scan outgrew its copies, the index was cleared). */
  wanted(): boolean;
  /**
   * Whether this read-back still owns the half-read copies when it stops: a later one (after a
   * clear and another adoption) may have taken over, and its copies must not be dropped.
   */
  owns(): boolean;
  /** Called once when the read-back ends, however it ends. */
  finish(): void;
}

/**
 * Reads a released flat scan's f32 copies back from the store in time slices, so searches (a
 * worker's first query after an open) are answered between them, re-scoring from the store
 * meanwhile. A read-back that stops part way drops its half-read copies, which would only take
 * memory; one that fails leaves the scan released, still exact, only slower.
 */
export function readBackLater(flat: FlatVectorIndex, read: VectorReader, logger: Logger, control: ReadBackControl): void {
  const started = now();
  const slice = () => {
    if (!control.wanted() || !flat.released) {
      if (!control.owns()) return;
      if (flat.residing) flat.release(read);
      return control.finish();
    }
    let step: ReturnType<FlatVectorIndex['resideSome']>;
    try {
      const until = now() + SLICE_MS;
      do step = flat.resideSome();
      while (step === 'more' && now() < until);
    } catch (error) {
      // Nothing awaits this; the released scan still answers exactly, only slower.
      logger('warn', `dense leg: reading the vectors back failed, it keeps re-scoring from the store: ${messageOf(error)}`);
      return control.finish();
    }
    if (step === 'more') return nextSlice(slice);
    if (step === 'done') logger('debug', `dense leg: read ${flat.size} vectors back in ${(now() - started).toFixed(0)} ms`, { vectors: flat.size });
    else logger('warn', 'the store lacks vectors the dense leg holds; it keeps re-scoring from the store');
    control.finish();
  };
  afterOpen(slice);
}
