import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCompound, MAX_TOKEN_LENGTH, queryTerms, tokenize } from '../src/legs/lexical/tokenizer.js';

const SEED = 20_240_501;

function expectTokens(text: string, expected: string[]): void {
  const tokens = tokenize(text);
  for (const token of expected) expect(tokens, `${text} -> ${token}`).toContain(token);
}

describe('tokenize', () => {
  describe('identifiers are kept whole and split', () => {
    it('keeps ADR-007 and its parts', () => {
      expect(tokenize('ADR-007')).toEqual(['adr-007', 'adr', '007']);
    });

    it('splits a model name on every separator level', () => {
      expectTokens('LFM2.5-2.6B-Q4_K_M', [
        'lfm2.5-2.6b-q4_k_m', 'lfm2.5', '2.6b', 'q4_k_m', 'lfm2', '5', '2', '6b', 'q4', 'k', 'm',
      ]);
    });

    it('keeps a UUID whole and its hex groups', () => {
      expect(tokenize('id 550E8400-e29b-41d4-a716-446655440000.')).toEqual([
        'id', '550e8400-e29b-41d4-a716-446655440000', '550e8400', 'e29b', '41d4', 'a716', '446655440000',
      ]);
    });

    it('makes "Order #4821" match both 4821 and #4821 without touching the digits', () => {
      expect(tokenize('Order #4821,')).toEqual(['order', '#4821', '4821']);
      expect(queryTerms('4821')).toEqual(['4821']);
      expect(queryTerms('#4821')).toEqual(['#4821', '4821']);
      expect(tokenize('#4812')).not.toContain('4821');
    });

    it('keeps section numbers exact', () => {
      expect(tokenize('Section 482')).toEqual(['section', '482']);
      expect(tokenize('Section 48 and Section 4820')).not.toContain('482');
    });

    it('splits e-mail addresses into local part and domain parts', () => {
      expectTokens('mail John.Smith@example.com.', [
        'john.smith@example.com', 'john.smith', 'john', 'smith', 'example.com', 'exampl', 'com',
      ]);
    });

    it('splits absolute and relative paths', () => {
      expectTokens('/usr/lib/x.so', ['/usr/lib/x.so', 'usr', 'lib', 'x.so', 'x', 'so']);
      expectTokens('(see src/foo/bar.ts)', ['src/foo/bar.ts', 'src', 'foo', 'bar.ts', 'bar', 'ts']);
      expectTokens('./a/b.ts', ['a/b.ts', 'b.ts']);
    });

    it('splits URLs into the whole, host and path segments', () => {
      expectTokens('<https://github.com/lucaong/minisearch/issues/42?x=1>', [
        'https://github.com/lucaong/minisearch/issues/42?x=1', 'github.com', 'github', 'lucaong', 'minisearch', '42',
      ]);
    });

    it('makes v1.2.3 and 1.2.3 meet', () => {
      expectTokens('v1.2.3', ['v1.2.3', '1.2.3']);
      expectTokens('1.2.3', ['1.2.3', '1', '2', '3']);
    });

    it('splits camelCase identifiers and keeps C++, C#', () => {
      expectTokens('getUserById XMLHttpRequest', ['getuserbyid', 'get', 'user', 'id', 'xmlhttprequest', 'xml', 'http', 'request']);
      expectTokens('C++ and C#', ['c++', 'c#', 'c']);
    });

    it('folds fullwidth forms with NFKC', () => {
      expect(tokenize('ＡＤＲ－００７')).toEqual(tokenize('ADR-007'));
    });
  });

  describe('plain words', () => {
    it('stems plain words but never identifiers or numbers', () => {
      expect(tokenize('running agents memories')).toEqual(['run', 'agent', 'memori']);
      expect(tokenize('ADR-running')).toContain('adr-running');
      expect(tokenize('4821 4812')).toEqual(['4821', '4812']);
    });

    it('drops stop-words from words but not from identifiers', () => {
      expect(tokenize('The plan is to ship it')).toEqual(['plan', 'ship']);
      expect(tokenize('to-do')).toEqual(['to-do', 'do']);
      expect(queryTerms('the and of')).toEqual([]);
    });

    it('drops question words from a query that has other terms, but not from the index', () => {
      expect(queryTerms("What is Caroline's identity?")).toEqual(['carolin', 'ident']);
      expect(queryTerms('how do I reset my password')).toEqual(['reset', 'password']);
      expect(queryTerms('who?')).toEqual(['who']);
      expect(queryTerms('what happened in May?')).toEqual(['happen', 'mai']);
      expect(tokenize('who did what')).toEqual(['who', 'did', 'what']);
    });

    it('drops possessives and joins contractions', () => {
      expect(tokenize("the agent's memory")).toEqual(['agent', 'memori']);
      expect(tokenize("don't")).toEqual(tokenize('dont'));
      expect(tokenize("ADR-007's")).toEqual(['adr-007', 'adr', '007']);
    });

    it('keeps repeats for term frequency, but queryTerms does not', () => {
      expect(tokenize('cache cache cache')).toEqual(['cach', 'cach', 'cach']);
      expect(queryTerms('cache caches')).toEqual(['cach']);
    });

    it('emits each derived term once per chunk', () => {
      expect(tokenize('a1/a1/a1')).toEqual(['a1/a1/a1', 'a1']);
    });
  });

  describe('Unicode', () => {
    it('keeps letters of every script', () => {
      expectTokens('Zürich 東京 Bengaluru naïve', ['zürich', '東京', 'bengaluru', 'naïve']);
      expectTokens('हिन्दी भाषा', ['हिन्दी', 'भाषा']);
      expectTokens('Москва', ['москва']);
    });

    it('lets accented and plain Latin spellings meet', () => {
      expect(tokenize('naïve')).toContain(tokenize('naive')[0]);
      expect(tokenize('Zürich')).toContain('zurich');
    });

    it('splits unspaced CJK into bigrams', () => {
      expect(tokenize('東京都に住んでいます')).toEqual(['東京', '京都', '都に', 'に住', '住ん', 'んで', 'でい', 'いま', 'ます']);
      expect(tokenize('𠀀𠀁𠀂')).toEqual(['𠀀𠀁', '𠀁𠀂']);
    });

    it('drops symbols and emoji', () => {
      expect(tokenize('🎉 — … ★')).toEqual([]);
    });
  });

  describe('isCompound', () => {
    it('is true for identifiers and false for words and numbers', () => {
      expect(['adr-007', '#4821', 'v1.2.3', 'a/b'].every(isCompound)).toBe(true);
      expect(['adr', '4821', 'zürich', '東京'].some(isCompound)).toBe(false);
    });
  });

  describe('properties', () => {
    const anyText = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      // Lone surrogates and other raw UTF-16 code units.
      fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
      fc.string({ unit: fc.constantFrom(...'aZé東İΣ\u0301\u200c-_.:/@#+~?&=%$\'’ 0123456789'.split('')), maxLength: 40 }),
    );

    it('never throws and yields non-empty lowercase tokens without whitespace', () => {
      fc.assert(
        fc.property(anyText, (text) => {
          for (const token of tokenize(text)) {
            expect(token.length).toBeGreaterThan(0);
            expect(token.length).toBeLessThanOrEqual(MAX_TOKEN_LENGTH);
            expect(token).toBe(token.toLowerCase());
            expect(token).not.toMatch(/\s/u);
          }
        }),
        { seed: SEED, numRuns: 2000 },
      );
    });

    it('is deterministic', () => {
      fc.assert(
        fc.property(anyText, (text) => {
          expect(tokenize(text)).toEqual(tokenize(text));
        }),
        { seed: SEED, numRuns: 500 },
      );
    });

    it('reproduces every unstemmed token when its output is tokenized again', () => {
      // Porter stemming is not idempotent and camelCase wholes re-split, so only compound terms
      // (identifiers, numbers with separators) are fixed points.
      fc.assert(
        fc.property(anyText, (text) => {
          const tokens = tokenize(text).filter(isCompound);
          const again = new Set(tokenize(tokens.join(' ')));
          for (const token of tokens) {
            expect(again.has(token), token).toBe(true);
            expect(tokenize(token)).toContain(token);
          }
        }),
        { seed: SEED, numRuns: 2000 },
      );
    });

    it('reads ASCII text by character codes to the very terms the pattern loop gives any other text', () => {
      // One CJK character after a space sends the same text down the pattern loop (NFKC leaves
      // ASCII as it is) and adds its own term, alone, at the end.
      const word = fc.tuple(fc.constantFrom('', 'A', 'Q'), fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 250, max: 260 }))).map(([cap, n]) => cap + 'abcdefghij'.repeat(26).slice(0, n));
      const ascii = fc.string({ unit: fc.constantFrom(...'aAzZmQ09-_.:/\\@#+~?&=%$\'"!(), \n\t'.split('')), maxLength: 60 });
      const text = fc.array(fc.oneof(word, ascii, fc.constantFrom('the', 'The', 'running', 'ADR-007', 'C++', 'v1.2.3', 'getHTTPResponse', "Caroline's")), { maxLength: 12 }).map((parts) => parts.join(' '));
      fc.assert(
        fc.property(text, (t) => {
          expect(tokenize(t)).toEqual(tokenize(`${t} 中`).slice(0, -1));
          expect(tokenize(`${t} 中`).at(-1)).toBe('中');
        }),
        { seed: SEED, numRuns: 3000 },
      );
    });

    it('keeps every whole letters-dash-digits identifier as a token', () => {
      const identifier = fc.stringMatching(/^[A-Za-z]{1,8}-\d{1,6}$/);
      const wrap = fc.constantFrom(['', ''], ['(', ')'], ['"', '".'], ['', ','], ['', '?'], ['', "'s"]);
      fc.assert(
        fc.property(anyText, identifier, wrap, anyText, (before, id, [open, close], after) => {
          const text = `${before} ${open}${id}${close} ${after}`;
          expect(tokenize(text)).toContain(id.toLowerCase());
        }),
        { seed: SEED, numRuns: 2000 },
      );
    });
  });
});
