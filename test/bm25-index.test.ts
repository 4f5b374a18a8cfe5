/**
 * The lexical index: near-miss identifiers ranked below the exact one, adds, replacements and
 * removals answered as a fresh index answers, and the search's arguments checked.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../src/legs/lexical/bm25-index.js';
import { queryTerms, tokenize } from '../src/legs/lexical/tokenizer.js';
import { codeOf, indexOf, nos } from './support/bm25.js';

const SEED = 20_240_501;

describe('Bm25Index', () => {
  describe('near-miss identifiers', () => {
    it('ranks ADR-007 above ADR-070, ADR-0071, ADR-07 and heavy "adr" users', () => {
      const index = indexOf([
        'ADR-070 covers the vector index layout',
        'ADR-0071 adopts reciprocal rank fusion',
        'We chose SQLite in ADR-007 after a long debate about storage engines and their trade-offs',
        'ADR-07 was superseded last spring',
        'ADR ADR ADR-070 ADR-070',
        'Agent 007 read ADR-070 twice',
        'ADR-700 is about logging',
      ]);
      expect(nos(index, 'ADR-007')[0]).toBe(2);
      expect(nos(index, 'adr-007')[0]).toBe(2);
      expect(nos(index, 'what did ADR-007 decide?')[0]).toBe(2);
    });

    it('ranks Order #4821 above #4812, #48210 and #482', () => {
      const index = indexOf([
        'Order #4812 was refunded',
        'Order #48210 is pending',
        'Order #482 got lost',
        'order order order #4812',
        'Order #4821 shipped to Zürich on Monday after the customer confirmed the address',
        'Invoice 4812 paid',
      ]);
      for (const query of ['Order #4821', '#4821', '4821', 'order 4821']) {
        expect(nos(index, query)[0], query).toBe(4);
      }
      expect(nos(index, '4821')).toEqual([4]);
    });

    it('ranks Section 482 above Section 48, 4820 and 428', () => {
      const index = indexOf([
        'Section 48 applies to renewals',
        'Section 4820 applies to exports',
        'Section 428 applies to imports',
        'section section section 48',
        'Termination is covered by Section 482 of the master services agreement signed in 2021',
      ]);
      expect(nos(index, 'Section 482')[0]).toBe(4);
      expect(nos(index, '482')).toEqual([4]);
    });

    it('needs the identifier boost when a query mixes an identifier with common words', () => {
      const texts = [
        'ADR-007: we use redis.',
        'ADR-070: caching decision for caching decision.',
        'notes about caching',
        'a decision log',
        'Agent 007 read ADR-070',
      ];
      expect(nos(indexOf(texts), 'ADR-007 caching decision')[0]).toBe(0);
      expect(nos(indexOf(texts, { identifierBoost: 1 }), 'ADR-007 caching decision')[0]).toBe(1);
    });
  });

  it('finds Unicode text by accented, unaccented and CJK queries', () => {
    const index = indexOf(['Meeting in Zürich on Monday', '東京の会議は延期', 'Bengaluru office opens', 'a naïve approach']);
    expect(nos(index, 'Zürich')).toEqual([0]);
    expect(nos(index, 'zurich')).toEqual([0]);
    expect(nos(index, '東京')).toEqual([1]);
    expect(nos(index, 'BENGALURU')).toEqual([2]);
    expect(nos(index, 'naive')).toEqual([3]);
  });

  it('reports the matched query terms as indexed', () => {
    const index = indexOf(['We chose SQLite in ADR-007']);
    const [hit] = index.search('ADR-007 sqlite zebra', 5);
    expect(new Set(hit?.matched)).toEqual(new Set(['adr-007', 'adr', '007', 'sqlite']));
  });

  describe('add, replace and remove', () => {
    it('replaces the text of an existing memory through remove, and refuses to add it twice', () => {
      const index = indexOf(['alpha zanzibar', 'alpha beta']);
      expect(codeOf(() => index.add(0, 'gamma delta'))).toBe('INVALID_ARGUMENT');
      expect(index.remove(0, 'alpha zanzibar')).toBe(true);
      index.add(0, 'gamma delta');
      expect(index.size).toBe(2);
      expect(nos(index, 'zanzibar')).toEqual([]);
      expect(nos(index, 'gamma')).toEqual([0]);
      expect(nos(index, 'alpha')).toEqual([1]);
    });

    it('removes the postings of a removed memory at once', () => {
      const index = indexOf(['alpha beta']);
      const before = index.termCount;
      index.add(7, 'alpha zanzibar quokka-42');
      expect(index.termCount).toBeGreaterThan(before);
      expect(index.remove(7, 'alpha zanzibar quokka-42')).toBe(true);
      expect(index.termCount).toBe(before);
      expect(index.has(7)).toBe(false);
      expect(index.size).toBe(1);
      expect(nos(index, 'zanzibar quokka-42')).toEqual([]);
      expect(new TextDecoder().decode(index.save())).not.toContain('zanzibar');
      expect(index.remove(7, 'alpha zanzibar quokka-42')).toBe(false);
    });

    it('keeps no text: a save holds terms, not the texts they came from', () => {
      const index = indexOf(['The quick brown fox jumps over ADR-007']);
      const saved = new TextDecoder().decode(index.save());
      expect(saved).toContain('adr-007');
      expect(saved).not.toContain('The quick');
    });

    it('removes a memory whose text changed behind its back: the postings of the text it was indexed with go too', () => {
      const warnings: string[] = [];
      const index = new Bm25Index({ logger: (level, message) => void (level === 'warn' && warnings.push(message)) });
      ['alpha beta gamma', 'alpha', 'delta epsilon'].forEach((text, no) => index.add(no, text));
      const left = indexOf(['', 'alpha']);
      left.remove(0, '');
      // Fewer terms than indexed, then as many terms but other ones.
      expect(index.remove(0, 'alpha beta')).toBe(true);
      expect(index.remove(2, 'zeta eta')).toBe(true);
      expect(warnings).toHaveLength(2);
      expect(index.has(0) || index.has(2)).toBe(false);
      expect(index.size).toBe(1);
      for (const query of ['alpha', 'beta', 'gamma', 'delta', 'zeta']) expect(nos(index, query), query).toEqual(nos(left, query));
      expect(index.termCount).toBe(left.termCount);
      expect(index.search('alpha', 5)).toEqual(left.search('alpha', 5));
      const restored = Bm25Index.load(index.save());
      expect(restored.search('alpha', 5)).toEqual(left.search('alpha', 5));
      expect(codeOf(() => index.remove(1, undefined as unknown as string))).toBe('INVALID_ARGUMENT');
    });

    it('clears everything', () => {
      const index = indexOf(['alpha', 'beta']);
      index.clear();
      expect(index.size).toBe(0);
      expect(index.termCount).toBe(0);
      expect(nos(index, 'alpha')).toEqual([]);
    });

    it('keeps indexing empty and stop-word-only texts', () => {
      const index = indexOf(['', 'the and of']);
      expect(index.has(0) && index.has(1)).toBe(true);
      expect(nos(index, 'the')).toEqual([]);
    });

    it('matches a naive model after any sequence of adds, removes and reloads', () => {
      const vocab = ['apple', 'pear', 'ADR-007', 'ADR-070', '#4821', 'zürich', '東京'];
      const text = fc.array(fc.constantFrom(...vocab), { maxLength: 5 }).map((ws) => ws.join(' '));
      const op = fc.oneof(
        fc.record({ kind: fc.constant('add' as const), no: fc.integer({ min: 0, max: 7 }), text }),
        fc.record({ kind: fc.constant('remove' as const), no: fc.integer({ min: 0, max: 7 }) }),
        // A loaded index reads its saved arrays in place until a change builds minisearch's maps.
        fc.record({ kind: fc.constant('reload' as const) }),
      );
      fc.assert(
        fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
          let index = new Bm25Index();
          const model = new Map<number, string>();
          for (const o of ops) {
            if (o.kind === 'add') {
              const old = model.get(o.no);
              if (old !== undefined) expect(index.remove(o.no, old)).toBe(true);
              index.add(o.no, o.text);
              model.set(o.no, o.text);
            } else if (o.kind === 'reload') {
              index = Bm25Index.load(index.save());
            } else {
              expect(index.remove(o.no, model.get(o.no) ?? '')).toBe(model.delete(o.no));
            }
          }
          expect(index.size).toBe(model.size);
          const terms = new Set([...model.values()].flatMap((t) => tokenize(t)));
          expect(index.termCount).toBe(terms.size);
          for (const word of vocab) {
            const query = new Set(queryTerms(word));
            const expected = [...model].filter(([, t]) => tokenize(t).some((term) => query.has(term))).map(([no]) => no);
            expect(nos(index, word).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
          }
        }),
        { seed: SEED, numRuns: 300 },
      );
    });
  });

  describe('search', () => {
    it('filters with accept before cutting to k', () => {
      const index = indexOf(['cache one', 'cache two', 'cache three', 'cache four', 'cache five', 'cache six']);
      const hits = index.search('cache', 2, (no) => no % 2 === 1);
      expect(hits.map((hit) => hit.no)).toEqual([1, 3]);
      expect(index.search('cache', 10, () => false)).toEqual([]);
    });

    it('orders best first and breaks ties by ascending no', () => {
      const index = indexOf(['cache', 'cache', 'cache cache cache cache', 'cache']);
      const hits = index.search('cache', 10);
      expect(hits[0]?.no).toBe(2);
      expect(hits.slice(1).map((hit) => hit.no)).toEqual([0, 1, 3]);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    });

    it('returns nothing for k = 0 or a query without terms', () => {
      const index = indexOf(['cache']);
      expect(index.search('cache', 0)).toEqual([]);
      expect(index.search('  …  ', 5)).toEqual([]);
    });

    it('throws INVALID_ARGUMENT on bad input', () => {
      const index = new Bm25Index();
      expect(codeOf(() => index.add(-1, 'x'))).toBe('INVALID_ARGUMENT');
      expect(codeOf(() => index.add(1.5, 'x'))).toBe('INVALID_ARGUMENT');
      expect(codeOf(() => index.add(1, 42 as unknown as string))).toBe('INVALID_ARGUMENT');
      expect(codeOf(() => index.search('x', -1))).toBe('INVALID_ARGUMENT');
      expect(codeOf(() => index.search(undefined as unknown as string, 1))).toBe('INVALID_ARGUMENT');
      expect(codeOf(() => new Bm25Index({ b: 2 }))).toBe('INVALID_ARGUMENT');
    });
  });
});
