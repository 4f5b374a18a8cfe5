import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteWasmDriver, type HybridMemory } from '../../src/index.js';
import { defaultLegs } from '../../src/legs/default.js';
import { preloadingStore } from '../../src/memory/preload.js';
import { fileDerivedStore } from '../../src/storage/derived-files.js';
import type { DerivedStore } from '../../src/storage/driver.js';
import { silentLogger } from '../../src/logger.js';
import { openMemory, recorder } from '../support/memory.js';
import { afterFirstSlice } from '../support/slices.js';
import { nodeDerivedFiles } from '../support/sync-file.js';
import { answers, MEMORIES } from '../support/derived-corpus.js';

/**
 * A store's saved indexes decoded before its open (what the browser worker does while
 * SQLite-WASM starts), on real files: the open takes them instead of reading them again, but
 * only under the store's current stamp, and never after their bytes changed.
 */
const EARLY = ['lexical', 'entities', 'catalog'];

let dir: string;
let stores: HybridMemory[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hm-preload-'));
});
afterEach(async () => {
  for (const s of stores) await s.close();
  stores = [];
  await rm(dir, { recursive: true, force: true });
});

/** The database bytes of a store that saved its derived values to files in `dir`, and its answers. */
async function savedStore(): Promise<{ bytes: Uint8Array; expected: unknown }> {
  const mem = await openMemory({ storage: await SqliteWasmDriver.open({ derived: fileDerivedStore(nodeDerivedFiles(dir)) }) });
  await mem.storeMany(MEMORIES);
  await mem.relate('invoice', 'adr7', 'DEPENDS_ON');
  const expected = await answers(mem);
  const bytes = await mem.exportDatabase();
  await mem.close();
  return { bytes, expected };
}

/** The files in `dir`, with every read of a value counted by name. */
function countedFiles(reads: Map<string, number>): DerivedStore {
  const files = fileDerivedStore(nodeDerivedFiles(dir));
  return { ...files, read: (name, stamp) => (reads.set(name, (reads.get(name) ?? 0) + 1), files.read(name, stamp)) };
}

const legs = () => defaultLegs({ logger: silentLogger });

describe('saved indexes decoded before the open', () => {
  it('are taken by the open instead of being read again, and it answers as the store did', async () => {
    const { bytes, expected } = await savedStore();
    const reads = new Map<string, number>();
    const preloading = preloadingStore(countedFiles(reads), await legs());
    await afterFirstSlice();
    await afterFirstSlice();
    await afterFirstSlice();
    expect(EARLY.map((name) => reads.get(name))).toEqual([1, 1, 1]);
    const log = recorder();
    const mem = await openMemory({ storage: await SqliteWasmDriver.open({ bytes, derived: preloading }), logger: log.logger });
    stores.push(mem);
    // Decoded once, before the open: the open read none of them again.
    expect(EARLY.map((name) => reads.get(name))).toEqual([1, 1, 1]);
    for (const what of ['lexical index', 'entity index', 'catalog']) expect(log.messages).toContain(`loaded the saved ${what}`);
    expect(await answers(mem)).toEqual(expected);
  });

  it('are decoded when the open asks, if their turn has not come yet', async () => {
    const { bytes, expected } = await savedStore();
    const reads = new Map<string, number>();
    const mem = await openMemory({ storage: await SqliteWasmDriver.open({ bytes, derived: preloadingStore(countedFiles(reads), await legs()) }) });
    stores.push(mem);
    expect(EARLY.map((name) => reads.get(name))).toEqual([1, 1, 1]);
    await afterFirstSlice();
    await afterFirstSlice();
    expect(EARLY.map((name) => reads.get(name))).toEqual([1, 1, 1]);
    expect(await answers(mem)).toEqual(expected);
  });

  it('are not used under another stamp: a store written since its files were saved rebuilds them', async () => {
    const { bytes } = await savedStore();
    // The same database a write later: its stamp moved, the files still hold the old one.
    const changed = await openMemory({ storage: await SqliteWasmDriver.open({ bytes }) });
    await changed.store({ id: 'late', text: 'A late memory about Order #4821 and the quokka census' });
    const later = await changed.exportDatabase();
    const expected = await answers(changed);
    await changed.close();
    const preloading = preloadingStore(fileDerivedStore(nodeDerivedFiles(dir)), await legs());
    await afterFirstSlice();
    const log = recorder();
    const mem = await openMemory({ storage: await SqliteWasmDriver.open({ bytes: later, derived: preloading }), logger: log.logger });
    stores.push(mem);
    expect(log.messages.filter((m) => m.startsWith('loaded the saved'))).toEqual([]);
    expect(log.messages).toContain('the saved lexical index is from another store generation; rebuilding it');
    expect(await answers(mem)).toEqual(expected);
  });

  it('are dropped once their bytes are written or cleared, and a value that does not decode is left to the open', async () => {
    await savedStore();
    const files = fileDerivedStore(nodeDerivedFiles(dir));
    const stamps = Object.fromEntries(EARLY.map((name) => [name, files.stampOf(name)!]));
    const preloading = preloadingStore(files, await legs());
    await afterFirstSlice();
    await afterFirstSlice();
    await afterFirstSlice();
    expect(preloading.early!.take('lexical', 'another stamp')).toBeUndefined();
    // Taken once: a second ask finds nothing (the first took it, under the wrong stamp).
    expect(preloading.early!.take('lexical', stamps['lexical']!)).toBeUndefined();
    preloading.write('entities', stamps['entities']!, new Uint8Array([1, 2, 3]));
    expect(preloading.early!.take('entities', stamps['entities']!)).toBeUndefined();
    preloading.clear!();
    expect(preloading.early!.take('catalog', stamps['catalog']!)).toBeUndefined();
    expect(preloading.early!.take('quantized', 'any')).toBeUndefined();
    preloading.close!();

    const { bytes, expected } = await savedStore();
    // Asked for under another stamp before its turn: not decoded for nothing.
    const reads = new Map<string, number>();
    const unread = preloadingStore(countedFiles(reads), await legs());
    expect(unread.early!.take('catalog', 'another stamp')).toBeUndefined();
    await afterFirstSlice();
    await afterFirstSlice();
    await afterFirstSlice();
    expect(EARLY.map((name) => reads.get(name) ?? 0)).toEqual([1, 1, 0]);
    unread.close!();

    // Bytes that are not an entity index: nothing to take, and the open says why it rebuilds.
    const broken = fileDerivedStore(nodeDerivedFiles(dir));
    broken.write('entities', broken.stampOf('entities')!, new Uint8Array([1, 2, 3]));
    const early = preloadingStore(broken, await legs());
    await afterFirstSlice();
    await afterFirstSlice();
    expect(early.early!.take('entities', early.stampOf('entities')!)).toBeUndefined();
    const again = preloadingStore(fileDerivedStore(nodeDerivedFiles(dir)), await legs());
    const log = recorder();
    const mem = await openMemory({ storage: await SqliteWasmDriver.open({ bytes, derived: again }), logger: log.logger });
    stores.push(mem);
    expect(log.messages).toContain('the saved entity index could not be read; rebuilding it');
    expect(await answers(mem)).toEqual(expected);
    early.close!();
  });
});
