/**
 * Metadata is stored as JSON text. A value JSON would drop or change is refused with the path to
 * it, at every door that takes metadata, instead of coming back as nothing, null or `{}`; what JSON
 * keeps comes back exactly as given.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HybridMemory, HybridMindError } from '../../src/index.js';
import { jsonValueProblem, MAX_METADATA_DEPTH } from '../../src/validation/rules.js';
import { codeOf } from '../support/errors.js';
import { openMemory } from '../support/memory.js';

let mem: HybridMemory | undefined;
afterEach(async () => {
  await mem?.close();
  mem = undefined;
});

class Point {
  constructor(readonly x: number) {}
}

/** Each value JSON would change, and the path and problem the refusal names. */
const CHANGED: Array<[string, Record<string, unknown>, string]> = [
  ['a function', { f: () => 1 }, '.f is a function'],
  ['a symbol', { s: Symbol('s') }, '.s is a symbol'],
  ['a bigint', { n: 10n }, '.n is a bigint'],
  ['NaN', { score: Number.NaN }, '.score is NaN'],
  ['Infinity, nested', { a: { b: [1, -Infinity] } }, '.a.b[1] is -Infinity'],
  ['undefined in an array', { tags: ['x', undefined] }, '.tags[1] is undefined or a hole'],
  // eslint-disable-next-line no-sparse-arrays
  ['a hole in an array', { tags: [, 'x'] }, '.tags[0] is undefined or a hole'],
  ['an invalid Date', { when: new Date(Number.NaN) }, '.when is an invalid Date'],
  ['a Map', { m: new Map([['k', 1]]) }, '.m is an instance of Map'],
  ['a Set', { s: new Set([1]) }, '.s is an instance of Set'],
  ['a typed array', { v: new Float32Array(2) }, '.v is an instance of Float32Array'],
  ['a class instance', { p: new Point(1) }, '.p is an instance of Point'],
  ['a boxed string', { s: new String('x') }, '.s is an instance of String'],
];

describe('metadata that JSON would change is refused', () => {
  it.each(CHANGED)('%s: store, storeMany, update, relate, relateMany and recall filters name the path', async (_what, metadata, problem) => {
    mem = await openMemory({ embedder: null });
    await mem.store({ id: 'a', text: 'first' });
    await mem.store({ id: 'b', text: 'second' });
    const calls: Array<[string, string, Promise<unknown>]> = [
      ['store', 'input.metadata', mem.store({ text: 'x', metadata })],
      ['storeMany', 'inputs[1].metadata', mem.storeMany([{ text: 'y' }, { text: 'x', metadata }])],
      ['update', 'patch.metadata', mem.update('a', { metadata })],
      ['relate', 'options.metadata', mem.relate('a', 'b', 'DEPENDS_ON', { metadata })],
      ['relateMany', 'edges[0].metadata', mem.relateMany([{ from: 'a', to: 'b', type: 'DEPENDS_ON', metadata }])],
      ['recall', 'options.filter.metadata', mem.recall('first', { filter: { metadata } })],
    ];
    for (const [method, name, call] of calls) {
      const error = await call.then(() => null, (e: unknown) => e);
      expect(error, method).toBeInstanceOf(HybridMindError);
      expect((error as HybridMindError).code, method).toBe('INVALID_ARGUMENT');
      expect((error as HybridMindError).method, method).toBe(method);
      expect((error as HybridMindError).message, method).toContain(`${name}${problem}`);
    }
    // Nothing was half-written: the two memories, unchanged, and no edge.
    expect((await mem.list()).records.map((m) => [m.id, m.metadata])).toEqual([['a', {}], ['b', {}]]);
    expect(await mem.edges('a')).toEqual([]);
  });

  it('the refusal shows the value found, not what JSON would make of it', async () => {
    mem = await openMemory({ embedder: null });
    const received = async (metadata: Record<string, unknown>) => ((await mem!.store({ text: 'x', metadata }).catch((e: unknown) => e)) as Error).message.replace(/.*, received /s, '');
    expect(await received({ m: new Map([['k', 1]]) })).toBe('Map(1)');
    expect(await received({ p: new Point(1) })).toBe('an instance of Point');
    expect(await received({ s: Symbol('s') })).toBe('Symbol(s)');
    expect(await received({ n: Number.NaN })).toBe('NaN');
  });

  it('what JSON keeps comes back exactly; a Date as its ISO string, an undefined property absent', async () => {
    mem = await openMemory({ embedder: null });
    const when = new Date('2026-12-06T10:00:00.000Z');
    const kept = { s: 'x', n: -1.5e-300, t: true, f: false, z: null, a: [1, 'two', [3], { four: 4 }], o: { deep: { deeper: [] } }, empty: {} };
    await mem.store({ id: 'kept', text: 'kept', metadata: { ...kept, when, gone: undefined } });
    expect((await mem.get('kept'))?.metadata).toEqual({ ...kept, when: '2026-12-06T10:00:00.000Z' });
    // A null-prototype object is a plain object, and the same object twice is no cycle.
    const shared = { k: 1 };
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { k: 2 });
    await mem.update('kept', { metadata: { first: shared, second: shared, bare } });
    expect((await mem.get('kept'))?.metadata).toEqual({ first: { k: 1 }, second: { k: 1 }, bare: { k: 2 } });
  });

  it('a cycle is refused by the JSON check, not looped on', async () => {
    mem = await openMemory({ embedder: null });
    const cycle: Record<string, unknown> = { a: 1 };
    cycle['self'] = { back: cycle };
    expect(jsonValueProblem(cycle)).toBeNull();
    const error = await mem.store({ text: 'x', metadata: cycle }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HybridMindError);
    expect((error as HybridMindError).message).toMatch(/^store: input\.metadata must be JSON-serialisable/);
  });

  it('nesting past 100 objects and arrays is refused on every runtime, not where JSON.stringify runs out of stack', async () => {
    mem = await openMemory({ embedder: null });
    // The metadata object is the first level, so `levels` of them holds levels − 1 arrays.
    const nested = (levels: number) => ({ deep: JSON.parse(`${'['.repeat(levels - 1)}7${']'.repeat(levels - 1)}`) as unknown });
    const id = await mem.store({ text: 'x', metadata: nested(MAX_METADATA_DEPTH) });
    expect(JSON.stringify((await mem.get(id))?.metadata)).toBe(JSON.stringify(nested(MAX_METADATA_DEPTH)));
    const refused = await mem.store({ text: 'x', metadata: nested(MAX_METADATA_DEPTH + 1) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HybridMindError);
    expect((refused as HybridMindError).message).toMatch(new RegExp(`^store: input\\.metadata\\.deep(\\[0\\]){${MAX_METADATA_DEPTH - 1}} nests deeper than ${MAX_METADATA_DEPTH} objects and arrays`));
    expect(await codeOf(mem.relate(id, id, 'RELATES_TO', { metadata: nested(5000) }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(mem.store({ text: 'x', metadata: nested(5000) }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(mem.recall('x', { filter: { metadata: nested(MAX_METADATA_DEPTH + 1) } }))).toBe('INVALID_ARGUMENT');
    expect((await mem.stats()).memories).toBe(1);
  });
});
