import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HybridMemory, HybridMindError } from '../../src/index.js';
import { openMemory } from '../support/memory.js';

/**
 * Every public method, given bad arguments, throws a coded HybridMindError whose message starts
 * with the method name and shows the value, and the store is byte-for-byte unchanged.
 */
let mem: HybridMemory;
let snapshot: Uint8Array;

beforeAll(async () => {
  mem = await openMemory();
  await mem.storeMany([{ id: 'a', text: 'first memory' }, { id: 'b', text: 'second memory' }]);
  await mem.relate('a', 'b', 'DEPENDS_ON');
  await mem.ready();
  snapshot = await mem.exportDatabase();
});
afterAll(async () => mem.close());

type Case = [label: string, call: () => Promise<unknown>, code: string, method: string, shows?: string];

const cases: Case[] = [
  ['store: not an object', () => mem.store('text' as never), 'INVALID_ARGUMENT', 'store', '"text"'],
  ['store: empty text', () => mem.store({ text: '   ' }), 'INVALID_ARGUMENT', 'store', '"   "'],
  ['store: text not a string', () => mem.store({ text: 42 as never }), 'INVALID_ARGUMENT', 'store', '42'],
  ['store: unknown field', () => mem.store({ text: 'x', colour: 'red' } as never), 'INVALID_ARGUMENT', 'store', 'colour'],
  ['store: bad createdAt', () => mem.store({ text: 'x', createdAt: 'yesterday-ish' }), 'INVALID_ARGUMENT', 'store', 'yesterday-ish'],
  ['store: validTo before validFrom', () => mem.store({ text: 'x', validFrom: '2026-01-02', validTo: '2026-01-01' }), 'INVALID_ARGUMENT', 'store', '2026-01-01'],
  ['store: duplicate id', () => mem.store({ id: 'a', text: 'again' }), 'CONFLICT', 'store', '"a"'],
  ['store: metadata not an object', () => mem.store({ text: 'x', metadata: [1] as never }), 'INVALID_ARGUMENT', 'store', 'array(1)'],
  ['store: embedding not a Float32Array', () => mem.store({ text: 'x', embedding: [1, 2] as never }), 'INVALID_ARGUMENT', 'store', 'array(2)'],
  ['storeMany: not an array', () => mem.storeMany({} as never), 'INVALID_ARGUMENT', 'storeMany', '{}'],
  ['storeMany: one bad item', () => mem.storeMany([{ text: 'ok' }, { text: '' }]), 'INVALID_ARGUMENT', 'storeMany', 'inputs[1].text'],
  ['storeMany: duplicate ids in the batch', () => mem.storeMany([{ id: 'z', text: 'x' }, { id: 'z', text: 'y' }]), 'CONFLICT', 'storeMany', '"z"'],
  ['storeMany: bad onProgress', () => mem.storeMany([{ text: 'x' }], { onProgress: 3 as never }), 'INVALID_ARGUMENT', 'storeMany', '3'],
  ['storeMany: unknown option', () => mem.storeMany([{ text: 'x' }], { batch: 10 } as never), 'INVALID_ARGUMENT', 'storeMany', '"batch"'],
  ['relate: unknown from', () => mem.relate('nope', 'b', 'DEPENDS_ON'), 'NOT_FOUND', 'relate', '"nope"'],
  ['relate: unknown to', () => mem.relate('a', 'nope', 'DEPENDS_ON'), 'NOT_FOUND', 'relate', '"nope"'],
  ['relate: bad type', () => mem.relate('a', 'b', 'depends on'), 'INVALID_ARGUMENT', 'relate', '"depends on"'],
  ['relate: self', () => mem.relate('a', 'a', 'RELATES_TO'), 'INVALID_ARGUMENT', 'relate', '"a"'],
  ['relate: bad weight', () => mem.relate('a', 'b', 'SUPPORTS', { weight: -1 }), 'INVALID_ARGUMENT', 'relate', '-1'],
  ['relate: its ends are checked before its options', () => mem.relate(7 as never, 'b', 'SUPPORTS', { colour: 1 } as never), 'INVALID_ARGUMENT', 'relate', 'fromId'],
  ['relate: unknown option', () => mem.relate('a', 'b', 'SUPPORTS', { colour: 1 } as never), 'INVALID_ARGUMENT', 'relate', 'colour'],
  ['relate: duplicate edge', () => mem.relate('a', 'b', 'DEPENDS_ON'), 'CONFLICT', 'relate', '"a"'],
  ['relateMany: not an array', () => mem.relateMany('a' as never), 'INVALID_ARGUMENT', 'relateMany', '"a"'],
  ['relateMany: one unknown id', () => mem.relateMany([{ from: 'b', to: 'a', type: 'SUPPORTS' }, { from: 'a', to: 'zz', type: 'SUPPORTS' }]), 'NOT_FOUND', 'relateMany', '"zz"'],
  ['relateMany: repeated edge', () => mem.relateMany([{ from: 'b', to: 'a', type: 'SUPPORTS' }, { from: 'b', to: 'a', type: 'SUPPORTS' }]), 'CONFLICT', 'relateMany', 'edges[1]'],
  ['relateMany: bad weight', () => mem.relateMany([{ from: 'b', to: 'a', type: 'SUPPORTS', weight: 0 }]), 'INVALID_ARGUMENT', 'relateMany', 'edges[0].weight'],
  ['relateMany: an edge\'s keys are checked before its ends', () => mem.relateMany([{ from: 7 as never, to: 'b', type: 'SUPPORTS', colour: 1 } as never]), 'INVALID_ARGUMENT', 'relateMany', 'colour'],
  ['relateMany: bad metadata', () => mem.relateMany([{ from: 'b', to: 'a', type: 'SUPPORTS', metadata: [1] as never }]), 'INVALID_ARGUMENT', 'relateMany', 'edges[0].metadata'],
  ['unrelate: unknown edge', () => mem.unrelate('e-nope'), 'NOT_FOUND', 'unrelate', '"e-nope"'],
  ['unrelate: not a string', () => mem.unrelate(7 as never), 'INVALID_ARGUMENT', 'unrelate', '7'],
  ['recall: empty query', () => mem.recall(''), 'INVALID_ARGUMENT', 'recall', '""'],
  ['recall: bad k', () => mem.recall('q', { k: 0 }), 'INVALID_ARGUMENT', 'recall', '0'],
  ['recall: bad mode', () => mem.recall('q', { mode: 'fuzzy' as never }), 'INVALID_ARGUMENT', 'recall', '"fuzzy"'],
  ['recall: bad weight', () => mem.recall('q', { weights: { vector: -2 } }), 'INVALID_ARGUMENT', 'recall', '-2'],
  ['recall: unknown leg weight', () => mem.recall('q', { weights: { colour: 1 } as never }), 'INVALID_ARGUMENT', 'recall', 'colour'],
  ['recall: unknown option', () => mem.recall('q', { topK: 3 } as never), 'INVALID_ARGUMENT', 'recall', 'topK'],
  ['recall: unknown anchor', () => mem.recall('q', { anchors: ['ghost'] }), 'NOT_FOUND', 'recall', '"ghost"'],
  ['recall: bad asOf', () => mem.recall('q', { asOf: 'soon' }), 'INVALID_ARGUMENT', 'recall', '"soon"'],
  ['recall: bad halfLife', () => mem.recall('q', { halfLifeDays: 0 }), 'INVALID_ARGUMENT', 'recall', '0'],
  ['recall: bad depth', () => mem.recall('q', { depth: 1.5 }), 'INVALID_ARGUMENT', 'recall', '1.5'],
  ['recall: bad filter', () => mem.recall('q', { filter: { size: 'xl' } as never }), 'INVALID_ARGUMENT', 'recall', 'size'],
  ['recall: bad fusion', () => mem.recall('q', { fusion: 'max' as never }), 'INVALID_ARGUMENT', 'recall', '"max"'],
  ['compare: empty query', () => mem.compare(' '), 'INVALID_ARGUMENT', 'compare', '" "'],
  ['trace: bad direction', () => mem.trace('a', { direction: 'up' as never }), 'INVALID_ARGUMENT', 'trace', '"up"'],
  ['trace: empty', () => mem.trace(''), 'INVALID_ARGUMENT', 'trace', '""'],
  ['path: unknown id', () => mem.path('a', 'ghost'), 'NOT_FOUND', 'path', '"ghost"'],
  ['path: bad edge type', () => mem.path('a', 'b', { edgeTypes: [''] }), 'INVALID_ARGUMENT', 'path', '""'],
  ['get: not a string', () => mem.get(null as never), 'INVALID_ARGUMENT', 'get', 'null'],
  ['update: unknown id', () => mem.update('ghost', { text: 'x' }), 'NOT_FOUND', 'update', '"ghost"'],
  ['update: empty patch', () => mem.update('a', {}), 'INVALID_ARGUMENT', 'update', '{}'],
  ['update: unknown field', () => mem.update('a', { id: 'b' } as never), 'INVALID_ARGUMENT', 'update', '"id"'],
  ['update: bad validTo', () => mem.update('a', { validTo: '1970-01-01' }), 'INVALID_ARGUMENT', 'update', '1970-01-01'],
  ['update: embedding of another dim', () => mem.update('a', { embedding: new Float32Array(3) }), 'DIMENSION_MISMATCH', 'update', '3'],
  ['forget: unknown id', () => mem.forget('ghost'), 'NOT_FOUND', 'forget', '"ghost"'],
  ['edges: bad direction', () => mem.edges('a', { direction: 'sideways' as never }), 'INVALID_ARGUMENT', 'edges', '"sideways"'],
  ['edges: unknown id', () => mem.edges('ghost'), 'NOT_FOUND', 'edges', '"ghost"'],
  ['edges: unknown option', () => mem.edges('a', { dir: 'out' } as never), 'INVALID_ARGUMENT', 'edges', '"dir"'],
  ['trace: unknown option', () => mem.trace('a', { hops: 2 } as never), 'INVALID_ARGUMENT', 'trace', '"hops"'],
  ['reembed: unknown option', () => mem.reembed({ force: true } as never), 'INVALID_ARGUMENT', 'reembed', '"force"'],
];

describe('bad arguments', () => {
  for (const [label, call, code, method, shows] of cases) {
    it(`${label} → ${code}`, async () => {
      const error = await call().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HybridMindError);
      const e = error as HybridMindError;
      expect(e.code).toBe(code);
      expect(e.message.startsWith(`${method}: `)).toBe(true);
      if (shows) expect(e.message).toContain(shows);
      expect(await mem.exportDatabase()).toEqual(snapshot);
    });
  }
});

describe('open', () => {
  it.each([
    [{ storage: 'disk' }, 'INVALID_ARGUMENT'],
    [{ dim: 0 }, 'INVALID_ARGUMENT'],
    [{ embedder: { id: 'x' } }, 'INVALID_ARGUMENT'],
    [{ now: 5 }, 'INVALID_ARGUMENT'],
    [{ recall: { k: -1 } }, 'INVALID_ARGUMENT'],
    [{ recall: { anchors: ['a'] } }, 'INVALID_ARGUMENT'],
    [{ colour: 'red' }, 'INVALID_ARGUMENT'],
  ])('%j → %s', async (options, code) => {
    await expect(HybridMemory.open(options as never)).rejects.toMatchObject({ code, method: 'HybridMemory.open' });
  });

  it('a closed store answers CLOSED', async () => {
    const m = await openMemory();
    await m.close();
    await m.close();
    await expect(m.recall('q')).rejects.toMatchObject({ code: 'CLOSED' });
    await expect(m.store({ text: 'x' })).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
