import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../src/legs/lexical/bm25-index.js';
import type { DocTable, TermSource } from '../src/legs/lexical/term-scores.js';
import { frozenOf, layeredOf } from './support/lexical.js';
import { isCompound, queryTerms, tokenize } from '../src/legs/lexical/tokenizer.js';
import { rng } from './support/random.js';

const WORDS = ['deploy', 'rollback', 'ADR-007', 'postgres', 'cache', 'the', 'latency', '#4821', 'v1.2.3', 'queue', 'retry', 'Caroline', 'budget', 'index'];

/** Texts of varied length (BM25 normalises by it) with repeated terms (term frequency > 1). */
function texts(count: number, seed: number): string[] {
  const next = rng(seed);
  return Array.from({ length: count }, () => Array.from({ length: 3 + Math.floor(next() * 25) }, () => WORDS[Math.floor(next() * WORDS.length)]!).join(' '));
}

describe('DocTable scores', () => {
  it('gives every document the score minisearch\'s own search gives it, after adds and removes, in added lists and in a saved base', () => {
    const identity = (t: string) => t;
    const params = { k: 1.2, b: 0.7, d: 0.5 };
    const mini = new MiniSearch<{ no: number; text: string }>({ idField: 'no', fields: ['text'], storeFields: ['text'], tokenize, processTerm: identity });
    const corpus = texts(400, 21);
    corpus.forEach((text, no) => mini.add({ no, text }));
    const removed = Array.from({ length: 58 }, (_, i) => 7 * i);
    for (const no of removed) mini.remove({ no, text: corpus[no]! });
    const added = layeredOf(corpus, removed);
    // The same postings read in place from the flat state a save writes, as a loaded index reads them.
    const { frozen, table: frozenTable } = frozenOf(corpus, removed);
    /** One term's scores by memory number, as `top` gives every document that holds it. */
    const scoresOf = (term: string, boost: number, source: TermSource = added, docs: DocTable = added.docs): Map<number, number> => {
      const got = new Map<number, number>();
      docs.top(source, [term], () => boost, params, source.documentCount, undefined, (size, scores, nos) => {
        for (let i = 0; i < size; i++) got.set(nos[i]!, scores[i]!);
      });
      return got;
    };
    for (const term of new Set(corpus.flatMap((t) => queryTerms(t)))) {
      for (const boost of [1, 2]) {
        const expected = new Map(mini.search(term, { tokenize: () => [term], processTerm: identity, bm25: params, boostTerm: () => boost, prefix: false, fuzzy: false }).map((r) => [r.id as number, r.score]));
        const got = scoresOf(term, boost);
        expect(got.size).toBeGreaterThan(0);
        expect(got).toEqual(expected);
        expect(scoresOf(term, boost, frozen, frozenTable)).toEqual(expected);
      }
    }
    expect(scoresOf('absent', 1).size).toBe(0);
    expect(scoresOf('absent', 1, frozen, frozenTable).size).toBe(0);

    // Removed from the lists and from the saved base (whose postings stay, counted out of each
    // term's document frequency until a fold), the scores are still minisearch's.
    const layered = layeredOf(corpus, removed);
    const baseLayers = layeredOf(corpus, removed);
    baseLayers.fold();
    for (let no = 3; no < 400; no += 5) {
      if (no % 7 === 0) continue;
      mini.remove({ no, text: corpus[no]! });
      layered.remove(no, corpus[no]!);
      baseLayers.remove(no, corpus[no]!);
    }
    for (const term of new Set(corpus.flatMap((t) => queryTerms(t)))) {
      const expected = new Map(mini.search(term, { tokenize: () => [term], processTerm: identity, bm25: params, prefix: false, fuzzy: false }).map((r) => [r.id as number, r.score]));
      expect(scoresOf(term, 1, layered, layered.docs)).toEqual(expected);
      expect(scoresOf(term, 1, baseLayers, baseLayers.docs)).toEqual(expected);
    }
  });

  it('leaves Bm25Index answers exactly as summing minisearch\'s own per-term searches gave them', () => {
    const identity = (t: string) => t;
    const index = new Bm25Index();
    const mini = new MiniSearch<{ no: number; text: string }>({ idField: 'no', fields: ['text'], storeFields: ['text'], tokenize, processTerm: identity });
    const corpus = texts(300, 5);
    corpus.forEach((text, no) => {
      index.add(no, text);
      mini.add({ no, text });
    });
    // Removed, replaced and re-added documents, and an index loaded from its bytes, answer the same.
    const changed = texts(300, 6);
    for (let no = 0; no < 300; no += 5) {
      index.remove(no, corpus[no]!);
      mini.remove({ no, text: corpus[no]! });
    }
    for (let no = 1; no < 300; no += 4) {
      if (no % 5 !== 0) {
        index.remove(no, corpus[no]!);
        mini.remove({ no, text: corpus[no]! });
      }
      index.add(no, changed[no]!);
      mini.add({ no, text: changed[no]! });
    }
    const loaded = Bm25Index.load(index.save());
    const accept = (no: number) => no % 3 !== 0;
    for (const query of ['deploy rollback ADR-007 cache', 'the #4821 retry', 'Caroline v1.2.3 budget index queue', 'nothing here']) {
      const combined = new Map<number, { score: number; terms: string[] }>();
      for (const term of queryTerms(query)) {
        const boostTerm = () => (isCompound(term) ? 2 : 1);
        for (const r of mini.search(term, { tokenize: () => [term], processTerm: identity, bm25: { k: 1.2, b: 0.7, d: 0.5 }, boostTerm, prefix: false, fuzzy: false, filter: (r) => accept(r.id as number) })) {
          const c = combined.get(r.id as number) ?? { score: 0, terms: [] };
          c.score += r.score;
          c.terms.push(term);
          combined.set(r.id as number, c);
        }
      }
      const expected = [...combined].map(([no, c]) => ({ no, score: c.score * c.terms.length, matched: c.terms })).sort((a, b) => b.score - a.score || a.no - b.no).slice(0, 20);
      expect(index.search(query, 20, accept)).toEqual(expected);
      expect(loaded.search(query, 20, accept)).toEqual(expected);
    }
  });
});
