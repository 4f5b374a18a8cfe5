/**
 * Regression tests for the defects fuzzing found (issue 12), one `describe` each; the fuzzers
 * themselves are in the other files of this folder.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HybridMemory, HybridMindError, SqliteWasmDriver } from '../../src/index.js';
import { MAX_QUERY_LENGTH } from '../../src/validation/rules.js';
import { SlowHashEmbedder } from '../support/hash-embedder.js';
import { codeOf } from '../support/errors.js';
import { openMemory } from '../support/memory.js';

let mem: HybridMemory | undefined;
afterEach(async () => {
  await mem?.close();
  mem = undefined;
});

describe('lone UTF-16 surrogates are refused at every door, never rewritten', () => {
  const lone = ['\uD800', 'a \uDC00', '\uDBFFz'];

  it('store, storeMany, update, relate and the query methods answer INVALID_ARGUMENT', async () => {
    mem = await openMemory({ embedder: null });
    await mem.store({ id: 'ok', text: 'fine text' });
    for (const s of lone) {
      expect(await codeOf(mem.store({ id: s, text: 'x' }))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(mem.store({ text: s }))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(mem.store({ text: 'x', kind: s }))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(mem.store({ text: 'x', domain: s }))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(mem.store({ text: 'x', metadata: { note: s } }))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(mem.store({ text: 'x', metadata: { [s]: 1 } }))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(mem.storeMany([{ text: 'y' }, { text: s }]))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(mem.update('ok', { text: s }))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(mem.relate('ok', 'ok', 'REFERENCES', { metadata: { a: [s] } }))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(mem.recall(s))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(mem.recall('x', { filter: { kind: s } }))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(mem.get(s))).toBe('INVALID_ARGUMENT');
    }
    // A well-formed pair (an emoji) is fine and comes back as given.
    await mem.store({ id: 'emoji-\uD83D\uDE00', text: 'smile \uD83D\uDE00' });
    expect((await mem.get('emoji-\uD83D\uDE00'))?.text).toBe('smile \uD83D\uDE00');
    expect((await mem.stats()).memories).toBe(2);
  });

  it('so is U+0000, which PostgreSQL cannot store: a memory either engine takes moves to the other', async () => {
    mem = await openMemory({ embedder: null });
    await mem.store({ id: 'ok', text: 'fine text' });
    for (const s of ['\u0000', 'a\u0000b']) {
      const refusals = [
        mem.store({ id: s, text: 'x' }), mem.store({ text: s }), mem.store({ text: 'x', kind: s }),
        mem.store({ text: 'x', metadata: { note: s } }), mem.store({ text: 'x', metadata: { [s]: 1 } }),
        mem.update('ok', { text: s }), mem.get(s), mem.recall(s), mem.list({ kind: s }),
      ];
      for (const refused of refusals) expect(await refused.then(() => null, (e: unknown) => e)).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/U\+0000/) });
    }
    expect((await mem.stats()).memories).toBe(1);
  });

  it('the MCP memory_store tool gets the same refusal', async () => {
    const { handleToolCall } = await import('../../src/agent/tools.js');
    mem = await openMemory({ embedder: null });
    const result = await handleToolCall(mem, 'memory_store', { text: 'x \uD800', id: 'a' });
    expect(result).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
    expect((await mem.stats()).memories).toBe(0);
  });
});

describe('an update while the embedding is in flight still ends with a vector', () => {
  it('one memory: the old text\'s vector is dropped and the new text is embedded', async () => {
    const embedder = new SlowHashEmbedder(30);
    mem = await HybridMemory.open({ embedder });
    await mem.store({ id: 'x', text: 'first' });
    expect(embedder.started - embedder.calls).toBe(1); // 'first' is at the embedder
    await mem.update('x', { text: 'second' });
    await mem.ready();
    expect(embedder.calls).toBe(2);
    expect((await mem.get('x'))?.readiness).toBe('semantic');
    expect((await mem.recall('second', { mode: 'vector', k: 1 }))[0]?.id).toBe('x');
    expect((await mem.stats()).enrichment).toMatchObject({ pending: 0, failed: 0 });
  });

  it('200 concurrent stores and updates: every memory semantic after ready()', async () => {
    mem = await HybridMemory.open({ embedder: new SlowHashEmbedder(3), enrichment: { batchSize: 8 } });
    const m = mem;
    await Promise.all(Array.from({ length: 200 }, async (_, i) => {
      await m.store({ id: `m${i}`, text: `memory number ${i}` });
      if (i % 2 === 0) await m.update(`m${i}`, { text: `memory number ${i}, revised` });
    }));
    await Promise.all(Array.from({ length: 100 }, (_, i) => m.update(`m${i * 2 + 1}`, { text: `memory ${i * 2 + 1} rewritten` })));
    await m.ready();
    const stats = await m.stats();
    expect(stats.readiness).toEqual({ stored: 0, lexical: 0, semantic: 200 });
    expect(stats.enrichment).toMatchObject({ pending: 0, failed: 0 });
  });
});

describe('queries are bounded', () => {
  it('recall, context, compare and trace refuse an over-long query naming the method and the length', async () => {
    mem = await openMemory({ embedder: null });
    await mem.store({ id: 'a', text: 'anything' });
    const query = 'word '.repeat(MAX_QUERY_LENGTH / 5 + 1);
    for (const [method, call] of [
      ['recall', () => mem!.recall(query)],
      ['context', () => mem!.context(query)],
      ['compare', () => mem!.compare(query)],
      ['trace', () => mem!.trace(query)],
    ] as const) {
      const error = await call().then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(HybridMindError);
      expect((error as HybridMindError).code).toBe('INVALID_ARGUMENT');
      expect((error as HybridMindError).method).toBe(method);
      expect((error as HybridMindError).message).toContain(`${query.length} characters`);
    }
  });
});

describe('checkCitations with malformed evidence', () => {
  it('items that are not context items are INVALID_ARGUMENT, not a TypeError', async () => {
    mem = await openMemory({ embedder: null });
    for (const items of [[null], [1], ['M1'], [{ cite: 'M1' }], [{ cite: 3, id: 'a' }]]) {
      expect(await codeOf(mem.checkCitations('[M1]', { items } as never))).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('database bytes from outside get a snapshot\'s checks', () => {
  async function bytesWith(sql: string): Promise<Uint8Array> {
    const source = await openMemory({ embedder: null });
    await source.storeMany([{ id: 'a', text: 'alpha' }, { id: 'b', text: 'beta' }]);
    const bytes = await source.exportDatabase();
    await source.close();
    const db = await SqliteWasmDriver.open({ bytes });
    db.exec(sql);
    const out = db.serialize!();
    db.close();
    return out;
  }

  it('a planted trigger, view, extra table or bad row is CORRUPT and never runs', async () => {
    for (const sql of [
      "CREATE TRIGGER t AFTER INSERT ON memories BEGIN UPDATE memories SET text = 'pwned'; END",
      'CREATE VIEW v AS SELECT * FROM memories',
      'CREATE TABLE extra (x)',
      'CREATE INDEX extra_idx ON memories(text)',
      "CREATE TRIGGER t2 BEFORE DELETE ON edges BEGIN SELECT RAISE(IGNORE); END",
      "UPDATE memories SET id = ' a ' WHERE id = 'a'",
      "UPDATE memories SET valid_from = 9000000000000000 WHERE id = 'a'",
      "UPDATE memories SET kind = '' WHERE id = 'a'",
    ]) {
      const bytes = await bytesWith(sql);
      expect(await codeOf(HybridMemory.open({ embedder: null, storage: { bytes } })), sql).toBe('CORRUPT');
    }
  });

  it('clean bytes open as before', async () => {
    const bytes = await bytesWith('SELECT 1');
    mem = await HybridMemory.open({ embedder: null, storage: { bytes } });
    expect((await mem.get('a'))?.text).toBe('alpha');
  });
});
