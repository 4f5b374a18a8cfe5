/**
 * Σ vᵢ², summed in f64: squares of f32 values cannot overflow it, so it is finite exactly when every
 * component is, and one pass both checks a vector and measures it.
 */
export function squaredNorm(vector: Float32Array): number {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  return norm;
}

/**
 * Writes `vector` scaled to unit L2 length into `out` (`vector` itself to scale in place), given
 * its {@link squaredNorm}, finite and not zero; returns `out`.
 */
export function normalizeInto(vector: Float32Array, norm: number, out: Float32Array): Float32Array {
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! * inv;
  return out;
}

/**
 * Scales `vector` in place to unit L2 length, which makes inner product the cosine every dense
 * leg ranks by. A zero vector has no direction: it is left as it is and false is returned.
 */
export function normalizeInPlace(vector: Float32Array): boolean {
  const norm = squaredNorm(vector);
  if (norm === 0) return false;
  normalizeInto(vector, norm, vector);
  return true;
}

/**
 * Float32Arrays cut from shared blocks, for the vectors of one write batch of `count` inputs: a
 * typed array of its own costs a backing store each (~1.2 µs per 384-d vector in V8, more than
 * checking it) and external memory the collector chases. A block holds what is left of the batch,
 * up to `maxBlock` numbers, so a batch of one takes no more than its vector. Only for vectors whose
 * readers copy what they keep: one view kept alive holds its whole block.
 */
export function slab(count: number, maxBlock = 65_536): (length: number) => Float32Array {
  let block = new Float32Array(0);
  let used = 0;
  let left = count;
  return (length) => {
    if (used + length > block.length) {
      block = new Float32Array(Math.max(length, Math.min(maxBlock, left * length)));
      used = 0;
    }
    used += length;
    left--;
    return block.subarray(used - length, used);
  };
}
