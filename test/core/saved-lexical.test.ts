import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HybridMemory, SqliteWasmDriver, type Logger, type SqlDriver } from '../../src/index.js';
import { ids, openMemory, recorder } from '../support/memory.js';

/**
 * Opening a store loads the lexical index saved at close/export instead of re-tokenizing every
 * text, and falls back to a rebuild whenever the saved bytes are stale, missing or corrupt.
 */
const TEXTS = [
  'Decided in ADR-007 to keep SQLite as the source of truth',
  'Order #4821 shipped late because the warehouse closed',
  'The quokka census on Rottnest island counted 12,000',
  'Rename getUserById to findUser in the accounts service',
  'Invoice INV-2024-0042 was paid twice by mistake',
];

const QUERIES = ['ADR-007', 'order 4821', 'quokka island', 'getUserById', 'paid twice invoice', 'sqlite truth'];

let stores: HybridMemory[] = [];
afterEach(async () => {
  for (const s of stores) await s.close();
  stores = [];
});

/** A persisted store is opened through its driver (OPFS, a Node file); these bytes stand for its file. */
async function open(storage: Uint8Array | SqlDriver, logger: Logger): Promise<HybridMemory> {
  const driver = storage instanceof Uint8Array ? await SqliteWasmDriver.open({ bytes: storage }) : storage;
  const mem = await openMemory({ storage: driver, logger, embedder: null });
  stores.push(mem);
  return mem;
}

async function lexicalAnswers(mem: HybridMemory): Promise<string[][]> {
  return Promise.all(QUERIES.map(async (q) => ids(await mem.recall(q, { mode: 'lexical', k: 5 }))));
}

/** A store of TEXTS exported as bytes (which saves its lexical index), and its lexical answers. */
async function savedStore(): Promise<{ bytes: Uint8Array; answers: string[][] }> {
  const mem = await openMemory({ embedder: null });
  stores.push(mem);
  await mem.storeMany(TEXTS.map((text, i) => ({ id: `m${i}`, text })));
  return { bytes: await mem.exportDatabase(), answers: await lexicalAnswers(mem) };
}

const LOADED = 'loaded the saved lexical index';

/** The saved store of TEXTS after another program ran `sql` on its file (the generation does not move), opened with a recorded log. */
async function editedElsewhere(sql: string): Promise<{ mem: HybridMemory; log: ReturnType<typeof recorder> }> {
  const { bytes } = await savedStore();
  const driver = await SqliteWasmDriver.open({ bytes });
  driver.exec(sql);
  const log = recorder();
  return { mem: await open(driver, log.logger), log };
}

describe('saved lexical index', () => {
  it('is loaded on open and answers exactly as the index it was saved from', async () => {
    const { bytes, answers } = await savedStore();
    const log = recorder();
    const reopened = await open(bytes, log.logger);
    expect(log.messages).toContain(LOADED);
    expect(await lexicalAnswers(reopened)).toEqual(answers);
    expect(answers.flat().length).toBeGreaterThan(0);
  });

  it('keeps working after the load: new, updated and forgotten memories reach the lexical leg', async () => {
    const { bytes } = await savedStore();
    const reopened = await open(bytes, recorder().logger);
    await reopened.store({ id: 'new', text: 'zebra crossing near the depot' });
    await reopened.update('m2', { text: 'The wombat census on Rottnest island' });
    await reopened.forget('m0');
    expect(ids(await reopened.recall('zebra depot', { mode: 'lexical' }))).toEqual(['new']);
    expect(ids(await reopened.recall('wombat', { mode: 'lexical' }))).toEqual(['m2']);
    expect(await reopened.recall('quokka', { mode: 'lexical' })).toEqual([]);
    expect(await reopened.recall('ADR-007', { mode: 'lexical' })).toEqual([]);

    const log = recorder();
    const again = await open(await reopened.exportDatabase(), log.logger);
    expect(log.messages).toContain(LOADED);
    expect(ids(await again.recall('zebra depot', { mode: 'lexical' }))).toEqual(['new']);
    expect(await again.recall('ADR-007', { mode: 'lexical' })).toEqual([]);
  });

  it('is rebuilt when the store was written after it was saved', async () => {
    const { bytes } = await savedStore();
    const driver = await SqliteWasmDriver.open({ bytes });
    const mem = await open(driver, recorder().logger);
    await mem.store({ id: 'later', text: 'zebra crossing near the depot' });
    // The driver's own bytes: the write moved the generation, the saved index was not saved again.
    const stale = driver.serialize();
    const log = recorder();
    const reopened = await open(stale, log.logger);
    expect(log.messages).not.toContain(LOADED);
    expect(log.messages.some((m) => m.includes('another store generation'))).toBe(true);
    expect(ids(await reopened.recall('zebra depot', { mode: 'lexical' }))).toEqual(['later']);
  });

  it('is rebuilt when another program added rows without moving the generation', async () => {
    const { mem, log } = await editedElsewhere("INSERT INTO memories (id, text, metadata, created_at, valid_from) VALUES ('raw', 'zebra crossing near the depot', '{}', 0, 0)");
    expect(log.messages).not.toContain(LOADED);
    expect(ids(await mem.recall('zebra depot', { mode: 'lexical' }))).toEqual(['raw']);
  });

  it('forgets a memory whose text another program rewrote without moving the generation', async () => {
    const { mem, log } = await editedElsewhere("UPDATE memories SET text = 'wombat census' WHERE id = 'm2'");
    expect(log.messages).toContain(LOADED);
    // The loaded index still holds the text it was saved with; the store holds another.
    expect(ids(await mem.recall('quokka', { mode: 'lexical' }))).toEqual(['m2']);
    await mem.forget('m2');
    expect(await mem.recall('quokka island', { mode: 'lexical' })).toEqual([]);
    expect(log.messages.some((m) => m.includes('indexed with another text'))).toBe(true);
    // What it saves next is whole: the next open loads it instead of rebuilding.
    const reopenLog = recorder();
    const again = await open(await mem.exportDatabase(), reopenLog.logger);
    expect(reopenLog.messages).toContain(LOADED);
    expect(await again.recall('quokka', { mode: 'lexical' })).toEqual([]);
    expect(ids(await again.recall('ADR-007', { mode: 'lexical' }))).toEqual(['m0']);
  });

  it('is rebuilt when missing or corrupt', async () => {
    const { bytes, answers } = await savedStore();
    for (const damage of ['DELETE FROM derived_index', "UPDATE derived_index SET bytes = x'7b226e6f74223a316d'", "UPDATE derived_index SET bytes = CAST('{\"format\":\"hybridmind.bm25\",\"version\":1}' AS BLOB)"]) {
      const driver = await SqliteWasmDriver.open({ bytes });
      driver.exec(damage);
      const log = recorder();
      const mem = await open(driver, log.logger);
      expect(log.messages, damage).not.toContain(LOADED);
      expect(await lexicalAnswers(mem), damage).toEqual(answers);
    }
  });

  it('is saved at close by a Node file store and loaded when the file is opened again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hybridmind-saved-lexical-'));
    try {
      const path = join(dir, 'memory.db');
      const first = await openMemory({ storage: path, embedder: null });
      await first.storeMany(TEXTS.map((text, i) => ({ id: `m${i}`, text })));
      const answers = await lexicalAnswers(first);
      await first.close();
      const log = recorder();
      const again = await openMemory({ storage: path, embedder: null, logger: log.logger });
      expect(log.messages).toContain(LOADED);
      expect(await lexicalAnswers(again)).toEqual(answers);
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is not trusted from a database handed in as bytes: open({ storage: { bytes } }) rebuilds', async () => {
    const { bytes, answers } = await savedStore();
    const log = recorder();
    const mem = await openMemory({ storage: { bytes }, logger: log.logger, embedder: null });
    stores.push(mem);
    expect(log.messages).not.toContain(LOADED);
    expect(await lexicalAnswers(mem)).toEqual(answers);
  });

  it('never travels into an imported snapshot: the import rebuilds from the rows', async () => {
    const mem = await openMemory({ embedder: null });
    stores.push(mem);
    await mem.storeMany(TEXTS.map((text, i) => ({ id: `m${i}`, text })));
    await mem.exportDatabase();
    const log = recorder();
    const copy = await HybridMemory.importSnapshot(await mem.exportSnapshot(), { embedder: null, logger: log.logger });
    stores.push(copy);
    expect(log.messages).not.toContain(LOADED);
    expect(await lexicalAnswers(copy)).toEqual(await lexicalAnswers(mem));
  });
});
