/**
 * The lexical index keeps a saved base of flat arrays under the lists of what was added
 * since. Whatever mix of base and added documents, removals from either and folds it went
 * through, it must answer as one minisearch index that saw the same adds and removals: the same
 * documents, scores to the last bit, order and term count.
 */
import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../src/legs/lexical/bm25-index.js';
import { FlatPostings } from '../src/legs/lexical/frozen-postings.js';
import { LayeredPostings } from '../src/legs/lexical/layered-postings.js';
import { SplitList, type Postings } from '../src/legs/lexical/term-scores.js';
import { isCompound, queryTerms, tokenize } from '../src/legs/lexical/tokenizer.js';

const identity = (t: string) => t;
const BM25 = { k: 1.2, b: 0.7, d: 0.5 };
const VOCAB = ['apple', 'pear', 'plum', 'ADR-007', 'ADR-070', '#4821', 'zürich', 'fig'];
const options = { idField: 'no', fields: ['text'], tokenize, processTerm: identity };

type Mini = MiniSearch<{ no: number; text: string }>;

/** What `Bm25Index.search` must return: minisearch's own per-term searches, summed and multiplied by the terms matched. */
function expected(mini: Mini, query: string, k: number): Array<{ no: number; score: number; matched: string[] }> {
  const combined = new Map<number, { score: number; terms: string[] }>();
  for (const term of queryTerms(query)) {
    const boostTerm = () => (isCompound(term) ? 2 : 1);
    for (const r of mini.search(term, { tokenize: () => [term], processTerm: identity, bm25: BM25, boostTerm, prefix: false, fuzzy: false })) {
      const c = combined.get(r.id as number) ?? { score: 0, terms: [] };
      c.score += r.score;
      c.terms.push(term);
      combined.set(r.id as number, c);
    }
  }
  return [...combined].map(([no, c]) => ({ no, score: c.score * c.terms.length, matched: c.terms })).sort((a, b) => b.score - a.score || a.no - b.no).slice(0, k);
}

const text = fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 6 }).map((ws) => ws.join(' '));
const op = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('put' as const), no: fc.integer({ min: 0, max: 23 }), text }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), no: fc.integer({ min: 0, max: 23 }) }) },
  // The store's file changed behind the index's back: it is handed another text than it indexed.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('removeOther' as const), no: fc.integer({ min: 0, max: 23 }), text }) },
  // A save merges both layers into a new base; a reload reads the save as its base.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('save' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reload' as const) }) },
);

describe('the lexical index in layers', () => {
  it('answers as one minisearch index after any mix of base and added documents, removals and folds', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 16 }), fc.array(op, { maxLength: 40 }), (initial, ops) => {
        let index = new Bm25Index();
        const mini: Mini = new MiniSearch(options);
        const model = new Map<number, string>();
        initial.forEach((t, no) => {
          index.add(no, t);
          mini.add({ no, text: t });
          model.set(no, t);
        });
        // Most runs start from a loaded base, so removals and adds meet one.
        if (initial.length % 4 !== 0) index = Bm25Index.load(index.save());
        for (const o of ops) {
          const held = model.get('no' in o ? o.no : -1);
          if (o.kind === 'put') {
            if (held !== undefined) {
              expect(index.remove(o.no, held)).toBe(true);
              mini.remove({ no: o.no, text: held });
            }
            index.add(o.no, o.text);
            mini.add({ no: o.no, text: o.text });
            model.set(o.no, o.text);
          } else if (o.kind === 'remove' || o.kind === 'removeOther') {
            expect(index.remove(o.no, o.kind === 'remove' ? (held ?? '') : o.text)).toBe(held !== undefined);
            if (held !== undefined) mini.remove({ no: o.no, text: held });
            model.delete(o.no);
          } else if (o.kind === 'save') {
            index.save();
          } else {
            index = Bm25Index.load(index.save());
          }
        }
        expect(index.size).toBe(model.size);
        expect(index.termCount).toBe(mini.termCount);
        for (let no = 0; no < 24; no++) expect(index.has(no)).toBe(model.has(no));
        for (const query of [...VOCAB, 'apple ADR-007 fig', 'pear #4821 zürich plum']) expect(index.search(query, 30), query).toEqual(expected(mini, query, 30));
      }),
      { seed: 20_261_202, numRuns: 400 },
    );
  });

  it('skips a common term\'s list across both layers as minisearch\'s full answer allows, removals included', () => {
    // 4,000 memories hold "common", 20 of them "rare" too, on both sides of the base.
    const texts = Array.from({ length: 4000 }, (_, i) => (i % 200 === 0 ? 'common rare' : `common filler${i % 7}`));
    const mini: Mini = new MiniSearch(options);
    let index = new Bm25Index();
    texts.forEach((t, no) => {
      if (no === 2000) index = Bm25Index.load(index.save());
      index.add(no, t);
      mini.add({ no, text: t });
    });
    for (const no of [0, 400, 2200]) {
      index.remove(no, texts[no]!);
      mini.remove({ no, text: texts[no]! });
    }
    for (const k of [3, 10, 30]) expect(index.search('rare common', k), `k ${k}`).toEqual(expected(mini, 'rare common', k));
  });

  it('keeps a term that only added documents hold, and one whose base documents all went', () => {
    const index = Bm25Index.load(new Bm25Index().save());
    index.add(1, 'quince apple');
    expect(index.termCount).toBe(2);
    const base = Bm25Index.load(index.save());
    base.add(2, 'apple');
    expect(base.remove(1, 'quince apple')).toBe(true);
    expect(base.termCount).toBe(1);
    expect(base.search('quince', 5)).toEqual([]);
    expect(base.search('apple', 5).map((h) => h.no)).toEqual([2]);
  });

  it('folds the documents added since the base into it once they reach 8,192 and a quarter of all, and not before', () => {
    const postings = LayeredPostings.empty();
    const add = (until: number) => {
      for (let no = postings.documentCount; no < until; no++) postings.add(no, `common w${no}`);
    };
    /** Which layer a term's list is in: the base's typed arrays, the added documents' plain ones, or both. */
    const layerOf = (list: Postings | undefined) => (list instanceof SplitList ? 'both' : Array.isArray(list!.data) ? 'added' : 'base');
    const layers = () => [layerOf(postings.postings('common')), layerOf(postings.postings(`w${postings.documentCount - 1}`))];
    add(8191);
    expect(layers()).toEqual(['added', 'added']);
    // The floor: 8,192 documents added since the base, and again from each fold on.
    for (const fold of [8192, 16_384, 24_576, 32_768]) {
      add(fold);
      expect(layers()).toEqual(['base', 'base']);
      add(fold + 1);
      expect(layers()).toEqual(['both', 'added']);
    }
    // Past 32,768 a quarter of every document held is more: 10,923 added to 32,768.
    add(32_768 + 10_922);
    expect(layers()).toEqual(['both', 'added']);
    add(32_768 + 10_923);
    expect(layers()).toEqual(['base', 'base']);
    expect(postings.postings('common')!.size).toBe(43_691);
  });

  it('counts documents removed from the base out of their terms at once, and drops them at the next fold', () => {
    const postings = LayeredPostings.empty();
    for (let no = 0; no < 8192; no++) postings.add(no, no % 2 === 0 ? 'even common' : 'odd common');
    expect(postings.remove(0, 'even common')).toBe(true);
    expect(postings.remove(1, 'not what it holds')).toBe(false);
    const counts = (term: string) => {
      const list = postings.postings(term) as FlatPostings;
      return [list.size, list.df];
    };
    expect([counts('common'), counts('even'), counts('odd')]).toEqual([[8192, 8190], [4096, 4095], [4096, 4095]]);
    expect(postings.has(0) || postings.has(1)).toBe(false);
    expect(postings.has(2)).toBe(true);
    // Handed part of what it holds, the removal still finds every term it was indexed with.
    expect(postings.remove(2, 'common')).toBe(false);
    expect(counts('even')).toEqual([4096, 4094]);
    postings.add(2, 'even common');
    postings.fold();
    expect([counts('common'), counts('even'), counts('odd')]).toEqual([[8190, 8190], [4095, 4095], [4095, 4095]]);
    expect(postings.documentCount).toBe(8190);
  });

  it('keeps its document table to the documents held, removed from either layer with their text or another', () => {
    const postings = LayeredPostings.empty();
    for (let no = 0; no < 10; no++) postings.add(no, `w${no} common`);
    postings.fold();
    for (let no = 10; no < 20; no++) postings.add(no, `w${no} common`);
    expect(postings.remove(3, 'w3 common')).toBe(true);
    expect(postings.remove(13, 'w13 common')).toBe(true);
    expect(postings.remove(15, 'another text')).toBe(false);
    // Short ids follow the adds here: the table's slot of each removed memory no longer holds it.
    expect(Array.from({ length: 21 }, (_, shortId) => shortId).filter((shortId) => !postings.docs.holds(shortId))).toEqual([3, 13, 15, 20]);
  });
});
