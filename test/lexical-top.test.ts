/**
 * `DocTable.top` stops walking a term's postings once no document it has not met can make the
 * cut. These check that its answer is the full walk's to the last bit (scores, order, ties,
 * filter), on the lists of added documents, on a loaded index's flat arrays and on both in
 * layers, and that it does skip a common term's list when rare terms already fill the cut.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LayeredPostings } from '../src/legs/lexical/layered-postings.js';
import type { DocTable, FlatList, TermSource } from '../src/legs/lexical/term-scores.js';
import { frozenOf, layeredOf, walkScores } from './support/lexical.js';
import { queryTerms } from '../src/legs/lexical/tokenizer.js';

const params = { k: 1.2, b: 0.7, d: 0.5 };

/** Words drawn with Zipf-like weights, so some terms are in most documents and some in a few. */
const VOCAB = Array.from({ length: 24 }, (_, i) => `w${i}`);

type Hit = [no: number, score: number];

/** The reference: every matching document (`walkScores`), filtered, sorted, cut. */
function fullWalk(table: DocTable, source: TermSource, terms: string[], boostOf: (t: string) => number, k: number, accept?: (no: number) => boolean): Hit[] {
  const all = [...walkScores(table, source, terms, boostOf, params)];
  return all.filter(([no]) => !accept || accept(no)).sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, k);
}

function topOf(table: DocTable, source: TermSource, terms: string[], boostOf: (t: string) => number, k: number, accept?: (no: number) => boolean): Hit[] {
  let hits: Hit[] = [];
  table.top(source, terms, boostOf, params, k, accept, (size, scores, nos) => {
    hits = Array.from({ length: size }, (_, i): Hit => [nos[i]!, scores[i]!]);
  });
  return hits.sort((x, y) => y[1] - x[1] || x[0] - y[0]);
}

// nat → word: squaring skews the draw toward the first words (common) and away from the last (rare).
const wordOf = (x: number) => VOCAB[Math.floor(((x / 1001) ** 2) * VOCAB.length)]!;
const docArb = fc.oneof(
  fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 40 }).map((draws) => draws.map(wordOf).join(' ')),
  // One word many times in a short text: a term's score comes close to its bound there.
  fc.tuple(fc.nat({ max: 1000 }), fc.integer({ min: 1, max: 60 })).map(([x, times]) => Array(times).fill(wordOf(x)).join(' ')),
);
// Then a run of identical texts holding the commonest word: past MIN_SKIPPED postings its list
// is one `top` may leave unwalked, and identical texts tie.
const corpusArb = fc.tuple(fc.array(docArb, { minLength: 1, maxLength: 160 }), fc.integer({ min: 0, max: 3000 })).map(([docs, pad]) => [...docs, ...Array<string>(pad).fill(`${VOCAB[0]} pad`)]);

describe('DocTable.top', () => {
  it('answers exactly as the full walk: scores, order, ties and filter, on added lists, on flat arrays and on both in layers', () => {
    fc.assert(
      fc.property(
        corpusArb,
        fc.array(fc.oneof(fc.constantFrom(...VOCAB), fc.constant('absent')), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 30 }),
        fc.option(fc.integer({ min: 2, max: 5 })),
        fc.array(fc.nat({ max: 159 }), { maxLength: 20 }),
        // Often among the varied texts, so the rare terms' documents lie on both sides of it.
        fc.oneof(fc.nat({ max: 160 }), fc.nat({ max: 3200 })),
        (texts, terms, k, filterModulus, removed, split) => {
          const source = layeredOf(texts, removed);
          const table = source.docs;
          const accept = filterModulus === null ? undefined : (no: number) => no % filterModulus !== 0;
          // Boosts make the highest-scoring term not always the rarest.
          const boostOf = (t: string) => (Number(t.slice(1)) % 3 === 0 ? 2 : 1);
          expect(topOf(table, source, terms, boostOf, k, accept)).toEqual(fullWalk(table, source, terms, boostOf, k, accept));
          if (source.documentCount === 0) return;
          const { frozen, table: frozenTable } = frozenOf(texts, removed);
          expect(topOf(frozenTable, frozen, terms, boostOf, k, accept)).toEqual(fullWalk(frozenTable, frozen, terms, boostOf, k, accept));
          // The texts before `split` in a base, the rest added on top; removals from both layers.
          const layered = LayeredPostings.empty();
          texts.forEach((text, no) => {
            if (no === split) layered.fold();
            layered.add(no, text);
          });
          for (const no of new Set(removed)) if (no < texts.length) layered.remove(no, texts[no]!);
          expect(topOf(layered.docs, layered, terms, boostOf, k, accept)).toEqual(fullWalk(table, source, terms, boostOf, k, accept));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('does not walk a common term\'s list once rare terms fill the cut, and walks it when they do not', () => {
    // 4,000 documents hold "common"; 20 also hold "rare".
    const texts = Array.from({ length: 4000 }, (_, i) => (i % 200 === 0 ? 'common rare' : `common filler${i % 7}`));
    const inner = layeredOf(texts);
    const table = inner.docs;
    const reads = new Map<string, number>();
    /**
     * The same source, counting the reads of each term's postings: a walk reads every number of
     * the list, looking a few documents up in it reads a few.
     */
    const source: TermSource = {
      documentCount: inner.documentCount,
      averageLength: inner.averageLength,
      postings(term) {
        const list = inner.postings(term) as FlatList | undefined;
        if (list === undefined) return undefined;
        const data = new Proxy(list.data as number[], {
          get(target, key, receiver) {
            if (typeof key === 'string' && /^\d+$/.test(key)) reads.set(term, (reads.get(term) ?? 0) + 1);
            return Reflect.get(target, key, receiver);
          },
        });
        return { data, start: list.start, size: list.size, df: list.df, has: (shortId) => list.has(shortId), tfOf: (shortId) => list.tfOf(shortId) };
      },
    };
    const walkedOf = () => ['common', 'rare'].filter((term) => (reads.get(term) ?? 0) >= 2 * inner.postings(term)!.size);
    const one = () => 1;
    const best = topOf(table, source, ['common', 'rare'], one, 5);
    expect(walkedOf()).toEqual(['rare']);
    // Looked up for the twenty documents that hold "rare", read forward: a few reads each.
    expect(reads.get('common')).toBeLessThan(20 * 30);
    expect(best.map(([no]) => no)).toEqual([0, 200, 400, 600, 800]);
    expect(best).toEqual(fullWalk(table, inner, ['common', 'rare'], one, 5));
    reads.clear();
    // Thirty wanted and only twenty hold the rare term: the common list must be walked.
    expect(topOf(table, source, ['common', 'rare'], one, 30)).toEqual(fullWalk(table, inner, ['common', 'rare'], one, 30));
    expect(walkedOf()).toEqual(['common', 'rare']);
  });

  it('bounds a term by its best possible score, boost included, so a short text repeating a commoner term still makes the cut', () => {
    // The lists are long enough (past MIN_SKIPPED) for `top` to consider leaving "mid" unwalked.
    for (const [holders, boosted] of [[2100, false], [5000, true]] as const) {
      // 20 long texts hold "rare" (minisearch's length is a text's distinct terms: 401 here); `holders`
      // hold "mid", one of them as "mid" eight times alone (length 1).
      const filler = (i: number, words: number) => Array.from({ length: words }, (_, w) => `f${(i * 7 + w) % 50}`).join(' ');
      const long = Array.from({ length: 400 }, (_, w) => `g${w}`).join(' ');
      const texts = Array.from({ length: 20_000 }, (_, i) => {
        if (i < 20) return `rare ${long}`;
        if (i === 20) return 'mid mid mid mid mid mid mid mid';
        if (i < 20 + holders) return `mid ${filler(i, 20)}`;
        return filler(i, 20);
      });
      const source = layeredOf(texts);
      const table = source.docs;
      const boostOf = (t: string) => (boosted && t === 'mid' ? 2 : 1);
      const expected = fullWalk(table, source, ['rare', 'mid'], boostOf, 5);
      expect(expected.map(([no]) => no)).toContain(20);
      expect(topOf(table, source, ['rare', 'mid'], boostOf, 5)).toEqual(expected);
    }
  });

  it('bounds what documents not met yet can score by every term they may still hold, times how many', () => {
    // "alpha" alone scores highest per term, but texts holding both "bravo" and "charlie" double their sum.
    const filler = (i: number) => Array.from({ length: 20 }, (_, w) => `f${(i * 7 + w) % 50}`).join(' ');
    const texts = Array.from({ length: 20_000 }, (_, i) => {
      if (i < 20) return 'alpha alpha alpha alpha alpha alpha alpha alpha';
      if (i < 30) return 'bravo charlie';
      if (i < 520) return `bravo ${filler(i)}`;
      if (i < 3520) return `charlie ${filler(i)}`;
      return filler(i);
    });
    const source = layeredOf(texts);
    const table = source.docs;
    const one = () => 1;
    const expected = fullWalk(table, source, queryTerms('alpha bravo charlie'), one, 5);
    expect(expected.map(([no]) => no)).toEqual([20, 21, 22, 23, 24]);
    expect(topOf(table, source, queryTerms('alpha bravo charlie'), one, 5)).toEqual(expected);
  });

  it('keeps no more than the postings name, whatever k is asked for', () => {
    const source = layeredOf(['alpha beta', 'alpha', 'beta gamma']);
    const table = source.docs;
    const one = () => 1;
    const all = topOf(table, source, ['alpha', 'beta', 'zeta'], one, 2 ** 31 - 1);
    expect(all.map(([no]) => no)).toEqual([0, 1, 2]);
    expect(all).toEqual(fullWalk(table, source, ['alpha', 'beta', 'zeta'], one, 3));
    expect(topOf(table, source, ['zeta'], one, 10)).toEqual([]);
  });
});
