/**
 * The int8 first pass of the exact scan. Each vector `v` is kept as `scale · codes + e` (i8 codes,
 * zero-padded to a multiple of 16), the query `q` as `qScale · qCodes + f` (i16 codes), and their
 * exact integer inner product estimates `q·v`. The estimate is off by at most
 *
 *     |q·e| + |f·(scale · codes)| ≤ ‖q‖·‖e‖ + ‖f‖·‖scale · codes‖          (Cauchy–Schwarz)
 *
 * and the f32 score the full-precision scan would compute is itself within `(dim + 8)·2⁻²³·‖q‖·‖v‖`
 * of `q·v`. Both terms are bounded per vector at insert time, so a vector whose estimate plus its
 * bound cannot reach the k-th best estimate minus its bound is provably outside the exact top k,
 * and only the rest are re-scored with the f32 kernel: the answer is the f32 scan's, bit for bit.
 */
import { heapPush } from '../../util/top-heap.js';

/** Fields of a vector's bound, `META` doubles per slot. */
export const META = 3;
const SCALE = 0;
/** Coefficient of ‖q‖: ‖e‖ plus the f32 rounding allowance. */
const QUERY_TERM = 1;
/** Coefficient of ‖f‖: ‖scale · codes‖. (`candidates` reads the three at these fixed offsets.) */
const CODE_TERM = 2;
const CODE_MAX = 127;
const I32_MAX = 0x7fff_ffff;
/** Covers the rounding of the bound's own f64 arithmetic, far below the f32 allowance. */
const INFLATE = 1 + 2 ** -20;

/**
 * Nearest integer, halves up. `Math.round` costs V8 about five times `Math.floor` here, and
 * quantizing is most of what an open does per vector (10k vectors: ~100 of ~600 ms). Where
 * `x + 0.5` rounds (x within 2⁻⁴⁶ below a half, |x| ≤ 2¹⁵) a code may land one step off `Math.round`'s;
 * the bound is computed from the code actually kept, so the scan stays exact.
 */
function round(x: number): number {
  return Math.floor(x + 0.5);
}

/** Bytes per quantized vector: `dim` rounded up to the kernel's 16-byte blocks. */
export function strideOf(dim: number): number {
  return (dim + 15) & ~15;
}

/**
 * Writes the i8 codes of `v` at `codes[at…at+stride)` and its bound into `meta` at `slot`. A vector
 * with a non-finite component gets an infinite bound, so every search re-scores it exactly.
 */
export function quantizeVector(v: Float32Array, codes: Int8Array, at: number, stride: number, meta: Float64Array, slot: number): void {
  const dim = v.length;
  let max = 0;
  // The f64 sum of f32 magnitudes cannot overflow: it is finite exactly when every component is,
  // which spares a test per component.
  let magnitudes = 0;
  for (let i = 0; i < dim; i++) {
    const a = Math.abs(v[i]!);
    magnitudes += a;
    if (a > max) max = a;
  }
  const m = slot * META;
  if (!Number.isFinite(magnitudes)) {
    codes.fill(0, at, at + stride);
    meta[m + SCALE] = 0;
    meta[m + QUERY_TERM] = Infinity;
    meta[m + CODE_TERM] = 0;
    return;
  }
  const scale = max / CODE_MAX;
  // A product per component, not a quotient: the code may land a step off the quotient's near a
  // half, and the bound is computed from the code kept, so the scan stays exact. No clamp: |x| is
  // at most `max`, so |x · inverse| stays under 127.5 and rounds into [−127, 127]. (Both took 40%
  // of quantizing 100k vectors: 200 → 112 ms.)
  const inverse = scale === 0 ? 0 : CODE_MAX / max;
  // Two components per turn, each with its own sums: the sums' order changes only their f64
  // rounding, which INFLATE covers.
  let error = 0;
  let error2 = 0;
  let coded = 0;
  let coded2 = 0;
  let norm = 0;
  let norm2 = 0;
  const pairs = dim & ~1;
  let i = 0;
  for (; i < pairs; i += 2) {
    const x = v[i]!;
    const y = v[i + 1]!;
    const c = round(x * inverse);
    const d = round(y * inverse);
    codes[at + i] = c;
    codes[at + i + 1] = d;
    const back = scale * c;
    const back2 = scale * d;
    const e = x - back;
    const f = y - back2;
    error += e * e;
    error2 += f * f;
    coded += back * back;
    coded2 += back2 * back2;
    norm += x * x;
    norm2 += y * y;
  }
  if (i < dim) {
    const x = v[i]!;
    const c = round(x * inverse);
    codes[at + i] = c;
    const back = scale * c;
    const e = x - back;
    error += e * e;
    coded += back * back;
    norm += x * x;
  }
  codes.fill(0, at + dim, at + stride);
  meta[m + SCALE] = scale;
  meta[m + QUERY_TERM] = (Math.sqrt(error + error2) + (dim + 8) * 2 ** -23 * Math.sqrt(norm + norm2)) * INFLATE;
  meta[m + CODE_TERM] = Math.sqrt(coded + coded2) * INFLATE;
}

/** A quantized query: its scale and the norms its bound needs; null when the int8 pass cannot help. */
export interface QueryCodes {
  scale: number;
  norm: number;
  errorNorm: number;
}

/**
 * Writes the i16 codes of `q` into `codes` (length `stride`). The code range is cut so that no
 * exact i32 sum over `stride` products with i8 codes can overflow. Returns null for a query with
 * a non-finite component or no length, which the full f32 scan handles.
 */
export function quantizeQuery(q: Float32Array, codes: Int16Array, stride: number): QueryCodes | null {
  const range = Math.min(32_767, Math.floor(I32_MAX / (stride * CODE_MAX)));
  let max = 0;
  for (let i = 0; i < q.length; i++) {
    const x = q[i]!;
    if (!Number.isFinite(x)) return null;
    if (Math.abs(x) > max) max = Math.abs(x);
  }
  if (max === 0) return null;
  const scale = max / range;
  codes.fill(0);
  let norm = 0;
  let error = 0;
  for (let i = 0; i < q.length; i++) {
    const x = q[i]!;
    const c = Math.max(-range, Math.min(range, round(x / scale)));
    codes[i] = c;
    norm += x * x;
    error += (x - scale * c) ** 2;
  }
  return { scale, norm: Math.sqrt(norm) * INFLATE, errorNorm: Math.sqrt(error) * INFLATE };
}

/**
 * The plain-JavaScript `dot_i8`. Every partial sum is an integer below 2³¹ (see `quantizeQuery`),
 * so `| 0` only tells the engine to stay in int32 arithmetic; it never wraps.
 */
export function dotI8Js(query: Int16Array, codes: Int8Array, n: number, stride: number, out: Int32Array): void {
  for (let slot = 0; slot < n; slot++) out[slot] = dotI8At(query, codes, slot * stride, stride);
}

/** `dot_i8` for the one vector whose codes start at `at`: what a walk over a graph scores a node with. */
export function dotI8At(query: Int16Array, codes: Int8Array, at: number, stride: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let j = 0; j < stride; j += 4) {
    const b = at + j;
    s0 = (s0 + query[j]! * codes[b]!) | 0;
    s1 = (s1 + query[j + 1]! * codes[b + 1]!) | 0;
    s2 = (s2 + query[j + 2]! * codes[b + 2]!) | 0;
    s3 = (s3 + query[j + 3]! * codes[b + 3]!) | 0;
  }
  return (s0 + s1 + s2 + s3) | 0;
}

/**
 * `candidates` over a list instead of every slot: of `slots[0…count)`, with their integer inner
 * products `dots`, keeps (moved to the front, in order) those whose upper bound reaches the k-th
 * best lower bound among those `accept` lets through, and returns how many; all of them when
 * fewer than k are accepted. Re-scoring only those gives the list's exact top k.
 */
export function boundedAmong(slots: Int32Array, dots: Int32Array, count: number, meta: Float64Array, k: number, query: QueryCodes, nos: Int32Array, accept: ((no: number) => boolean) | undefined): number {
  if (count <= k) return count;
  const { scale, norm, errorNorm } = query;
  const heap = new Float64Array(k);
  const owners = new Int32Array(k);
  let size = 0;
  for (let i = 0; i < count; i++) {
    const m = slots[i]! * META;
    const low = scale * meta[m]! * dots[i]! - (norm * meta[m + QUERY_TERM]! + errorNorm * meta[m + CODE_TERM]!);
    if (size === k && !(low > heap[0]!)) continue;
    if (accept !== undefined && !accept(nos[slots[i]!]!)) continue;
    size = heapPush(heap, owners, size, k, low, i);
  }
  if (size < k) return count;
  const bar = heap[0]!;
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const m = slots[i]! * META;
    if (scale * meta[m]! * dots[i]! + norm * meta[m + QUERY_TERM]! + errorNorm * meta[m + CODE_TERM]! >= bar) slots[kept++] = slots[i]!;
  }
  return kept;
}

/**
 * Raises `ceiling` (the largest bound terms of any vector so far, `[‖q‖ term, ‖f‖ term]`) to cover
 * the vectors at slots `from` to `to` (exclusive), so `candidates` can drop most vectors without
 * reading their own bounds. One loop here rather than a call per slot: an open adopting 10k
 * saved vectors runs it before the engine has compiled it.
 */
export function raiseCeiling(ceiling: Float64Array, meta: Float64Array, from: number, to = from + 1): void {
  let query = ceiling[0]!;
  let code = ceiling[1]!;
  for (let m = from * META; m < to * META; m += META) {
    if (meta[m + QUERY_TERM]! > query) query = meta[m + QUERY_TERM]!;
    if (meta[m + CODE_TERM]! > code) code = meta[m + CODE_TERM]!;
  }
  ceiling[0] = query;
  ceiling[1] = code;
}

/**
 * Where `candidates` keeps the slots it may return and their upper bounds; kept by the index
 * between searches and grown as needed, so a search makes no garbage for them (two growing number
 * arrays were an eighth of a hybrid recall's garbage at 10k).
 */
export class CandidateScratch {
  slots = new Int32Array(256);
  highs = new Float64Array(256);

  grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    slots.set(this.slots);
    const highs = new Float64Array(this.highs.length * 2);
    highs.set(this.highs);
    this.slots = slots;
    this.highs = highs;
  }
}

/**
 * Slots between two of the sample that guesses a starting bar for `candidates`. Its guess is the
 * sample's ⌈2k/16⌉-th best lower bound, on average the whole scan's 2k-th: below the final bar
 * unless more than twice its share of the top k fell in the sample (k 100: 70 of ~7,000 searches
 * over the speed corpus's 10k vectors), which the pass detects and then runs again from no bar.
 */
const SAMPLE_STEP = 16;
/**
 * Below this k the sample's guess costs more than it saves (10k slots, scratch, with the guess
 * at every k: k 10 37 → 49 µs, k 30 48 → 58; k 50 68 → 56, k 100 104 → 70): few lower bounds
 * fill the heap soon anyway, and a guess from a handful of sampled slots is too high more often.
 */
const SAMPLED_FROM_K = 48;
/** `pass`'s answer when its starting bar was above the final one. */
const BAR_TOO_HIGH = -2;

/**
 * Slots that may hold one of the exact top `k` accepted vectors, from the integer inner products
 * `dots`: the k-th largest lower bound among accepted slots is the bar, and every slot whose upper
 * bound reaches it is kept. The slots are `scratch.slots[0…count)`, in slot order, for the count
 * returned; −1 when fewer than `k` slots are accepted (every accepted slot is in).
 *
 * The bar starts at a sample's guess: from no bar, the first k slots all went into the heap and
 * thousands more passed its low early bar before it rose (10k slots, k 100: ~100 µs of a ~1 ms
 * recall, where the arithmetic alone is ~16 µs).
 */
export function candidates(dots: Int32Array, meta: Float64Array, ceiling: Float64Array, n: number, k: number, query: QueryCodes, nos: Int32Array, accept: ((no: number) => boolean) | undefined, scratch: CandidateScratch): number {
  if (k >= SAMPLED_FROM_K) {
    const guess = sampledBar(dots, meta, n, k, query, nos, accept);
    const count = guess > -Infinity ? pass(dots, meta, ceiling, n, k, query, nos, accept, scratch, guess) : BAR_TOO_HIGH;
    if (count !== BAR_TOO_HIGH) return count;
  }
  return pass(dots, meta, ceiling, n, k, query, nos, accept, scratch, -Infinity);
}

/** The ⌈2k/SAMPLE_STEP⌉-th largest lower bound among accepted slots of every SAMPLE_STEP-th, or −∞ when the sample has fewer. */
function sampledBar(dots: Int32Array, meta: Float64Array, n: number, k: number, query: QueryCodes, nos: Int32Array, accept: ((no: number) => boolean) | undefined): number {
  const want = Math.ceil((2 * k) / SAMPLE_STEP);
  if (n < want * SAMPLE_STEP) return -Infinity;
  const { scale, norm, errorNorm } = query;
  const heap = new Float64Array(want);
  const slotsOfLows = new Int32Array(want);
  let size = 0;
  let bar = -Infinity;
  for (let slot = 0; slot < n; slot += SAMPLE_STEP) {
    const m = slot * META;
    const low = scale * meta[m]! * dots[slot]! - (norm * meta[m + 1]! + errorNorm * meta[m + 2]!);
    if (!(low > bar)) continue;
    if (accept !== undefined && !accept(nos[slot]!)) continue;
    size = heapPush(heap, slotsOfLows, size, want, low, slot);
    if (size === want) bar = heap[0]!;
  }
  return bar;
}

/**
 * One pass from the bar `start`. The bar only rises, so a slot below it when it is met stays below
 * it. From a guessed `start`, the heap of lower bounds fills only if at least k accepted slots
 * beat the guess; then its root is the true k-th, and every slot that could reach it was kept.
 */
function pass(dots: Int32Array, meta: Float64Array, ceiling: Float64Array, n: number, k: number, query: QueryCodes, nos: Int32Array, accept: ((no: number) => boolean) | undefined, scratch: CandidateScratch, start: number): number {
  const { scale, norm, errorNorm } = query;
  const widest = norm * ceiling[0]! + errorNorm * ceiling[1]!;
  const heap = new Float64Array(k);
  const slotsOfLows = new Int32Array(k);
  let size = 0;
  // The heap's root once it holds k lower bounds, `start` before: a local the loop compares
  // with, where reading the root each time cost a load the compiler cannot hoist.
  let bar = start;
  let kept = 0;
  for (let slot = 0; slot < n; slot++) {
    // Most slots fail the first test; this inner loop makes no call, so the compiler keeps the
    // arrays' base and length in registers instead of reloading them after every call site.
    let estimate = scale * meta[slot * META]! * dots[slot]!;
    while (estimate + widest < bar && ++slot < n) estimate = scale * meta[slot * META]! * dots[slot]!;
    if (slot === n) break;
    const m = slot * META;
    const bound = norm * meta[m + 1]! + errorNorm * meta[m + 2]!;
    const high = estimate + bound;
    if (!(high >= bar)) continue;
    if (kept === scratch.slots.length) scratch.grow();
    scratch.slots[kept] = slot;
    scratch.highs[kept++] = high;
    const low = estimate - bound;
    if (!(low > bar)) continue;
    if (accept !== undefined && !accept(nos[slot]!)) continue;
    size = heapPush(heap, slotsOfLows, size, k, low, slot);
    if (size === k) bar = heap[0]!;
  }
  if (size < k) return start === -Infinity ? -1 : BAR_TOO_HIGH;
  const { slots, highs } = scratch;
  let count = 0;
  for (let i = 0; i < kept; i++) if (highs[i]! >= bar) slots[count++] = slots[i]!;
  return count;
}
