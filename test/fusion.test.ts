import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linearFusion } from '../src/fusion/linear.js';
import { reciprocalRankFusion, sortFused, type RankedList } from '../src/fusion/rrf.js';
import { convexFusion, type ScoredList } from '../src/fusion/score-fusion.js';
import { ScoreTable } from '../src/fusion/score-table.js';

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

describe('ScoreTable', () => {
  // Small and large numbers, negatives and numbers past 2³² (Postgres bigserials), with repeats.
  const number = fc.oneof(fc.integer({ min: -5, max: 60 }), fc.integer({ min: 2 ** 31 - 3, max: 2 ** 31 + 3 }), fc.integer({ min: 2 ** 32 - 2, max: 2 ** 53 - 1 }));

  it('sums as a Map does, in the order numbers were first added, across resets and growth', () => {
    const table = new ScoreTable();
    fc.assert(
      fc.property(fc.array(fc.array(fc.tuple(number, fc.double({ min: -10, max: 10, noNaN: true })), { maxLength: 1500 }), { minLength: 1, maxLength: 4 }), (uses) => {
        for (const adds of uses) {
          table.reset(adds.length);
          const expected = new Map<number, number>();
          for (const [no, value] of adds) {
            table.add(no, value);
            expected.set(no, (expected.get(no) ?? 0) + value);
          }
          const seen: Array<[number, number]> = [];
          table.forEach((score, no) => seen.push([no, score]));
          expect(table.size).toBe(expected.size);
          expect(seen).toEqual([...expected]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('refuses more entries than it was reset for past its room, rather than overwrite one', () => {
    const table = new ScoreTable();
    table.reset(1);
    for (let no = 1; no <= 512; no++) table.add(no, 1);
    expect(() => table.add(513, 1)).toThrow(RangeError);
    table.reset(513);
    for (let no = 1; no <= 513; no++) table.add(no, 1);
    expect(table.size).toBe(513);
  });
});

describe('convexFusion', () => {
  /** The definition written plainly, with a Map, for the fused scores to match bit for bit. */
  function naiveConvex(ls: ScoredList[]): Map<number, number> {
    const fused = new Map<number, number>();
    for (const l of ls) {
      if (l.weight === 0 || l.nos.length === 0) continue;
      const [lo, hi] = [Math.min(...l.scores), Math.max(...l.scores)];
      const normalised = l.bounded ? l.scores : l.scores.map((s) => (hi > lo ? (s - lo) / (hi - lo) : 1));
      l.nos.forEach((no, i) => fused.set(no, (fused.get(no) ?? 0) + l.weight * normalised[i]! * (l.confidence?.[i] ?? 1)));
    }
    return fused;
  }
  const scoredList = fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 120 }).chain((nos) =>
    fc.record({
      weight: fc.oneof(fc.constant(0), fc.double({ min: 0.01, max: 5, noNaN: true })),
      nos: fc.constant(nos),
      // Few distinct scores, so equal ones (and all-equal lists) are common.
      scores: fc.array(fc.integer({ min: 0, max: 6 }).map((s) => s / 3), { minLength: nos.length, maxLength: nos.length }),
      confidence: fc.option(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: nos.length, maxLength: nos.length }), { nil: undefined }),
      bounded: fc.boolean(),
    }),
  );

  it('gives every memory Σ w · minmax(score) · confidence, best first, within a limit as without', () => {
    fc.assert(
      fc.property(fc.array(scoredList, { maxLength: 7 }), fc.integer({ min: 1, max: 80 }), (ls, limit) => {
        const expected = naiveConvex(ls);
        const fused = convexFusion(ls);
        expect(new Map(fused.map((f) => [f.no, f.score]))).toEqual(expected);
        for (let i = 1; i < fused.length; i++) {
          const [a, b] = [fused[i - 1]!, fused[i]!];
          expect(a.score > b.score || (a.score === b.score && a.no < b.no)).toBe(true);
        }
        expect(convexFusion(ls, undefined, limit)).toEqual(fused.slice(0, limit));
      }),
      { numRuns: 200 },
    );
  });
});

describe('linearFusion', () => {
  it('adds α·similarity and β·proximity', () => {
    const fused = linearFusion(new Map([[1, 0.9], [2, 0.5]]), new Map([[2, 1], [3, 0.5]]), 0.7, 0.3);
    expect(fused.map((f) => [f.no, Number(f.score.toFixed(6))])).toEqual([[2, 0.65], [1, 0.63], [3, 0.15]]);
  });
});
