/**
 * A store that does not save its derived indexes in the background (an in-memory one) folds the
 * lexical and entity indexes' many changes into their flat bases once writes go quiet, as a save
 * would: less heap, and every answer the same to the last bit.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteWasmDriver } from '../../src/index.js';
import { EntityIndex } from '../../src/legs/graph/entity-index.js';
import { Bm25Index } from '../../src/legs/lexical/bm25-index.js';
import { DEFAULT_SAVE_AFTER_MS } from '../../src/memory/quiet-save.js';
import { clusteredVectors } from '../support/clustered-vectors.js';
import { ids, openMemory, recorder } from '../support/memory.js';
import { rng } from '../support/random.js';

const WORDS = ['memory', 'agent', 'decision', 'cache', 'sqlite', 'vector', 'Zürich', 'order', 'ADR-007', '#4821', 'rollback', 'zanzibar'];
const QUERIES = ['ADR-007', 'order #4821', 'memory agent decision', 'zanzibar rollback', 'Zürich cache'];
const textOf = (random: () => number) => Array.from({ length: 2 + Math.floor(random() * 6) }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');

function sameLexical(compacted: Bm25Index, original: Bm25Index): void {
  expect(compacted.size).toBe(original.size);
  expect(compacted.termCount).toBe(original.termCount);
  for (const query of QUERIES) expect(compacted.search(query, 50), query).toEqual(original.search(query, 50));
}

describe('compacting the lexical index', () => {
  it('folds many changes into its base, leaves a few, and answers as the index that was not compacted', () => {
    const random = rng(4);
    const texts = new Map<number, string>();
    const compacted = new Bm25Index();
    const original = new Bm25Index();
    const add = (no: number) => {
      texts.set(no, textOf(random));
      for (const index of [compacted, original]) index.add(no, texts.get(no)!);
    };
    const remove = (no: number) => {
      for (const index of [compacted, original]) expect(index.remove(no, texts.get(no)!)).toBe(true);
      texts.delete(no);
    };
    for (let no = 0; no < 3_000; no++) add(no);
    expect(compacted.compact()).toBe(true);
    expect(compacted.compact()).toBe(false);
    sameLexical(compacted, original);

    // 3,000 held: a fold takes more than max(64, 3,000 / 64) changes.
    for (let no = 0; no < 30; no++) remove(no);
    for (let no = 3_000; no < 3_030; no++) add(no);
    expect(compacted.compact()).toBe(false);
    sameLexical(compacted, original);
    for (let no = 30; no < 50; no++) remove(no);
    expect(compacted.compact()).toBe(true);
    sameLexical(compacted, original);
    sameLexical(Bm25Index.load(compacted.save()), original);
    expect(new Bm25Index().compact()).toBe(false);
  });
});

const NAMES = ['Ana Lima', 'Bob', 'ADR-007', 'Order #4821', 'Zürich', 'Caroline'];
const ENTITY_QUERIES = ['Ana Lima and Bob', 'ADR-007', 'Order #4821 in Zürich', 'Caroline met Bob'];

function sameEntities(compacted: EntityIndex, original: EntityIndex, seeds: number[]): void {
  expect(compacted.size).toBe(original.size);
  const weighted = seeds.map((no, i) => ({ no, weight: 1 / (i + 1) }));
  for (const q of ENTITY_QUERIES) {
    expect(compacted.known(q), q).toEqual(original.known(q));
    expect(compacted.walk(weighted, compacted.known(q), { k: 20, tolerance: 0 }), q).toEqual(original.walk(weighted, original.known(q), { k: 20, tolerance: 0 }));
  }
}

describe('compacting the entity index', () => {
  it('folds many changes into a base and answers, to the bit, as the index that was not', () => {
    const compacted = new EntityIndex({ minCap: 2 });
    const original = new EntityIndex({ minCap: 2 });
    for (let no = 0; no < 200; no++) for (const index of [compacted, original]) index.add(no, `Person${no % 9} met ${NAMES[no % NAMES.length]}`);
    expect(compacted.compact()).toBe(true);
    expect(compacted.compact()).toBe(false);
    sameEntities(compacted, original, [1, 5, 120]);
    // 200 held: more than 64 changes fold, fewer stay beside the base.
    for (let no = 0; no < 10; no++) for (const index of [compacted, original]) index.remove(no);
    expect(compacted.compact()).toBe(false);
    for (let no = 200; no < 270; no++) for (const index of [compacted, original]) index.add(no, `Caroline and ${NAMES[no % NAMES.length]}`);
    expect(compacted.compact()).toBe(true);
    sameEntities(compacted, original, [12, 230]);
    sameEntities(EntityIndex.load(compacted.save(), { minCap: 2 }), original, [12, 230]);
  });

  it('answers as the index that was not compacted, whatever the changes and wherever the compactions', () => {
    type Op = { op: 'add'; no: number; text: string } | { op: 'remove'; no: number } | { op: 'compact' };
    const textArb = fc.array(fc.constantFrom(...NAMES, 'met', 'about'), { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      { weight: 6, arbitrary: fc.record({ op: fc.constant('add' as const), no: fc.integer({ min: 0, max: 120 }), text: textArb }) },
      { weight: 2, arbitrary: fc.record({ op: fc.constant('remove' as const), no: fc.integer({ min: 0, max: 120 }) }) },
      { weight: 1, arbitrary: fc.constant({ op: 'compact' as const }) },
    );
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 300 }), (ops) => {
        const compacted = new EntityIndex({ minCap: 2 });
        const original = new EntityIndex({ minCap: 2 });
        for (const o of ops) {
          if (o.op === 'compact') compacted.compact();
          else if (o.op === 'add') for (const index of [compacted, original]) index.add(o.no, o.text);
          else for (const index of [compacted, original]) index.remove(o.no);
        }
        sameEntities(compacted, original, [0, 7, 60]);
      }),
      { numRuns: 60 },
    );
  });
});

describe('a store that does not save compacts once writes go quiet', () => {
  const COMPACTED = 'compacted the derived indexes after writes went quiet';
  const vectors = clusteredVectors(103, { dim: 32, seed: 9 });
  const random = rng(11);
  const items = vectors.slice(0, 100).map((embedding, i) => ({ id: `m${i}`, text: `${textOf(random)} with ${NAMES[i % NAMES.length]}`, embedding }));
  const answers = async (mem: Awaited<ReturnType<typeof openMemory>>) =>
    Promise.all(QUERIES.map(async (q, i) => (await mem.recall(q, { k: 10, queryEmbedding: vectors[100 + (i % 3)]! })).map((h) => [h.id, h.score])));

  afterEach(() => {
    vi.useRealTimers();
  });

  /** Turns the event loop (its slices run on setImmediate, which the fake timers leave real) until `done()` holds, or fails. */
  async function turnsUntil(done: () => boolean): Promise<void> {
    for (let turn = 0; turn < 1_000 && !done(); turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(done()).toBe(true);
  }

  it('in memory: after the quiet time, its answers unchanged; again after later writes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const log = recorder();
    const mem = await openMemory({ embedder: null, logger: log.logger });
    try {
      await mem.storeMany(items.slice(0, 90));
      await mem.relate('m1', 'm2', 'DEPENDS_ON');
      const before = await answers(mem);
      vi.advanceTimersByTime(DEFAULT_SAVE_AFTER_MS - 1);
      expect(log.messages).not.toContain(COMPACTED);
      vi.advanceTimersByTime(1);
      await turnsUntil(() => log.messages.includes(COMPACTED));
      expect(await answers(mem)).toEqual(before);
      // Ten more: 64 changes or fewer stay beside the bases, so nothing folds and nothing is said.
      await mem.storeMany(items.slice(90, 100));
      const later = await answers(mem);
      vi.advanceTimersByTime(DEFAULT_SAVE_AFTER_MS);
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(log.messages.filter((m) => m === COMPACTED)).toHaveLength(1);
      expect(await answers(mem)).toEqual(later);
      expect(ids(await mem.recall('ADR-007', { k: 3, queryEmbedding: vectors[100]! }))).toHaveLength(3);
    } finally {
      await mem.close();
    }
  });

  it('not when it saves in the background instead, and nothing is left pending after close', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const saving = recorder();
    const mem = await openMemory({ storage: await SqliteWasmDriver.open(), embedder: null, saveIndexesAfterMs: 10, logger: saving.logger });
    await mem.storeMany(items);
    vi.advanceTimersByTime(DEFAULT_SAVE_AFTER_MS);
    await turnsUntil(() => saving.messages.includes('saved the derived indexes after writes went quiet'));
    expect(saving.messages).not.toContain(COMPACTED);
    await mem.close();

    const closing = recorder();
    const other = await openMemory({ embedder: null, logger: closing.logger });
    await other.storeMany(items);
    await other.close();
    vi.advanceTimersByTime(DEFAULT_SAVE_AFTER_MS);
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(closing.messages).not.toContain(COMPACTED);
    expect(closing.messages.filter((m) => /could not/.test(m))).toEqual([]);
  });
});
