/**
 * Scales `vector` in place to unit L2 length, which makes inner product the cosine every dense
 * leg ranks by. A zero vector has no direction: it is left as it is and false is returned.
 */
export function normalizeInPlace(vector: Float32Array): boolean {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  if (norm === 0) return false;
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * inv;
  return true;
}
