import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CandidateScratch, candidates, META, type QueryCodes } from '../src/legs/vector/quantize.js';

interface Case {
  dots: Int32Array;
  meta: Float64Array;
  ceiling: Float64Array;
  nos: Int32Array;
  query: QueryCodes;
}

/** Integer sums, slot scales and bounds in the layout `candidates` reads, with the ceiling of the bounds. */
function makeCase(sums: number[], scales: number[], errors: Array<[number, number]>, query: QueryCodes): Case {
  const n = sums.length;
  const meta = new Float64Array(n * META);
  const ceiling = new Float64Array(2);
  for (let i = 0; i < n; i++) {
    meta[i * META] = scales[i]!;
    meta[i * META + 1] = errors[i]![0];
    meta[i * META + 2] = errors[i]![1];
    ceiling[0] = Math.max(ceiling[0]!, errors[i]![0]);
    ceiling[1] = Math.max(ceiling[1]!, errors[i]![1]);
  }
  return { dots: Int32Array.from(sums), meta, ceiling, nos: Int32Array.from({ length: n }, (_, i) => 3 * i + 1), query };
}

/** The definition: every slot whose upper bound reaches the k-th largest lower bound among accepted slots, in slot order; −1 with fewer than k accepted. */
function definition(c: Case, k: number, accept: ((no: number) => boolean) | undefined): number[] | -1 {
  const { scale, norm, errorNorm } = c.query;
  const rows = Array.from(c.dots, (dot, slot) => {
    const estimate = scale * c.meta[slot * META]! * dot;
    const bound = norm * c.meta[slot * META + 1]! + errorNorm * c.meta[slot * META + 2]!;
    return { slot, low: estimate - bound, high: estimate + bound };
  });
  const lows = rows.filter((r) => accept === undefined || accept(c.nos[r.slot]!)).map((r) => r.low).sort((a, b) => b - a);
  if (lows.length < k) return -1;
  const bar = lows[k - 1]!;
  return rows.filter((r) => r.high >= bar).map((r) => r.slot);
}

function run(c: Case, k: number, accept: ((no: number) => boolean) | undefined): number[] | -1 {
  const scratch = new CandidateScratch();
  const count = candidates(c.dots, c.meta, c.ceiling, c.dots.length, k, c.query, c.nos, accept, scratch);
  return count < 0 ? -1 : Array.from(scratch.slots.subarray(0, count));
}

describe('candidates', () => {
  it('keeps exactly the slots that can reach the k-th best lower bound, whatever the sample guessed', () => {
    const n = fc.integer({ min: 0, max: 2500 });
    fc.assert(
      fc.property(
        n.chain((size) => fc.tuple(
          fc.array(fc.integer({ min: -40_000, max: 40_000 }), { minLength: size, maxLength: size }),
          fc.array(fc.double({ min: 1e-4, max: 1e-2, noNaN: true }), { minLength: size, maxLength: size }),
          fc.array(fc.tuple(fc.double({ min: 0, max: 0.05, noNaN: true }), fc.double({ min: 0, max: 0.05, noNaN: true })), { minLength: size, maxLength: size }),
        )),
        // How the best slots lie: as drawn, rising, falling, or on the sample's slots (every 16th).
        fc.constantFrom('drawn', 'rising', 'falling', 'sampled'),
        fc.integer({ min: 1, max: 160 }),
        fc.option(fc.integer({ min: 2, max: 5 }), { nil: undefined }),
        ([sums, scales, errors], layout, k, modulus) => {
          if (layout === 'rising') sums.sort((a, b) => a - b);
          if (layout === 'falling') sums.sort((a, b) => b - a);
          if (layout === 'sampled') sums.forEach((_, i) => (sums[i] = i % 16 === 0 ? 40_000 - i : -i));
          const c = makeCase(sums, scales, errors, { scale: 1, norm: 1, errorNorm: 0.5 });
          const accept = modulus === undefined ? undefined : (no: number) => no % modulus !== 0;
          expect(run(c, k, accept)).toEqual(definition(c, k, accept));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('runs again from no bar when the top k sit on the sample and its guess is too high', () => {
    // 4,000 slots whose 250 best are every 16th: the sample's 13th best is the whole scan's 13th, above its 100th.
    const sums = Array.from({ length: 4000 }, (_, i) => (i % 16 === 0 ? 40_000 - i : -i));
    const c = makeCase(sums, sums.map(() => 1e-3), sums.map(() => [1e-3, 1e-3]), { scale: 1, norm: 1, errorNorm: 1 });
    const found = run(c, 100, undefined);
    expect(found).toEqual(definition(c, 100, undefined));
    expect(found).toHaveLength(100);
  });
});
