/**
 * Σ vᵢ², summed in f64: squares of f32 values cannot overflow it, so it is finite exactly when every
 * component is, and one pass both checks a vector and measures it. Four running sums rather than
 * one: a single chain of dependent additions set the pace (100k vectors of 384: 80 → 42 ms).
 */
export function squaredNorm(vector: Float32Array): number {
  const n = vector.length;
  const whole = n & ~3;
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let i = 0;
  for (; i < whole; i += 4) {
    const x = vector[i]!;
    const y = vector[i + 1]!;
    const z = vector[i + 2]!;
    const w = vector[i + 3]!;
    a += x * x;
    b += y * y;
    c += z * z;
    d += w * w;
  }
  for (; i < n; i++) a += vector[i]! * vector[i]!;
  return a + b + (c + d);
}

/**
 * Writes `vector` scaled to unit L2 length into `out` (`vector` itself to scale in place), given
 * its {@link squaredNorm}, finite and not zero; returns `out`. Four components per turn: V8 spent
 * as long on the loop as on the products (100k vectors of 384: 158 → 80 ms).
 */
export function normalizeInto(vector: Float32Array, norm: number, out: Float32Array): Float32Array {
  const inv = 1 / Math.sqrt(norm);
  const n = vector.length;
  const whole = n & ~3;
  let i = 0;
  for (; i < whole; i += 4) {
    out[i] = vector[i]! * inv;
    out[i + 1] = vector[i + 1]! * inv;
    out[i + 2] = vector[i + 2]! * inv;
    out[i + 3] = vector[i + 3]! * inv;
  }
  for (; i < n; i++) out[i] = vector[i]! * inv;
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

/** Numbers per block of a batch's vectors (256 KiB). */
const MAX_BLOCK = 65_536;

/**
 * Float32Arrays cut from shared blocks, for the vectors of one write batch of `count` inputs: a
 * typed array of its own costs a backing store each (~1.2 µs per 384-d vector in V8, more than
 * checking it) and external memory the collector chases. A block holds what is left of the batch,
 * up to `maxBlock` numbers, so a batch of one takes no more than its vector. Only for vectors whose
 * readers copy what they keep: one view kept alive holds its whole block. `blockOf` gives the
 * batch's `index`th block with room for at least `size` numbers (see `lendSlab`).
 */
export function slab(count: number, maxBlock = MAX_BLOCK, blockOf: (index: number, size: number) => Float32Array = freshBlock): (length: number) => Float32Array {
  let block: Float32Array = new Float32Array(0);
  let blocks = 0;
  let used = 0;
  let left = count;
  return (length) => {
    if (used + length > block.length) {
      block = blockOf(blocks++, Math.max(length, Math.min(maxBlock, left * length)));
      used = 0;
    }
    used += length;
    left--;
    return block.subarray(used - length, used);
  };
}

/** Blocks kept for the next batch: 4 MiB, a batch of ~2,700 384-d vectors, in the whole process. */
const KEPT_BLOCKS = 16;
const kept: Float32Array[] = [];
let lent = false;

function freshBlock(_index: number, size: number): Float32Array {
  return new Float32Array(size);
}

function keptBlock(index: number, size: number): Float32Array {
  const block = kept[index];
  if (block !== undefined && block.length >= size) return block;
  const fresh = new Float32Array(size);
  if (index < KEPT_BLOCKS) kept[index] = fresh;
  return fresh;
}

/**
 * A `slab` over blocks the last batch used, and `done` to give them back: what a write reads its
 * batch's vectors into when every reader copies them before the write returns. Fresh blocks for
 * each batch live as long as the write, long enough to reach V8's old generation, so they are
 * freed only by a full collection; by then tens of MiB of them were in the C allocator's heap,
 * which keeps the freed pages resident. While one batch holds the blocks (a write started from
 * another's progress callback) the next gets fresh ones.
 */
export function lendSlab(count: number): { take: (length: number) => Float32Array; done: () => void } {
  if (lent) return { take: slab(count), done: () => undefined };
  lent = true;
  return { take: slab(count, MAX_BLOCK, keptBlock), done: () => {
    lent = false;
  } };
}
