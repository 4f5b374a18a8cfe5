/** The length checks of vectors handed to an index: one, or in bulk (`nos.length` vectors of `dim` numbers back to back in one array). */
import { HybridMindError, show } from '../../errors.js';

/** Throws unless `vector` holds `dim` numbers. */
export function checkVector(method: string, vector: Float32Array, dim: number): void {
  const length = (vector as { length?: unknown } | null | undefined)?.length;
  if (length !== dim) {
    throw new HybridMindError('DIMENSION_MISMATCH', method, `expected a vector of length ${dim}, received length ${show(length)}`);
  }
}

/** Throws unless `vectors` holds exactly `nos.length` vectors of `dim` numbers. */
export function checkPacked(method: string, nos: ArrayLike<number>, vectors: Float32Array, dim: number): void {
  const length = (vectors as { length?: unknown } | null | undefined)?.length;
  if (length !== nos.length * dim) {
    throw new HybridMindError('DIMENSION_MISMATCH', method, `expected ${nos.length} vectors of length ${dim} (${nos.length * dim} numbers), received length ${show(length)}`);
  }
}
