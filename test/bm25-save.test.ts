/**
 * The lexical index's saved form: a save loads to the same answers, counts and bytes, handed over
 * whole or in pieces, and every older version still reads; malformed or unknown bytes are refused
 * with a coded error.
 */
import { describe, expect, it } from 'vitest';
import { HybridMindError } from '../src/errors.js';
import { Bm25Index } from '../src/legs/lexical/bm25-index.js';
import { decodeChanges, encodeFlat, readHeader, readState } from '../src/legs/lexical/flat-binary.js';
import type { FlatState } from '../src/legs/lexical/minisearch-state.js';
import { inPieces } from './support/parted.js';
import { rng } from './support/random.js';
import { codeOf, indexOf, nos } from './support/bm25.js';

const SEED = 20_240_501;

const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

type PlainState = { documentCount: number; nextId: number; averageFieldLength: number; docs: number[]; texts?: string[]; terms: string[]; postings: number[] };

/**
 * A saved snapshot's header without its section sizes, and its state as plain arrays (texts only
 * from version 3). A version 5 save must have no changes after its base (the first save of an
 * index folds them all in), and reads as the version 4 save of that base.
 */
function decoded(bytes: Uint8Array): { header: Record<string, unknown>; state: PlainState } {
  const { header, body } = readHeader(bytes);
  const { docs, texts, terms, postings, rest: after } = readState(bytes, header, body, header['version'] === 3);
  const { sizes: _sizes, documentCount, nextId, averageFieldLength, ...rest } = header;
  if (header['version'] === 5) {
    const { removed, gone, added } = decodeChanges(after);
    if (removed.length + gone.length + added.documentCount > 0) throw new Error('decoded: the save has changes after its base');
    rest['version'] = 4;
  }
  return { header: rest, state: { documentCount: documentCount as number, nextId: nextId as number, averageFieldLength: averageFieldLength as number, docs: Array.from(docs), ...(texts ? { texts } : {}), terms, postings: Array.from(postings) } };
}

/** A save without changes after its base (see `decoded`) as version 4 wrote it. */
function asVersion4(bytes: Uint8Array): Uint8Array {
  const { header, state } = decoded(bytes);
  return reencoded(header, state);
}

/** A save's postings by term, in term order (minisearch's term order depends on its insertion history). */
function postingsOf(bytes: Uint8Array): Array<[string, number[]]> {
  const { state } = decoded(bytes);
  let at = 0;
  return state.terms.map((term) => [term, state.postings.slice(at + 1, (at += 1 + 2 * state.postings[at]!))] as [string, number[]]).sort(([a], [b]) => (a < b ? -1 : 1));
}

function reencoded(header: Record<string, unknown>, state: Omit<FlatState, 'texts'>): Uint8Array {
  const { documentCount, nextId, averageFieldLength } = state;
  return encodeFlat({ ...header, documentCount, nextId, averageFieldLength }, state);
}

/**
 * A saved snapshot as the versions before 4 held it, with every memory's text (`textOf` gives
 * what the index was built from, since version 4 keeps none).
 */
function withTexts(bytes: Uint8Array, textOf: (no: number) => string): { header: Record<string, unknown>; state: PlainState & { texts: string[] } } {
  const { header, state } = decoded(bytes);
  const texts = Array.from({ length: state.docs.length / 3 }, (_, i) => textOf(state.docs[3 * i + 1]!));
  return { header, state: { ...state, texts } };
}

/**
 * Version 4 bytes as version 3 wrote them, which stores saved until then hold: `texts` (one per
 * document, in its order) go in as their lengths after the documents and one UTF-8 run after
 * the postings, and the header says version 3.
 */
function asVersion3(v4: Uint8Array, texts: readonly string[]): Uint8Array {
  const { header, body } = readHeader(v4);
  const { docs, terms, postings } = header.sizes;
  const lengthsAt = body + 24 * docs;
  const runAt = lengthsAt + 4 * (terms + postings);
  const run = new TextEncoder().encode(texts.join(''));
  const lengths = new Uint8Array(4 * texts.length);
  texts.forEach((t, i) => new DataView(lengths.buffer).setUint32(4 * i, t.length, true));
  const runLength = new Uint8Array(4);
  new DataView(runLength.buffer).setUint32(0, run.length, true);
  // The magic and the header's length stay; the header's JSON says version 3 in as many bytes.
  const json = new TextEncoder().encode(new TextDecoder().decode(v4.subarray(12, body)).replace('"version":4', '"version":3'));
  return Uint8Array.from([...v4.subarray(0, 12), ...json, ...v4.subarray(body, lengthsAt), ...lengths, ...v4.subarray(lengthsAt, runAt), ...runLength, ...run, ...v4.subarray(runAt)]);
}

/** A saved snapshot rewritten as version 3 (the texts in the bytes too). */
function v3Bytes(bytes: Uint8Array, textOf: (no: number) => string): Uint8Array {
  const v4 = asVersion4(bytes);
  return asVersion3(v4, withTexts(v4, textOf).state.texts);
}

/** A saved snapshot rewritten as version 2 (the flat state as JSON, which stores saved before version 3). */
function flatJsonEnvelope(bytes: Uint8Array, textOf: (no: number) => string): Record<string, unknown> {
  const { header, state } = withTexts(bytes, textOf);
  return { ...header, version: 2, state };
}

/**
 * A saved snapshot rewritten as version 1 (minisearch's own `toJSON` shape, which the first
 * release saved), so the reader of stores saved then stays tested.
 */
function nestedEnvelope(bytes: Uint8Array, textOf: (no: number) => string): Record<string, unknown> {
  const { state, ...rest } = flatJsonEnvelope(bytes, textOf) as { state: PlainState & { texts: string[] } };
  const documentIds: Record<string, number> = {};
  const fieldLength: Record<string, number[]> = {};
  const storedFields: Record<string, { text: string }> = {};
  state.texts.forEach((text, i) => {
    const [shortId, no, length] = state.docs.slice(3 * i, 3 * i + 3) as [number, number, number];
    documentIds[shortId] = no;
    fieldLength[shortId] = [length];
    storedFields[shortId] = { text };
  });
  let at = 0;
  const index = state.terms.map((term) => {
    const n = state.postings[at++]!;
    const freqs: Record<string, number> = {};
    for (let j = 0; j < n; j++, at += 2) freqs[state.postings[at]!] = state.postings[at + 1]!;
    return [term, { 0: freqs }];
  });
  return {
    ...rest,
    version: 1,
    index: { documentCount: state.documentCount, nextId: state.nextId, documentIds, fieldIds: { text: 0 }, fieldLength, averageFieldLength: [state.averageFieldLength], storedFields, dirtCount: 0, index, serializationVersion: 2 },
  };
}

function randomCorpus(seed: number, size: number): string[] {
  const next = rng(seed);
  const words = ['memory', 'agent', 'decision', 'cache', 'sqlite', 'vector', 'graph', 'Zürich', '東京', 'order', 'section', 'release'];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const corpus: string[] = [];
  for (let i = 0; i < size; i++) {
    const parts: string[] = [];
    const length = 3 + Math.floor(next() * 12);
    for (let j = 0; j < length; j++) {
      const roll = next();
      if (roll < 0.15) parts.push(`ADR-${String(Math.floor(next() * 120)).padStart(3, '0')}`);
      else if (roll < 0.25) parts.push(`#${4800 + Math.floor(next() * 40)}`);
      else parts.push(pick(words));
    }
    corpus.push(parts.join(' '));
  }
  return corpus;
}

describe('Bm25Index', () => {
  describe('save and load', () => {
    const corpus = randomCorpus(SEED, 300);
    const queries = ['ADR-007', 'ADR-070 sqlite', '#4821', 'order #4812', 'Zürich 東京', 'memory agent decision', 'release'];

    /** The corpus indexed, with memory 3 removed and 5 replaced, and what each memory holds. */
    function changed(options?: ConstructorParameters<typeof Bm25Index>[0]): { index: Bm25Index; textOf: (no: number) => string } {
      const index = indexOf(corpus, options);
      const texts = new Map(corpus.map((text, no) => [no, text]));
      index.remove(3, corpus[3]!);
      texts.delete(3);
      index.remove(5, corpus[5]!);
      index.add(5, 'replaced ADR-007 text');
      texts.set(5, 'replaced ADR-007 text');
      return { index, textOf: (no) => texts.get(no)! };
    }

    it('round-trips to identical results, parameters included', () => {
      const { index } = changed({ k1: 1.5, b: 0.5 });
      const restored = Bm25Index.load(index.save());
      expect(restored.size).toBe(index.size);
      expect(restored.termCount).toBe(index.termCount);
      for (const query of queries) expect(restored.search(query, 20), query).toEqual(index.search(query, 20));
    });

    it('reads a loaded index in place: the same answers, counts and saved bytes, and changes after it', () => {
      const { index } = changed({ k1: 1.5, b: 0.5 });
      const bytes = index.save();
      const restored = Bm25Index.load(bytes);
      expect(restored.save()).toEqual(bytes);
      expect(restored.size).toBe(index.size);
      expect(restored.termCount).toBe(index.termCount);
      for (let no = 0; no < 60; no++) expect(restored.has(no), `has ${no}`).toBe(index.has(no));
      for (const query of queries) expect(restored.search(query, 20), query).toEqual(index.search(query, 20));
      for (const target of [index, restored]) {
        target.add(1000, 'ADR-007 zanzibar rollback');
        expect(target.remove(1000, 'ADR-007 zanzibar rollback')).toBe(true);
        target.add(1001, 'zanzibar cache');
      }
      // Saved again, both write the base they share and the same changes after it.
      expect(restored.save()).toEqual(index.save());
      for (const query of [...queries, 'zanzibar']) expect(restored.search(query, 20), query).toEqual(index.search(query, 20));
    });

    it('answers and takes changes from a load at once, with no maps filled later', async () => {
      const { index } = changed();
      const log: string[] = [];
      const restored = Bm25Index.load(index.save(), { logger: (_level, message) => log.push(message) });
      const before = queries.map((query) => restored.search(query, 20));
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(log).toEqual([]);
      expect(queries.map((query) => restored.search(query, 20))).toEqual(before);
      expect(queries.map((query) => index.search(query, 20))).toEqual(before);
      for (const target of [index, restored]) {
        target.add(1000, 'zanzibar ADR-007');
        expect(target.remove(7, corpus[7]!)).toBe(true);
      }
      expect(nos(restored, 'zanzibar')).toEqual([1000]);
      for (const query of queries) expect(restored.search(query, 20), query).toEqual(index.search(query, 20));
    });

    it('still loads a state whose postings are out of short id order (never written, but readable before)', () => {
      const index = indexOf(['alpha beta', 'alpha', 'alpha gamma']);
      const { header, state } = decoded(index.save());
      const at = state.terms.indexOf('alpha');
      let offset = 0;
      for (let t = 0; t < at; t++) offset += 1 + 2 * state.postings[offset]!;
      const pairs = state.postings.slice(offset + 1, offset + 7);
      state.postings.splice(offset + 1, 6, ...pairs.slice(4), ...pairs.slice(2, 4), ...pairs.slice(0, 2));
      const restored = Bm25Index.load(reencoded(header, state));
      expect(restored.search('alpha gamma', 10)).toEqual(index.search('alpha gamma', 10));
      expect(restored.remove(2, 'alpha gamma')).toBe(true);
      expect(nos(restored, 'alpha').sort()).toEqual([0, 1]);
    });

    it('saves its terms in increasing order, and still reads an older save whose terms are not', () => {
      const index = indexOf(corpus.slice(0, 80));
      const { header, state } = decoded(index.save());
      expect(state.terms.every((t, i) => i === 0 || state.terms[i - 1]! < t)).toBe(true);
      // The same postings with the terms' blocks in reverse order, as builds before this one could save them.
      const blocks: Array<[string, number[]]> = [];
      let at = 0;
      for (const term of state.terms) blocks.push([term, state.postings.slice(at, (at += 1 + 2 * state.postings[at]!))]);
      blocks.reverse();
      const reversed = { ...state, terms: blocks.map(([t]) => t), postings: blocks.flatMap(([, p]) => p) };
      const restored = Bm25Index.load(reencoded(header, reversed));
      for (const query of queries) expect(restored.search(query, 10), query).toEqual(index.search(query, 10));
      expect(restored.termCount).toBe(index.termCount);
      expect(postingsOf(restored.save())).toEqual(postingsOf(index.save()));
    });

    it('loads a save handed over in parts, cut anywhere, to the same index, older versions too', () => {
      const { index, textOf } = changed({ k1: 1.5, b: 0.5 });
      const saved = index.save();
      const older = [v3Bytes(saved, textOf), encode(flatJsonEnvelope(saved, textOf))];
      for (const bytes of [saved, ...older]) {
        for (const size of [1, 7, 4_096, 1 << 20]) {
          const pieces = inPieces(bytes, size);
          const restored = Bm25Index.load(pieces.bytes);
          for (const query of queries) expect(restored.search(query, 20), query).toEqual(index.search(query, 20));
          expect(restored.save()).toEqual(saved);
          // The current layout is read once, into place; older ones are joined and read whole.
          if (bytes === saved) expect(pieces.visited()).toBe(Math.ceil(bytes.length / size));
          else expect(pieces.visited()).toBeGreaterThan(Math.ceil(bytes.length / size));
        }
      }
      for (const lost of ['last', 'middle'] as const) expect(() => Bm25Index.load(inPieces(saved, 1_000, lost).bytes)).toThrow(/do not make a whole snapshot/);
      expect(codeOf(() => Bm25Index.load({ length: 4 } as unknown as Uint8Array))).toBe('INVALID_ARGUMENT');
    });

    it('keeps removal exact after a load', () => {
      const restored = Bm25Index.load(indexOf(['alpha', 'beta zanzibar']).save());
      const before = restored.termCount;
      expect(restored.remove(1, 'beta zanzibar')).toBe(true);
      expect(restored.termCount).toBe(before - 2);
      expect(nos(restored, 'zanzibar')).toEqual([]);
    });

    it('rebuilds a snapshot written by another tokenizer version from its texts, and refuses one without them', () => {
      const index = indexOf(corpus.slice(0, 50));
      const textOf = (no: number) => corpus[no]!;
      const plain = decoded(index.save());
      const restored = Bm25Index.load(v3Bytes(reencoded({ ...plain.header, tokenizer: 0 }, plain.state), textOf));
      for (const query of queries) expect(nos(restored, query), query).toEqual(nos(index, query));
      const json = flatJsonEnvelope(index.save(), textOf);
      const fromJson = Bm25Index.load(encode({ ...json, tokenizer: 0 }));
      for (const query of queries) expect(nos(fromJson, query), query).toEqual(nos(index, query));
      expect(codeOf(() => Bm25Index.load(reencoded({ ...plain.header, tokenizer: 0 }, plain.state)))).toBe('UNSUPPORTED');
    });

    it('throws CORRUPT on malformed bytes', () => {
      const texts = ['alpha ADR-007', 'beta'];
      const good = indexOf(texts).save();
      const textOf = (no: number) => texts[no]!;
      const good3 = v3Bytes(good, textOf);
      const nested = nestedEnvelope(good, textOf);
      const v1 = (mutate: (index: Record<string, unknown>) => void): Uint8Array => {
        const copy = structuredClone(nested) as { index: Record<string, unknown> };
        mutate(copy.index);
        return encode(copy);
      };
      const flat = flatJsonEnvelope(good, textOf) as { state: Record<string, unknown[] | number> };
      const v2 = (mutate: (state: Record<string, unknown[] | number>) => void): Uint8Array => {
        const copy = structuredClone(flat);
        mutate(copy.state);
        return encode(copy);
      };
      const { header, state } = decoded(good);
      const v4 = (mutate: (state: PlainState) => void): Uint8Array => {
        const copy = structuredClone(state);
        mutate(copy);
        return reencoded(header, copy);
      };
      const v3 = (mutate: (state: PlainState & { texts: string[] }) => void): Uint8Array => {
        const copy = structuredClone(withTexts(good, textOf).state);
        mutate(copy);
        return asVersion3(reencoded(header, copy), copy.texts);
      };
      // Byte-level damage: the header length, the header, a section size, trailing bytes, UTF-8.
      const bytesWith = (edit: (bytes: Uint8Array, view: DataView) => void, from = good): Uint8Array => {
        const copy = from.slice();
        edit(copy, new DataView(copy.buffer));
        return copy;
      };
      const headerLength = new DataView(good3.buffer, good3.byteOffset).getUint32(8, true);
      const bad: Uint8Array[] = [
        new Uint8Array([0xff, 0xfe, 0x00]),
        new Uint8Array(0),
        good.subarray(0, good.length - 7),
        new TextEncoder().encode('{}'),
        new TextEncoder().encode('[1,2,3]'),
        new TextEncoder().encode('{"format":"hybridmind.bm25","version":1,"tokenizer":1,"index":null}'),
        new TextEncoder().encode('{"format":"hybridmind.bm25","version":2,"tokenizer":1,"state":null}'),
        v1((index) => delete index['documentIds']),
        v1((index) => (index['index'] = [['alpha', 5]])),
        v1((index) => (index['storedFields'] = {})),
        v1((index) => (index['documentCount'] = 9)),
        v1((index) => (index['fieldIds'] = { title: 0 })),
        v2((state) => delete state['texts']),
        v2((state) => (state['documentCount'] = 9)),
        v2((state) => (state['texts'] = ['only one'])),
        v2((state) => ((state['docs'] as number[])[1] = -1)),
        // A short id, memory number or length held as a string of digits.
        v2((state) => ((state['docs'] as unknown[])[0] = String((state['docs'] as number[])[0]))),
        v2((state) => ((state['docs'] as unknown[])[1] = String((state['docs'] as number[])[1]))),
        v2((state) => ((state['docs'] as unknown[])[2] = String((state['docs'] as number[])[2]))),
        v2((state) => (state['docs'] = [...(state['docs'] as number[]).slice(0, 3), ...(state['docs'] as number[]).slice(0, 3)])),
        v2((state) => ((state['postings'] as number[])[1] = 77)),
        v2((state) => ((state['postings'] as unknown[])[1] = String((state['postings'] as number[])[1]))),
        v2((state) => ((state['postings'] as number[])[2] = 0)),
        v2((state) => (state['nextId'] = 2 ** 40)),
        v2((state) => ((state['postings'] as number[])[0] = 1000)),
        v2((state) => (state['postings'] as number[]).push(1)),
        v2((state) => (state['terms'] as unknown[]).push(5)),
        good.subarray(0, 10),
        bytesWith((_, view) => view.setUint32(8, 2 ** 30, true)),
        bytesWith((bytes) => (bytes[12] = 0x5b)),
        bytesWith((bytes) => (bytes[12 + headerLength - 2] = 0xff)),
        v4((s) => (s.documentCount = 9)),
        v4((s) => (s.nextId = 2 ** 40)),
        v4((s) => (s.averageFieldLength = Number.NaN)),
        Uint8Array.from([...good, 0]),
        // The header whole, the number sections it sizes cut off.
        good.subarray(0, 12 + new DataView(good.buffer, good.byteOffset).getUint32(8, true) + 8),
        v4((s) => (s.docs[1] = -1)),
        v4((s) => (s.docs[2] = 0.5)),
        // A short id past every one handed out, its postings moved with it.
        v4((s) => {
          const moved = s.docs[0]!;
          s.docs[0] = s.nextId;
          for (let at = 0; at < s.postings.length; at += 1 + 2 * s.postings[at]!) {
            for (let p = at + 1; p < at + 1 + 2 * s.postings[at]!; p += 2) if (s.postings[p] === moved) s.postings[p] = s.nextId;
          }
        }),
        v4((s) => (s.docs = [...s.docs.slice(0, 3), ...s.docs.slice(0, 3)])),
        v4((s) => (s.postings[1] = 77)),
        v4((s) => (s.postings[2] = 0)),
        v4((s) => (s.postings[0] = 1000)),
        v4((s) => s.postings.push(1)),
        v4((s) => (s.terms = [])),
        v4((s) => (s.terms = [s.terms[0]!, s.terms[0]!, ...s.terms.slice(2)])),
        v4((s) => (s.terms = [s.terms[1]!, s.terms[0]!, s.terms[1]!, ...s.terms.slice(3)])),
        // One memory number under two short ids: numbers dense (a bitmap finds it) and far apart (a set does).
        v4((s) => (s.docs[4] = s.docs[1]!)),
        v4((s) => {
          s.docs[1] = 2 ** 40;
          s.docs[4] = 2 ** 40;
        }),
        // Version 4 bytes read as version 3 look for texts that are not there.
        reencoded({ ...header, version: 3 }, state),
        asVersion3(asVersion4(good), ['alpha ADR-007']),
        v3((s) => (s.documentCount = 9)),
        v3((s) => (s.docs[1] = -1)),
        v3((s) => s.texts.pop()),
        Uint8Array.from([...good3, 0]),
        // The texts' UTF-8 broken, then their lengths disagreeing with what they hold.
        bytesWith((bytes) => (bytes[bytes.length - state.terms.join('').length - 6] = 0xff), good3),
        bytesWith((bytes, view) => view.setUint32(12 + headerLength + 8 * state.docs.length, 999, true), good3),
      ];
      bad.forEach((bytes, i) => expect(codeOf(() => Bm25Index.load(bytes)), `case ${i}: ${new TextDecoder().decode(bytes.subarray(0, 60))}`).toBe("CORRUPT"));
      // Handed over in parts, the same bytes fail the same way.
      const failure = (fn: () => unknown) => {
        try {
          fn();
        } catch (error) {
          return error instanceof HybridMindError ? `${error.code}: ${error.message}` : String(error);
        }
        return 'loaded';
      };
      bad.forEach((bytes, i) => {
        for (const size of [5, 1 << 16]) expect(failure(() => Bm25Index.load(inPieces(bytes, size).bytes)), `case ${i}, pieces of ${size}`).toBe(failure(() => Bm25Index.load(bytes)));
      });
    });

    it('still loads the version 1 snapshot (minisearch\'s own JSON) to identical results', () => {
      const { index, textOf } = changed({ k1: 1.5, b: 0.5 });
      const restored = Bm25Index.load(encode(nestedEnvelope(index.save(), textOf)));
      expect(restored.size).toBe(index.size);
      for (const query of queries) expect(restored.search(query, 20), query).toEqual(index.search(query, 20));
    });

    it('still loads the version 2 snapshot (the flat state as JSON) to identical results', () => {
      const { index, textOf } = changed({ k1: 1.5, b: 0.5 });
      const restored = Bm25Index.load(encode(flatJsonEnvelope(index.save(), textOf)));
      expect(restored.size).toBe(index.size);
      expect(restored.termCount).toBe(index.termCount);
      for (const query of queries) expect(restored.search(query, 20), query).toEqual(index.search(query, 20));
    });

    it('still loads the version 3 snapshot (binary, with the texts) to identical results', () => {
      const { index, textOf } = changed({ k1: 1.5, b: 0.5 });
      const restored = Bm25Index.load(v3Bytes(index.save(), textOf));
      expect(restored.size).toBe(index.size);
      expect(restored.termCount).toBe(index.termCount);
      for (const query of queries) expect(restored.search(query, 20), query).toEqual(index.search(query, 20));
      expect(restored.remove(5, 'replaced ADR-007 text')).toBe(true);
    });

    it('throws UNSUPPORTED on an unknown format version', () => {
      const bytes = new TextEncoder().encode('{"format":"hybridmind.bm25","version":99}');
      expect(codeOf(() => Bm25Index.load(bytes))).toBe('UNSUPPORTED');
      const { header, state } = decoded(indexOf(['alpha']).save());
      expect(codeOf(() => Bm25Index.load(reencoded({ ...header, version: 2 }, state)))).toBe('UNSUPPORTED');
    });
  });
});
