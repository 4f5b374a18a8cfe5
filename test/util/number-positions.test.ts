import { describe, expect, it } from 'vitest';
import { NumberPositions } from '../../src/util/number-positions.js';

describe('NumberPositions', () => {
  it('a run answers each number with its offset from the first, and −1 for anything else', () => {
    const run = NumberPositions.run(5, 3);
    expect([4, 5, 6, 7, 8, 5.5, Number.NaN, -1].map((no) => run.get(no))).toEqual([-1, 0, 1, 2, -1, -1, -1, -1]);
    expect(run.last).toBe(7);
    expect(run.runFrom).toBe(5);
    expect(NumberPositions.of([3, 1, 2])!.runFrom).toBeNull();
    expect(NumberPositions.run(5, 0).last).toBe(-1);
    expect(NumberPositions.run(5, 0).get(5)).toBe(-1);
  });

  it('dense and sparse numbers answer with their given positions, and a repeat gives null', () => {
    const dense = NumberPositions.of([3, 1, 2], [30, 10, 20])!;
    expect([0, 1, 2, 3, 4].map((no) => dense.get(no))).toEqual([-1, 10, 20, 30, -1]);
    expect(dense.last).toBe(3);
    const sparse = NumberPositions.of([2 ** 40, 7])!;
    expect([2 ** 40, 7, 8].map((no) => sparse.get(no))).toEqual([0, 1, -1]);
    expect(NumberPositions.of([1, 2, 1])).toBeNull();
    expect(NumberPositions.of([2 ** 40, 2 ** 40])).toBeNull();
  });
});
