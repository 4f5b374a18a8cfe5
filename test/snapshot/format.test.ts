import { readFile } from 'node:fs/promises';
import { unzipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HybridMemory, SNAPSHOT_FORMAT, SqliteWasmDriver, VERSION, verifySnapshot, type Embedder, type SqlDriver,
} from '../../src/index.js';
import { TOKENIZER_VERSION } from '../../src/legs/lexical/tokenizer.js';
import { sha256Hex } from '../../src/snapshot/sha256.js';
import { tablesInDependencyOrder } from '../../src/storage/replace.js';
import { SCHEMA_VERSION } from '../../src/storage/schema.js';
import { HashEmbedder, hashVector } from '../support/hash-embedder.js';
import { NOW, ids, openMemory } from '../support/memory.js';
import { repack, unpack, withStoreDb } from './support/archive.js';
import { codeOf } from '../support/errors.js';

const open: HybridMemory[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});
const track = (m: HybridMemory) => (open.push(m), m);


async function sample(): Promise<HybridMemory> {
  const mem = track(await openMemory());
  await mem.storeMany([
    { id: 'adr-007', text: 'ADR-007: SQLite-WASM on OPFS', kind: 'decision' },
    { id: 'adr-008', text: 'ADR-008 supersedes ADR-007: IndexedDB', kind: 'decision' },
    { id: 'note', text: 'quokka sightings by the ferry' },
  ]);
  await mem.relate('adr-008', 'adr-007', 'SUPERSEDES');
  await mem.ready();
  return mem;
}

describe('exportSnapshot', () => {
  it('writes the six entries in order, vectors stored and the rest deflated', async () => {
    const zip = await (await sample()).exportSnapshot();
    const seen: Array<[string, number]> = [];
    unzipSync(zip, { filter: (f) => (seen.push([f.name, f.compression]), true) });
    expect(seen).toEqual([['manifest.json', 8], ['store.db', 8], ['vectors.ids.json', 8], ['vectors.f32', 0], ['graph.jsonl', 8], ['bm25.jsonl', 8]]);
  });

  it('writes a manifest that describes the store and checksums every part', async () => {
    const { manifest, parts } = unpack(await (await sample()).exportSnapshot());
    expect(manifest).toMatchObject({
      format: SNAPSHOT_FORMAT, formatVersion: '1.0', createdAt: new Date(NOW).toISOString(), library: { name: 'hybridmind', version: VERSION },
      schemaVersion: SCHEMA_VERSION, counts: { memories: 3, edges: 1, vectors: 3 }, dim: 384, embedderId: 'test-hash-384', normalization: 'l2',
      tokenizerVersion: TOKENIZER_VERSION,
    });
    for (const part of manifest['parts']) {
      expect(part.bytes).toBe(parts.get(part.name)!.length);
      expect(part.sha256).toBe(await sha256Hex('test', parts.get(part.name)!));
    }
  });

  it('writes the vectors as little-endian float32 rows in the order of the id list', async () => {
    const { parts } = unpack(await (await sample()).exportSnapshot());
    const order = JSON.parse(new TextDecoder().decode(parts.get('vectors.ids.json')));
    expect(order).toEqual(['adr-007', 'adr-008', 'note']);
    const view = new DataView(parts.get('vectors.f32')!.buffer, parts.get('vectors.f32')!.byteOffset);
    const texts = ['ADR-007: SQLite-WASM on OPFS', 'ADR-008 supersedes ADR-007: IndexedDB', 'quokka sightings by the ferry'];
    texts.forEach((text, row) => {
      const expected = hashVector(text, 384);
      for (const i of [0, 17, 383]) expect(view.getFloat32((row * 384 + i) * 4, true)).toBeCloseTo(expected[i]!, 6);
    });
  });

  it('is deterministic for one state and one clock', async () => {
    const mem = await sample();
    expect(await mem.exportSnapshot()).toEqual(await mem.exportSnapshot());
  });

  it('exports memories still waiting for an embedding without a vector; the importing store embeds them', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: Embedder = { id: 'test-hash-384', dim: 384, embed: async (texts) => (await gate, texts.map((t) => hashVector(t, 384))) };
    const mem = track(await HybridMemory.open({ embedder: slow, now: () => NOW }));
    await mem.storeMany([{ text: 'waiting for a vector' }, { text: 'given one', embedding: hashVector('given one', 384) }]);
    const zip = await mem.exportSnapshot();
    release();
    expect(unpack(zip).manifest['counts']).toEqual({ memories: 2, edges: 0, vectors: 1 });
    const copy = track(await HybridMemory.importSnapshot(zip, { embedder: new HashEmbedder(), now: () => NOW }));
    await copy.ready();
    expect((await copy.stats()).readiness).toEqual({ stored: 0, lexical: 0, semantic: 2 });
  });

  it('round-trips an empty store and a store without vectors', async () => {
    const empty = track(await HybridMemory.open({ embedder: null }));
    const textOnly = track(await HybridMemory.open({ embedder: null }));
    await textOnly.store({ id: 'x', text: 'text only, no vector' });
    for (const [mem, memories] of [[empty, 0], [textOnly, 1]] as const) {
      const zip = await mem.exportSnapshot();
      expect(unpack(zip).manifest).toMatchObject({ dim: null, embedderId: null, counts: { memories, edges: 0, vectors: 0 } });
      const copy = track(await HybridMemory.importSnapshot(zip, { embedder: null }));
      expect((await copy.stats()).memories).toBe(memories);
    }
  });

  it('stores a part the default reader would refuse as a bomb, so highly repetitive text still imports with the default limits', async () => {
    const mem = track(await HybridMemory.open({ embedder: null }));
    // 100,000 repeated characters per memory: deflated, store.db's ratio is about 300.
    await mem.storeMany(Array.from({ length: 30 }, (_, i) => ({ id: `r${i}`, text: `${'a'.repeat(100_000)} ${i}` })));
    const zip = await mem.exportSnapshot();
    const methods = new Map<string, number>();
    unzipSync(zip, { filter: (f) => (methods.set(f.name, f.compression), true) });
    expect(methods.get('store.db')).toBe(0);
    expect(methods.get('bm25.jsonl')).toBe(8);
    const copy = track(await HybridMemory.importSnapshot(zip, { embedder: null }));
    expect((await copy.get('r7'))?.text).toBe(`${'a'.repeat(100_000)} 7`);
    // The same database deflated, as a writer without that rule would write it, is over the default ratio.
    const deflated = await repack(unpack(zip));
    expect(await codeOf(HybridMemory.importSnapshot(deflated, { embedder: null }))).toBe('CORRUPT');
    expect((await track(await HybridMemory.importSnapshot(deflated, { embedder: null, limits: { maxRatio: 1000 } })).stats()).memories).toBe(30);
  });

  it('judges the running ratio as the reader does: repetitive text first, varied text after, is written stored too', async () => {
    const mem = track(await HybridMemory.open({ embedder: null }));
    await mem.storeMany(Array.from({ length: 30 }, (_, i) => ({ id: `r${i}`, text: `${'a'.repeat(100_000)} ${i}` })));
    let seed = 7;
    const noise = () => Array.from({ length: 2000 }, () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 27).toString(32)).join('');
    await mem.storeMany(Array.from({ length: 200 }, (_, i) => ({ id: `n${i}`, text: noise() })));
    const zip = await mem.exportSnapshot();
    const methods = new Map<string, number>();
    unzipSync(zip, { filter: (f) => (methods.set(f.name, f.compression), true) });
    expect(methods.get('store.db')).toBe(0);
    expect((await track(await HybridMemory.importSnapshot(zip, { embedder: null })).stats()).memories).toBe(230);
    // Deflated, the whole entry is under the ratio; only its first megabytes are over it.
    const deflated = await repack(unpack(zip));
    const refused = await HybridMemory.importSnapshot(deflated, { embedder: null }).then(() => null, (e: Error) => e.message);
    expect(refused).toMatch(/"store\.db" inflated \d+ bytes from its first \d+ compressed bytes, a ratio of [\d.]+ over the limit of 100/);
  });

  it('refuses on a closed store', async () => {
    const mem = await openMemory();
    await mem.close();
    expect(await codeOf(mem.exportSnapshot())).toBe('CLOSED');
    expect(await codeOf(mem.restoreSnapshot(new Uint8Array(0)))).toBe('CLOSED');
  });
});

describe('importSnapshot and restoreSnapshot', () => {
  it('check their arguments', async () => {
    const zip = await (await sample()).exportSnapshot();
    expect(await codeOf(HybridMemory.importSnapshot('zip' as unknown as Uint8Array))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(HybridMemory.importSnapshot(zip, { storage: 'memory' } as never))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(HybridMemory.importSnapshot(zip, { limits: { maxRatio: -1 } }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(HybridMemory.importSnapshot(zip, { limits: { maxBytes: 1 } as never }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(HybridMemory.importSnapshot(zip, { unknown: 1 } as never))).toBe('INVALID_ARGUMENT');
    const live = track(await openMemory());
    expect(await codeOf(live.restoreSnapshot(zip, { embedder: null } as never))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(live.restoreSnapshot(zip, { limits: 'none' } as never))).toBe('INVALID_ARGUMENT');
  });

  it('check the model against options.dim and options.embedder', async () => {
    const zip = await (await sample()).exportSnapshot();
    expect(await codeOf(HybridMemory.importSnapshot(zip, { dim: 16 }))).toBe('DIMENSION_MISMATCH');
    expect(await codeOf(HybridMemory.importSnapshot(zip, { embedder: { id: 'other', dim: 384, embed: async () => [] } }))).toBe('MODEL_MISMATCH');
    const plain = track(await HybridMemory.importSnapshot(zip, { embedder: null }));
    expect((await plain.stats()).embedderId).toBe('test-hash-384');
  });

  it('verifySnapshot validates without creating a store', async () => {
    const zip = await (await sample()).exportSnapshot();
    expect((await verifySnapshot(zip)).counts).toEqual({ memories: 3, edges: 1, vectors: 3 });
    expect(await codeOf(verifySnapshot(zip.subarray(0, 100)))).toBe('CORRUPT');
  });

  it('read a Node Buffer at any offset (file reads give one)', async () => {
    const zip = await (await sample()).exportSnapshot();
    const pooled = Buffer.concat([Buffer.from([1, 2, 3]), Buffer.from(zip)]).subarray(3);
    expect(pooled.byteOffset % 4).not.toBe(0);
    const copy = track(await HybridMemory.importSnapshot(pooled, { embedder: new HashEmbedder() }));
    expect(ids(await copy.recall('ADR-007', { mode: 'lexical' })).sort()).toEqual(['adr-007', 'adr-008']);
  });

  it('restore keeps the live store\'s own storage and replaces everything else', async () => {
    const zip = await (await sample()).exportSnapshot();
    const driver = await SqliteWasmDriver.open();
    const live = track(await HybridMemory.open({ storage: driver, embedder: new HashEmbedder(), now: () => NOW }));
    await live.store({ id: 'old', text: 'replaced by the restore' });
    await live.restoreSnapshot(zip);
    expect(await live.get('old')).toBeNull();
    expect((await live.stats()).memories).toBe(3);
    const reopened = track(await HybridMemory.open({ storage: { bytes: driver.serialize() }, embedder: new HashEmbedder(), now: () => NOW }));
    expect((await reopened.stats()).memories).toBe(3);
    await live.store({ id: 'after', text: 'writes go on after a restore' });
    expect(ids(await live.recall('writes after restore', { mode: 'lexical' }))).toEqual(['after']);
  });

  it('restore leaves the live store byte-identical when the swap transaction fails', async () => {
    const zip = await (await sample()).exportSnapshot();
    const inner = await SqliteWasmDriver.open();
    let failOn: string | null = null;
    const driver: SqlDriver = {
      name: 'failing',
      exec: (sql, params) => {
        if (failOn && sql.startsWith(failOn)) throw new Error('disk full');
        inner.exec(sql, params);
      },
      all: (sql, params) => inner.all(sql, params),
      transaction: (fn) => inner.transaction(fn),
      serialize: () => inner.serialize(),
      close: () => inner.close(),
    };
    const live = track(await HybridMemory.open({ storage: driver, embedder: new HashEmbedder(), now: () => NOW }));
    await live.storeMany([{ id: 'a', text: 'alpha quokka' }, { id: 'b', text: 'beta ferry' }]);
    await live.relate('b', 'a', 'DEPENDS_ON');
    await live.ready();
    const before = await live.exportDatabase();
    for (const statement of ['DELETE FROM "memories"', 'INSERT INTO "memories"', 'INSERT INTO "edges"']) {
      failOn = statement;
      expect(await codeOf(live.restoreSnapshot(zip))).toBe('STORAGE');
      failOn = null;
      expect(await live.exportDatabase()).toEqual(before);
      expect(ids(await live.recall('quokka', { mode: 'lexical' }))).toEqual(['a']);
      expect(await live.stats()).toMatchObject({ memories: 2, edges: 1 });
    }
  });

  it.runIf(SCHEMA_VERSION >= 2)('empties derived tables (the saved HNSW graph) instead of trusting them', async () => {
    const zip = await (await sample()).exportSnapshot();
    const tampered = await repack(await withStoreDb(unpack(zip), ["INSERT INTO ann_index (name, bytes, updated_at) VALUES ('dense', x'deadbeef', 0)"]));
    const driver = await SqliteWasmDriver.open();
    await track(await HybridMemory.open({ storage: driver, embedder: null })).restoreSnapshot(tampered);
    const imported = track(await HybridMemory.importSnapshot(tampered, { embedder: null }));
    for (const db of [driver.serialize(), await imported.exportDatabase()]) {
      const probe = await SqliteWasmDriver.open({ bytes: db });
      expect(probe.all('SELECT count(*) AS n FROM ann_index')[0]!['n']).toBe(0);
      probe.close();
    }
  });

  it('copies every table of the schema, parents first', async () => {
    const db = await SqliteWasmDriver.open();
    track(await HybridMemory.open({ storage: db, embedder: null }));
    const order = tablesInDependencyOrder('test', db);
    expect(order).toEqual(expect.arrayContaining(['meta', 'memories', 'vectors', 'edges']));
    expect(order.indexOf('memories')).toBeLessThan(order.indexOf('edges'));
    expect(order.indexOf('memories')).toBeLessThan(order.indexOf('vectors'));
  });
});

describe('VERSION', () => {
  it('equals package.json\'s version', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
