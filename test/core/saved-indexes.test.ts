import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteWasmDriver, type HybridMemory, type Logger, type RecallMode } from '../../src/index.js';
import { decodeQuantized } from '../../src/legs/vector/quantized-snapshot.js';
import { encodeCatalog } from '../../src/memory/saved-catalog.js';
import { readParts } from '../../src/storage/blob-parts.js';
import { openMemory, recorder } from '../support/memory.js';
import { afterFirstSlice } from '../support/slices.js';
import { until } from '../support/until.js';

/**
 * A persisted store opens from its saved entity index and lexical index plus bulk reads of its
 * rows, and answers every query exactly as the same store rebuilt from its rows; a saved entity
 * index that is stale, damaged or from another generation is ignored and rebuilt.
 */
const MEMORIES = [
  { id: 'adr7', text: 'ADR-007: keep SQLite as the source of truth for Order #4821 and its invoices', metadata: { sessionId: 's1', turn: 1 } },
  { id: 'buddy', text: 'Buddy Hield joined the Sacramento Kings of the NBA in 2018.', metadata: { sessionId: 's1', turn: 2 } },
  { id: 'kings', text: 'The Sacramento Kings traded for a guard; Buddy Hield was part of it.', metadata: { sessionId: 's1', turn: 3 } },
  { id: 'quokka', text: 'The quokka census on Rottnest island counted 12,000 animals' },
  { id: 'rename', text: 'Rename getUserById to findUser in the accounts service (see ADR-007)' },
  { id: 'invoice', text: 'Invoice INV-2024-0042 for Order #4821 was paid twice by mistake' },
  { id: 'lower', text: 'plain lower case note with nothing capitalised at all' },
];
const EDGES = [
  { from: 'rename', to: 'adr7', type: 'DEPENDS_ON' },
  { from: 'invoice', to: 'adr7', type: 'RELATES_TO' },
];
const QUERIES = ['Buddy Hield', 'Sacramento Kings', 'ADR-007', 'Order #4821', 'quokka island', 'findUser accounts', 'capitalised note'];
const MODES: RecallMode[] = ['hybrid', 'lexical', 'graph', 'vector'];
const LOADED = 'loaded the saved entity index';

let stores: HybridMemory[] = [];
afterEach(async () => {
  for (const s of stores) await s.close();
  stores = [];
});

async function open(driver: SqliteWasmDriver, logger: Logger): Promise<HybridMemory> {
  const mem = await openMemory({ storage: driver, logger });
  stores.push(mem);
  return mem;
}

/** Every query in every mode, with scores: an answer that differs in any way shows. */
async function answers(mem: HybridMemory, entityGraph = true): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const mode of MODES) for (const q of QUERIES) out.push((await mem.recall(q, { mode, k: 5, explain: false, entityGraph })).map((h) => [h.id, h.score]));
  return out;
}

/** The store's database bytes after export (which saves the derived indexes). */
async function savedStore(): Promise<Uint8Array> {
  const mem = await openMemory();
  stores.push(mem);
  await mem.storeMany(MEMORIES);
  await mem.relateMany(EDGES);
  await mem.ready();
  return mem.exportDatabase();
}

/** The same store with its derived indexes dropped, so it opens by rebuilding every index from the rows. */
async function rebuilt(bytes: Uint8Array): Promise<HybridMemory> {
  const driver = await SqliteWasmDriver.open({ bytes });
  driver.exec('DELETE FROM derived_index');
  const log = recorder();
  const mem = await open(driver, log.logger);
  expect(log.messages).not.toContain(LOADED);
  return mem;
}

/** A store of `items`, each related to the one before, and that store reopened from its exported bytes, with what the reopen logged. */
async function reopenedChain(items: Array<{ id: string; text: string; embedding: Float32Array }>, type: string): Promise<{ mem: HybridMemory; reopened: HybridMemory; log: ReturnType<typeof recorder> }> {
  const mem = await openMemory({ embedder: null });
  stores.push(mem);
  await mem.storeMany(items);
  await mem.relateMany(items.slice(1).map((m, i) => ({ from: m.id, to: items[i]!.id, type })));
  const bytes = await mem.exportDatabase();
  const log = recorder();
  const reopened = await openMemory({ storage: await SqliteWasmDriver.open({ bytes }), embedder: null, logger: log.logger });
  stores.push(reopened);
  return { mem, reopened, log };
}

describe('saved indexes at open', () => {
  it('a store opened from its saved indexes answers exactly as the same store rebuilt from its rows', async () => {
    const bytes = await savedStore();
    const log = recorder();
    const reopened = await open(await SqliteWasmDriver.open({ bytes }), log.logger);
    expect(log.messages).toContain(LOADED);
    expect(log.messages).toContain('loaded the saved lexical index');
    const expected = await answers(await rebuilt(bytes));
    expect(await answers(reopened)).toEqual(expected);
    expect(expected.flat().length).toBeGreaterThan(0);
    // The entity graph changes these answers, so an entity index that loaded wrong would show.
    expect(await answers(reopened, false)).not.toEqual(expected);
    const stats = await reopened.stats();
    expect([stats.memories, stats.edges, stats.readiness.semantic]).toEqual([MEMORIES.length, EDGES.length, MEMORIES.length]);
  });

  it('makes the loaded catalog\'s id map in the background, and answers and writes the same after', async () => {
    const bytes = await savedStore();
    const log = recorder();
    const mem = await open(await SqliteWasmDriver.open({ bytes }), log.logger);
    const first = await answers(mem);
    await until(() => log.messages.some((m) => m.startsWith("made the loaded catalog's id map")), "the catalog's id map");
    expect(log.messages.filter((m) => /^made the loaded catalog's id map in \d+ ms$/.test(m))).toHaveLength(1);
    expect(await answers(mem)).toEqual(first);
    expect(await answers(mem)).toEqual(await answers(await rebuilt(bytes)));
    await mem.store({ id: 'later', text: 'Buddy Hield scored 30 against the Lakers.' });
    await mem.forget('kings');
    const expected = await answers(await rebuilt(await mem.exportDatabase()));
    // The loaded entity index changed beside its saved form answers as one built from the texts.
    expect(await answers(mem)).toEqual(expected);
    const again = await open(await SqliteWasmDriver.open({ bytes: await mem.exportDatabase() }), recorder().logger);
    expect(await answers(again)).toEqual(expected);
  });

  it('keeps working after the load: writes reach the entity graph and are saved again', async () => {
    const bytes = await savedStore();
    const driver = await SqliteWasmDriver.open({ bytes });
    const mem = await open(driver, recorder().logger);
    await mem.store({ id: 'later', text: 'Buddy Hield scored 30 against the Lakers.' });
    await mem.forget('kings');
    const log = recorder();
    const again = await open(await SqliteWasmDriver.open({ bytes: await mem.exportDatabase() }), log.logger);
    expect(log.messages).toContain(LOADED);
    const expected = await answers(await rebuilt(await mem.exportDatabase()));
    expect(await answers(again)).toEqual(expected);
    expect(JSON.stringify(expected)).toContain('later');
    expect(JSON.stringify(expected)).not.toContain('kings');
  });

  it('is ignored and rebuilt when its bytes are damaged or do not cover every memory', async () => {
    const bytes = await savedStore();
    const expected = await answers(await rebuilt(bytes));
    const damages = [
      "UPDATE derived_index SET bytes = x'7b226e6f74223a316d' WHERE name = 'entities'",
      `UPDATE derived_index SET bytes = CAST('{"format":"hybridmind.entities","version":1,"extractor":1,"keys":["a","a"],"of":[]}' AS BLOB) WHERE name = 'entities'`,
      `UPDATE derived_index SET bytes = CAST('{"format":"hybridmind.entities","version":1,"extractor":1,"keys":["a"],"of":[1,1,7]}' AS BLOB) WHERE name = 'entities'`,
      `UPDATE derived_index SET bytes = CAST('{"format":"hybridmind.entities","version":1,"extractor":1,"keys":["a"],"of":[1,1,0]}' AS BLOB) WHERE name = 'entities'`,
      `UPDATE derived_index SET bytes = CAST('{"format":"hybridmind.entities","version":1,"extractor":999,"keys":[],"of":[]}' AS BLOB) WHERE name = 'entities'`,
    ];
    for (const damage of damages) {
      const driver = await SqliteWasmDriver.open({ bytes });
      driver.exec(damage);
      const log = recorder();
      const mem = await open(driver, log.logger);
      expect(log.messages, damage).not.toContain(LOADED);
      expect(log.messages.some((m) => m.startsWith('the saved entity index')), damage).toBe(true);
      expect(await answers(mem), damage).toEqual(expected);
    }
  });

  it('reads the catalog saved beside them, and the rows when it is damaged, short or stale', async () => {
    const bytes = await savedStore();
    const expected = await answers(await rebuilt(bytes));
    const log = recorder();
    expect(await answers(await open(await SqliteWasmDriver.open({ bytes }), log.logger))).toEqual(expected);
    expect(log.messages).toContain('loaded the saved catalog');
    const one = encodeCatalog([{ no: 1, id: 'adr7', kind: null, domain: null, metadata: {}, createdAt: 1, validFrom: 1, validTo: null }]);
    const damages = [
      "UPDATE derived_index SET bytes = substr(bytes, 1, length(bytes) - 3) WHERE name = 'catalog'",
      "UPDATE derived_index SET bytes = x'00686d6361740a0002000000' WHERE name = 'catalog'",
      `UPDATE derived_index SET bytes = x'${Buffer.from(one).toString('hex')}' WHERE name = 'catalog'`,
      "UPDATE derived_index SET stamp = 'g0 m1:1' WHERE name = 'catalog'",
    ];
    for (const damage of damages) {
      const driver = await SqliteWasmDriver.open({ bytes });
      driver.exec(damage);
      const warned = recorder();
      const mem = await open(driver, warned.logger);
      expect(warned.messages, damage).not.toContain('loaded the saved catalog');
      expect(warned.messages.some((m) => /^the saved catalog (could not be read|does not cover every memory|is from another store generation)/.test(m)), damage).toBe(true);
      expect(await answers(mem), damage).toEqual(expected);
      // The next save writes it whole again.
      const again = recorder();
      await open(await SqliteWasmDriver.open({ bytes: await mem.exportDatabase() }), again.logger);
      expect(again.messages, damage).toContain('loaded the saved catalog');
    }
  });

  it('a Node file store saves them at close and opens from them through better-sqlite3', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hybridmind-saved-indexes-'));
    try {
      const path = join(dir, 'memory.db');
      const first = await openMemory({ storage: path });
      await first.storeMany(MEMORIES);
      await first.relateMany(EDGES);
      await first.ready();
      const expected = await answers(first);
      await first.close();
      const log = recorder();
      const again = await openMemory({ storage: path, logger: log.logger });
      stores.push(again);
      expect(log.messages).toContain(LOADED);
      expect(await answers(again)).toEqual(expected);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('saves the vector codes beside them and opens the dense leg from them; codes that do not read are computed again', async () => {
    const bytes = await savedStore();
    const driver = await SqliteWasmDriver.open({ bytes });
    const stamps = Object.fromEntries(driver.all<{ name: string; stamp: string }>('SELECT name, stamp FROM derived_index').map((r) => [r.name, r.stamp]));
    expect(stamps['quantized']).toBe(stamps['lexical']);
    const expected = await answers(await rebuilt(bytes));
    const log = recorder();
    const reopened = await open(driver, log.logger);
    // No vector was read at the open: the codes answer until the copies are read back after it.
    expect(await answers(reopened)).toEqual(expected);
    expect(log.messages).toContain('opened the dense leg from its saved codes; vectors are read from the store when needed');
    await afterFirstSlice();
    expect(log.messages.some((m) => /^dense leg: read \d+ vectors back/.test(m))).toBe(true);
    expect(await answers(reopened)).toEqual(expected);
    expect(log.messages.filter((m) => m.includes('quantized'))).toEqual([]);
    const damaged = await SqliteWasmDriver.open({ bytes });
    damaged.exec("UPDATE derived_index SET bytes = x'484d565101' WHERE name = 'quantized'");
    const warned = recorder();
    expect(await answers(await open(damaged, warned.logger))).toEqual(expected);
    expect(warned.messages).toContain('the saved quantized vectors could not be read; quantizing them again');
  });

  it('opens from codes saved without digest entries (a store written with ann: false) where HNSW may be built, answers the same, then builds it', async () => {
    const written = await openMemory({ ann: false });
    stores.push(written);
    await written.storeMany(MEMORIES);
    await written.relateMany(EDGES);
    const bytes = await written.exportDatabase();
    const driver = await SqliteWasmDriver.open({ bytes });
    const saved = readParts(driver, 'derived_index', 'quantized')!;
    const dim = new DataView(saved.buffer, saved.byteOffset).getUint32(8, true);
    expect(decodeQuantized('test', saved, dim).digests).toBeNull();
    const expected = await answers(await rebuilt(bytes));
    const log = recorder();
    const mem = await openMemory({ storage: driver, logger: log.logger, ann: { threshold: 5 } });
    stores.push(mem);
    expect(log.messages).toContain('opened the dense leg from its saved codes; vectors are read from the store when needed');
    expect(await answers(mem)).toEqual(expected);
    await until(() => log.messages.some((m) => m.startsWith('ann: HNSW built over 7 vectors')), 'the HNSW build');
    expect(log.messages.filter((m) => m.includes('digest'))).toEqual([expect.stringMatching(/^dense leg: read 7 vectors for their digest in \d+ ms$/)]);
  });

  it('takes the writes made while it reads the vectors for their digest: the graph it saves then serves a reopen as it is', async () => {
    const written = await openMemory({ ann: false });
    stores.push(written);
    await written.storeMany(Array.from({ length: 60 }, (_, i) => ({ id: `m${i}`, text: `memory ${i} about topic ${i % 7}` })));
    const log = recorder();
    const mem = await openMemory({ storage: await SqliteWasmDriver.open({ bytes: await written.exportDatabase() }), logger: log.logger, ann: { threshold: 20 } });
    stores.push(mem);
    // Before the fill's first slice: a new memory, a changed text (so a new vector) and a forgotten one.
    await mem.store({ id: 'new', text: 'a new memory about topic 3' });
    await mem.update('m5', { text: 'memory five rewritten about quokkas' });
    await mem.forget('m9');
    await until(() => log.messages.some((m) => m.startsWith('ann: HNSW built over 60 vectors')), 'the HNSW build');
    const restored: unknown[] = [];
    const reopened = await openMemory({
      storage: await SqliteWasmDriver.open({ bytes: await mem.exportDatabase() }),
      ann: { threshold: 20 },
      logger: (_level, message, meta) => void (message.startsWith('ann: HNSW restored from saved bytes') && restored.push(meta)),
    });
    stores.push(reopened);
    await until(() => restored.length > 0, 'the saved graph restored');
    // Stale entries would mean the digest the graph was saved with missed one of those writes.
    expect(restored).toEqual([expect.objectContaining({ vectors: 60, stale: 0 })]);
    const q = 'memory five rewritten about quokkas';
    expect((await reopened.recall(q, { mode: 'vector', k: 3 }))[0]!.id).toBe('m5');
  });

  it('is rebuilt when its generation is not the store\'s', async () => {
    const bytes = await savedStore();
    const driver = await SqliteWasmDriver.open({ bytes });
    driver.exec("UPDATE derived_index SET stamp = 'g0 m7:7' WHERE name = 'entities'");
    const log = recorder();
    const mem = await open(driver, log.logger);
    expect(log.messages).not.toContain(LOADED);
    expect(log.messages.some((m) => m.includes('entity index is from another store generation'))).toBe(true);
    expect(await answers(mem)).toEqual(await answers(await rebuilt(bytes)));
  });
});

describe('batched writes and bulk reads', () => {
  it('SqliteWasmDriver.visitRows hands the values all() returns, blobs as views of SQLite\'s memory', async () => {
    const driver = await SqliteWasmDriver.open();
    try {
      driver.exec('CREATE TABLE t (a, b, c, d, e)');
      driver.exec('INSERT INTO t VALUES (?, ?, ?, ?, ?)', [1, 'two', 3.5, null, new Uint8Array([4, 5, 6])]);
      driver.exec('INSERT INTO t VALUES (?, ?, ?, ?, ?)', [7, '', -0.25, 'x', new Uint8Array(1000).fill(9)]);
      const sql = 'SELECT a, b, c, d, e FROM t WHERE a >= ? ORDER BY a';
      const seen: unknown[][] = [];
      driver.visitRows(sql, [0], (values) => {
        const blob = values[4] as Uint8Array;
        expect(blob.buffer.byteLength).toBeGreaterThan(blob.byteLength);
        seen.push(values.map((v) => (v instanceof Uint8Array ? Array.from(v) : v)));
      });
      expect(seen).toEqual(driver.all(sql, [0]).map((r) => Object.values(r).map((v) => (v instanceof Uint8Array ? Array.from(v) : v))));
      expect(seen).toHaveLength(2);
    } finally {
      driver.close();
    }
  });

  it('a batch larger than one statement\'s budget is written in several and reads back whole', async () => {
    // ~1.6 MB of text and 1.2 MB of vectors: several chunks each way, in one transaction.
    const big = Array.from({ length: 800 }, (_, i) => ({ id: `big${i}`, text: `Entry ${i} ${'lorem ipsum dolor '.repeat(110)} TKT-${i}`, embedding: Float32Array.from({ length: 384 }, (_, j) => Math.sin(i + j)) }));
    const { mem, reopened, log } = await reopenedChain(big, 'FOLLOWS');
    expect(log.messages).toContain(LOADED);
    const stats = await reopened.stats();
    expect([stats.memories, stats.edges, stats.readiness.semantic]).toEqual([800, 799, 800]);
    expect((await reopened.get('big799'))!.text).toBe(big[799]!.text);
    const q = { queryEmbedding: big[417]!.embedding, k: 3, explain: false };
    expect((await reopened.recall('TKT-417', q)).map((h) => h.id)[0]).toBe('big417');
    expect(await reopened.recall('TKT-417', q)).toEqual(await mem.recall('TKT-417', q));
  });

  it('answers from the store\'s edges while the graph takes them in the background, and keeps writes made meanwhile', async () => {
    const chain = Array.from({ length: 60 }, (_, i) => ({ id: `step${i}`, text: `Step ${i} of the migration plan MIG-${i}`, embedding: Float32Array.from({ length: 16 }, (_, j) => Math.cos(i * 0.3 + j)) }));
    const { mem, reopened, log } = await reopenedChain(chain, 'DEPENDS_ON');
    const took = (messages: string[]) => messages.filter((m) => m.startsWith('graph leg: took'));
    // Nothing above waited for a timer, so no slice of the fill has run: these are answered from the store.
    const asks = ['MIG-30', 'MIG-59', 'migration plan'].map((q) => [q, { mode: 'graph' as const, depth: 3, k: 40, explain: true, queryEmbedding: chain[30]!.embedding }] as const);
    const early = [];
    for (const [q, o] of asks) early.push(await reopened.recall(q, o));
    expect(took(log.messages)).toEqual([]);
    await reopened.relate('step0', 'step59', 'RELATES_TO');
    await reopened.forget('step45');
    await until(() => took(log.messages).length > 0, 'the graph leg taking its edges');
    expect(took(log.messages)).toEqual([expect.stringMatching(/^graph leg: took 58 edges in \d+ ms$/)]);
    for (const [i, [q, o]] of asks.entries()) expect(early[i]).toEqual(await mem.recall(q, o));
    await mem.relate('step0', 'step59', 'RELATES_TO');
    await mem.forget('step45');
    for (const [q, o] of asks) expect(await reopened.recall(q, o)).toEqual(await mem.recall(q, o));
    expect(await reopened.path('step59', 'step40')).toEqual(await mem.path('step59', 'step40'));
    expect((await reopened.stats()).edges).toBe((await mem.stats()).edges);
  });
});
