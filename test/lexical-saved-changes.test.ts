/**
 * A lexical save writes its base as it was saved before and the changes since after it (format
 * version 5), so a store saving again after a few writes rewrites only the bytes at the end; an
 * index loaded from it answers, to the bit, as the one that saved it.
 */
import { describe, expect, it } from 'vitest';
import { HybridMindError } from '../src/errors.js';
import { Bm25Index } from '../src/legs/lexical/bm25-index.js';
import { decodeChanges, encodeChanges, readHeader, readState } from '../src/legs/lexical/flat-binary.js';
import type { Changes } from '../src/legs/lexical/layered-postings.js';
import { rng } from './support/random.js';

const WORDS = ['memory', 'agent', 'decision', 'cache', 'sqlite', 'vector', 'graph', 'Zürich', 'order', 'release', 'ADR-007', '#4821', 'rollback', 'zanzibar'];
const QUERIES = ['ADR-007', 'order #4821', 'memory agent decision', 'zanzibar rollback', 'Zürich cache', 'release'];

function textOf(random: () => number): string {
  return Array.from({ length: 2 + Math.floor(random() * 8) }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');
}

/** The base's bytes and the changes after them. */
function split(bytes: Uint8Array): { base: Uint8Array; changes: Changes } {
  const { header, body } = readHeader(bytes);
  const { rest } = readState(bytes, header, body, false);
  return { base: bytes.subarray(0, bytes.length - rest.length), changes: decodeChanges(rest) };
}

/** Byte equality without a deep comparison per element (slow on large arrays). */
const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

function expectSame(loaded: Bm25Index, live: Bm25Index, nos: Iterable<number>): void {
  expect(loaded.size).toBe(live.size);
  expect(loaded.termCount).toBe(live.termCount);
  const held = (index: Bm25Index) => [...nos].filter((no) => index.has(no));
  expect(held(loaded)).toEqual(held(live));
  for (const query of QUERIES) expect(loaded.search(query, 50), query).toEqual(live.search(query, 50));
}

describe('lexical saves with the changes after the base', () => {
  it('keep the base\'s bytes through adds, removals and replacements, and load to the same answers', () => {
    for (const seed of [1, 2, 3]) {
      const random = rng(seed);
      const texts = new Map<number, string>();
      const live = new Bm25Index();
      for (let no = 0; no < 4_000; no++) {
        texts.set(no, textOf(random));
        live.add(no, texts.get(no)!);
      }
      // A term only one base document holds, gone with it: the loaded index must count it out too.
      live.remove(0, texts.get(0)!);
      texts.set(0, 'quokka');
      live.add(0, 'quokka');
      const first = live.save();
      const { base } = split(first);
      expect(split(first).changes.added.documentCount).toBe(0);
      expect(live.remove(0, 'quokka')).toBe(true);
      texts.delete(0);
      let next = 4_000;
      // At most 60 changes: under the 64 a save writes after the base.
      for (let op = 0; op < 30; op++) {
        const pick = Math.floor(random() * 3);
        const held = [...texts.keys()];
        const no = held[Math.floor(random() * held.length)]!;
        if (pick === 0) {
          texts.set(next, textOf(random));
          live.add(next, texts.get(next++)!);
        } else if (pick === 1) {
          expect(live.remove(no, texts.get(no)!)).toBe(true);
          texts.delete(no);
        } else {
          live.remove(no, texts.get(no)!);
          texts.set(no, textOf(random));
          live.add(no, texts.get(no)!);
        }
      }
      const saved = live.save();
      expect(sameBytes(saved.subarray(0, base.length), base), `seed ${seed}`).toBe(true);
      const { changes } = split(saved);
      expect(changes.added.documentCount + changes.removed.length).toBeGreaterThan(0);
      const loaded = Bm25Index.load(saved);
      expectSame(loaded, live, [...texts.keys(), next, 0, 1]);
      expect(sameBytes(loaded.save(), saved)).toBe(true);
      // Both take the same changes after it.
      for (const index of [live, loaded]) {
        index.add(next, 'zanzibar ADR-007');
        const [no, text] = [...texts][0]!;
        expect(index.remove(no, text)).toBe(true);
      }
      expectSame(loaded, live, [next, ...texts.keys()]);
    }
  });

  it('fold the changes into a new base once they pass a sixty-fourth of the documents', () => {
    const random = rng(9);
    const live = new Bm25Index();
    for (let no = 0; no < 6_400; no++) live.add(no, textOf(random));
    const { base } = split(live.save());
    for (let no = 6_400; no < 6_600; no++) live.add(no, textOf(random));
    const saved = live.save();
    const after = split(saved);
    expect(after.changes.added.documentCount).toBe(0);
    expect(after.base.length).toBeGreaterThan(base.length);
    expectSame(Bm25Index.load(saved), live, [0, 6_599]);
  });

  it('refuse changes that do not fit their base, as CORRUPT', () => {
    const random = rng(11);
    const live = new Bm25Index();
    for (let no = 0; no < 500; no++) live.add(no, textOf(random));
    live.save();
    live.remove(7, 'not its text, so the removal sweeps');
    live.add(900, 'zanzibar rollback');
    const { base, changes } = split(live.save());
    expect(changes.removed).toHaveLength(1);
    const withChanges = (edit: (c: Changes) => void): Uint8Array => {
      const copy = structuredClone(changes);
      edit(copy);
      const tail = encodeChanges(copy);
      const out = new Uint8Array(base.length + tail.length);
      out.set(base);
      out.set(tail, base.length);
      return out;
    };
    expectSame(Bm25Index.load(withChanges(() => undefined)), live, [7, 900]);
    const bad = [
      withChanges((c) => (c.removed = [9_999])),
      withChanges((c) => (c.removed = [...c.removed, ...c.removed])),
      withChanges((c) => (c.gone = [0])),
      withChanges((c) => (c.gone = [1_000_000, 1])),
      withChanges((c) => (c.gone = [0, 1_000_000])),
      withChanges((c) => (c.count = c.count + 1)),
      // Later adds would take the base's short ids.
      withChanges((c) => {
        c.added = { ...c.added, documentCount: 0, docs: [], terms: [], postings: [], nextId: 3 };
        c.count -= 1;
      }),

      withChanges((c) => (c.average = Number.NaN)),
      // An added memory under a number the base still holds.
      withChanges((c) => (c.added = { ...c.added, docs: [c.added.docs[0]!, 8, c.added.docs[2]!] })),
      // An added short id inside the base's.
      withChanges((c) => (c.added = { ...c.added, docs: [3, c.added.docs[1]!, c.added.docs[2]!], postings: Array.from(c.added.postings, (n, i) => (i % 3 === 1 ? 3 : n)) })),
      Uint8Array.from([...withChanges(() => undefined), 0]),
      base,
    ];
    bad.forEach((bytes, i) => {
      let error: unknown;
      try {
        Bm25Index.load(bytes);
      } catch (caught) {
        error = caught;
      }
      expect(error, `case ${i}`).toBeInstanceOf(HybridMindError);
      expect((error as HybridMindError).code, `case ${i}`).toBe('CORRUPT');
    });
  });
});
