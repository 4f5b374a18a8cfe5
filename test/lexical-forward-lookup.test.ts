/**
 * `ForwardLookup` answers what a fresh binary search (`FlatPostings.tfOf`) answers, for any
 * increasing run of short ids, present or not, over one list or a split list's two parts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ForwardLookup } from '../src/legs/lexical/forward-lookup.js';
import { FlatPostings } from '../src/legs/lexical/frozen-postings.js';

/** Pairs `shortId, tf` for the distinct sorted ids, as a list stores them. */
const listOf = (ids: number[]) => new FlatPostings(ids.flatMap((id) => [id, 1 + (id % 5)]), 0, ids.length);
const sortedIds = (max: number) => fc.uniqueArray(fc.nat({ max }), { maxLength: 300 }).map((ids) => ids.sort((a, b) => a - b));

describe('ForwardLookup', () => {
  it('gives each increasing short id its term frequency in one list, 0 where the list does not name it', () => {
    fc.assert(
      fc.property(sortedIds(2000), sortedIds(2100), (ids, asked) => {
        const list = listOf(ids);
        const lookup = new ForwardLookup(list);
        expect(asked.map((id) => lookup.tfOf(id))).toEqual(asked.map((id) => list.tfOf(id)));
      }),
      { numRuns: 300 },
    );
  });

  it('reads the lower part below `from` and the upper part from it on', () => {
    fc.assert(
      fc.property(sortedIds(1000), sortedIds(1000), sortedIds(2100), (lowerIds, upperIds, asked) => {
        const lower = listOf(lowerIds);
        const upper = listOf(upperIds.map((id) => id + 1000));
        const lookup = new ForwardLookup(lower, upper, 1000);
        expect(asked.map((id) => lookup.tfOf(id))).toEqual(asked.map((id) => (id < 1000 ? lower.tfOf(id) : upper.tfOf(id))));
      }),
      { numRuns: 300 },
    );
  });

  it('finds the first and last pairs and answers past the end', () => {
    const list = listOf([3, 9, 10, 500]);
    const lookup = new ForwardLookup(list);
    expect([0, 3, 4, 9, 10, 11, 500, 501, 10_000].map((id) => lookup.tfOf(id))).toEqual([0, 4, 0, 5, 1, 0, 1, 0, 0]);
    expect(new ForwardLookup(listOf([])).tfOf(7)).toBe(0);
  });
});
