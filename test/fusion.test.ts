import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linearFusion } from '../src/fusion/linear.js';
import { reciprocalRankFusion, sortFused, type RankedList } from '../src/fusion/rrf.js';

/** A ranked list is a permutation of some distinct document numbers. */
const rankedList = fc.record({
  // Zero or a normal weight: subnormal weights underflow to equal scores and say nothing about fusion.
  weight: fc.oneof(fc.constant(0), fc.double({ min: 0.01, max: 5, noNaN: true })),
  nos: fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 25 }),
});
const lists = fc.array(rankedList, { maxLength: 5 });
const rrfK = fc.integer({ min: 0, max: 100 });

/** The definition, written as plainly as possible, for the property tests to compare with. */
function naive(ls: RankedList[], k: number): Map<number, number> {
  const scores = new Map<number, number>();
  for (const l of ls) l.nos.forEach((no, i) => scores.set(no, (scores.get(no) ?? 0) + l.weight / (k + i + 1)));
  return scores;
}

describe('reciprocalRankFusion', () => {
  it('scores every document Σ w / (k + rank)', () => {
    fc.assert(
      fc.property(lists, rrfK, (ls, k) => {
        const expected = naive(ls, k);
        const fused = reciprocalRankFusion(ls, k);
        expect(fused).toHaveLength(expected.size);
        for (const f of fused) expect(f.score).toBeCloseTo(expected.get(f.no)!, 12);
      }),
    );
  });

  it('is sorted by score, ties by number, and does not depend on the order of the lists', () => {
    fc.assert(
      fc.property(lists, rrfK, (ls, k) => {
        const fused = reciprocalRankFusion(ls, k);
        for (let i = 1; i < fused.length; i++) {
          const [a, b] = [fused[i - 1]!, fused[i]!];
          expect(a.score > b.score || (a.score === b.score && a.no < b.no)).toBe(true);
        }
        const reversed = reciprocalRankFusion([...ls].reverse(), k);
        expect(reversed.map((f) => f.no)).toEqual(fused.map((f) => f.no));
      }),
    );
  });

  it('keeps the order of a single list', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 1000 })), rrfK, (nos, k) => {
        expect(reciprocalRankFusion([{ weight: 1, nos }], k).map((f) => f.no)).toEqual(nos);
      }),
    );
  });

  it('never ranks a document below one it beats or ties in every list', () => {
    fc.assert(
      fc.property(lists, rrfK, (ls, k) => {
        const fused = reciprocalRankFusion(ls, k);
        const position = new Map(fused.map((f, i) => [f.no, i]));
        const rank = (l: RankedList, no: number) => (l.nos.indexOf(no) + 1) || Infinity;
        for (const a of position.keys()) {
          for (const b of position.keys()) {
            if (a === b) continue;
            const dominates = ls.every((l) => l.weight === 0 || rank(l, a) < rank(l, b)) && ls.some((l) => l.weight > 0 && rank(l, a) < Infinity);
            if (dominates) expect(position.get(a)!).toBeLessThan(position.get(b)!);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('applies the tie-break to equal scores', () => {
    const fused = reciprocalRankFusion([{ weight: 1, nos: [1, 2] }, { weight: 1, nos: [2, 1] }], 60, (a, b) => b - a);
    expect(fused.map((f) => f.no)).toEqual([2, 1]);
  });
});

describe('sortFused with a limit', () => {
  it('is the first `limit` of the full order, ties and tie-breaks included', () => {
    fc.assert(
      fc.property(
        // Few distinct scores, so ties are common.
        fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 4 })), { maxLength: 120, selector: ([no]) => no }),
        // Up to 100: past 64 kept the full sort is cut instead.
        fc.integer({ min: 0, max: 100 }),
        fc.boolean(),
        (entries, limit, reverse) => {
          const scores = new Map(entries.map(([no, score]) => [no, score / 4]));
          const tieBreak = reverse ? (a: number, b: number) => b - a : undefined;
          expect(sortFused(scores, tieBreak, limit)).toEqual(sortFused(scores, tieBreak).slice(0, limit));
        },
      ),
    );
  });
});

describe('linearFusion', () => {
  it('adds α·similarity and β·proximity', () => {
    const fused = linearFusion(new Map([[1, 0.9], [2, 0.5]]), new Map([[2, 1], [3, 0.5]]), 0.7, 0.3);
    expect(fused.map((f) => [f.no, Number(f.score.toFixed(6))])).toEqual([[2, 0.65], [1, 0.63], [3, 0.15]]);
  });
});
