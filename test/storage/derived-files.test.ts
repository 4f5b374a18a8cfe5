import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteWasmDriver, type HybridMemory } from '../../src/index.js';
import { DATA, fileDerivedStore, type SyncFile } from '../../src/storage/derived-files.js';
import type { DerivedStore } from '../../src/storage/driver.js';
import { joinParts, readSections } from '../../src/util/parted-bytes.js';
import { HybridMindError } from '../../src/index.js';
import { DERIVED_NAMES } from '../../src/memory/indexes.js';
import { openMemory, recorder } from '../support/memory.js';
import { nodeSyncFile } from '../../src/storage/node-derived-files.js';
import { nodeDerivedFiles } from '../support/sync-file.js';
import { answers, MEMORIES } from '../support/derived-corpus.js';

/**
 * Derived values in files beside the database (what a browser worker's store keeps on OPFS),
 * here on real files: a value comes back only under the stamp it was written with, a write cut
 * short or a damaged file leaves no value rather than a wrong one, and a store that keeps its
 * derived values so opens from them and answers as one rebuilt from its rows.
 */
let dir: string;
let open: DerivedStore[] = [];
let stores: HybridMemory[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hm-derived-'));
});
afterEach(async () => {
  for (const s of stores) await s.close();
  for (const d of open) d.close?.();
  stores = [];
  open = [];
  await rm(dir, { recursive: true, force: true });
});

function filesIn(names = ['lexical', 'quantized'], wrap: (file: SyncFile) => SyncFile = (f) => f): DerivedStore {
  const store = fileDerivedStore(new Map(names.map((name) => [name, wrap(nodeSyncFile(join(dir, `${name}.bin`)))])));
  open.push(store);
  return store;
}

/** What `run` throws: a HybridMindError of `code` whose message names `method` and holds `received`. */
function expectCoded(run: () => unknown, code: string, method: string, received: string): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(HybridMindError);
  const error = thrown as HybridMindError;
  expect([error.code, error.message]).toEqual([code, expect.stringContaining(method)]);
  expect(error.message).toContain(received);
}

/** Whether two byte arrays are equal (`toEqual` walks megabytes element by element). */
const same = (a: Uint8Array | null, b: Uint8Array): boolean => a !== null && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));

function bytesOf(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed * 17 + (i >> 9)) & 0xff;
  return out;
}

describe('derived values in files', () => {
  it('gives a value back whole, in pieces or by range, only under the stamp it was written with', () => {
    const store = filesIn();
    const value = bytesOf(2.5 * (1 << 20), 1);
    expect(store.stampOf('lexical')).toBeNull();
    store.write('lexical', 'g3 m10:12', value);
    expect(store.stampOf('lexical')).toBe('g3 m10:12');
    expect(store.stampOf('quantized')).toBeNull();
    expect(store.read('lexical', 'g4 m10:12')).toBeNull();
    const parts = store.read('lexical', 'g3 m10:12')!;
    expect(parts.length).toBe(value.length);
    expect(same(joinParts(parts), value)).toBe(true);
    const range = new Uint8Array(1000);
    expect(parts.readRange!(range, 1_500_000)).toBe(true);
    expect(same(range, value.subarray(1_500_000, 1_501_000))).toBe(true);
    expect(parts.readRange!(range, value.length - 999)).toBe(false);
    // A shorter value replaces a longer one exactly, and the same files reopened still hold it.
    store.write('lexical', 'g5 m11:13', value.subarray(0, 10));
    store.close!();
    open = [];
    const again = filesIn();
    expect(joinParts(again.read('lexical', 'g5 m11:13')!)).toEqual(value.subarray(0, 10));
  });

  it('reads sections straight into place, and says broken when the value is shorter than a section', () => {
    const store = filesIn();
    const value = bytesOf(300_000, 2);
    store.write('quantized', 's', value);
    const a = new Uint8Array(100);
    const b = new Uint8Array(200_000);
    expect(readSections(store.read('quantized', 's')!, 16, () => [{ start: 16, into: a }, { start: 50_000, into: b }])).toBe('read');
    expect(a).toEqual(value.subarray(16, 116));
    expect(same(b, value.subarray(50_000, 250_000))).toBe(true);
    expect(readSections(store.read('quantized', 's')!, 16, () => [{ start: 200_000, into: b }])).toBe('broken');
    expect(readSections(store.read('quantized', 's')!, 16, () => null)).toBe('stopped');
  });

  it('rewrites only the chunks of a value that changed', () => {
    let written = 0;
    const store = filesIn(['quantized'], (file) => ({
      ...file,
      write(bytes, options) {
        if (options.at >= DATA) written += bytes.length;
        return file.write(bytes, options);
      },
    }));
    const value = bytesOf(1 << 20, 8);
    store.write('quantized', 'a', value);
    expect(written).toBe(value.length);
    written = 0;
    const changed = value.slice();
    changed[300_000] = changed[300_000]! ^ 0xff;
    changed[300_001] = changed[300_001]! ^ 0xff;
    store.write('quantized', 'b', changed);
    // One 64 KiB chunk holds both bytes.
    expect(written).toBe(1 << 16);
    expect(same(joinParts(store.read('quantized', 'b')!), changed)).toBe(true);
    // Longer: what was there is compared, what is new is written.
    written = 0;
    const longer = new Uint8Array(changed.length + 1000);
    longer.set(changed);
    store.write('quantized', 'c', longer);
    expect(written).toBe(1000);
    expect(same(joinParts(store.read('quantized', 'c')!), longer)).toBe(true);
  });

  it('leaves no value when a write is cut short, and a later write succeeds', () => {
    let writes = 0;
    let failAt = Infinity;
    const store = filesIn(['lexical'], (file) => ({
      ...file,
      write(bytes, options) {
        if (++writes === failAt) throw new Error('disk full');
        return file.write(bytes, options);
      },
    }));
    store.write('lexical', 'old', bytesOf(5000, 3));
    // The first write marks the file empty, the second is the value: stop there.
    writes = 0;
    failAt = 2;
    expect(() => store.write('lexical', 'new', bytesOf(9000, 4))).toThrow('disk full');
    expect(store.stampOf('lexical')).toBeNull();
    expect(store.read('lexical', 'old')).toBeNull();
    failAt = Infinity;
    store.write('lexical', 'new', bytesOf(9000, 4));
    expect(joinParts(store.read('lexical', 'new')!)).toEqual(bytesOf(9000, 4));
  });

  it('offers nothing from a file that is damaged, cut or foreign', async () => {
    const path = join(dir, 'lexical.bin');
    filesIn(['lexical']).write('lexical', 'stamp', bytesOf(4000, 5));
    open[0]!.close!();
    open = [];
    const good = await readFile(path);
    const damages: Array<[string, Uint8Array]> = [
      ['cut', good.subarray(0, good.length - 1)],
      ['longer', new Uint8Array([...good, 0])],
      ['magic', Uint8Array.from(good, (b, i) => (i === 0 ? 0 : b))],
      ['version', Uint8Array.from(good, (b, i) => (i === 4 ? 9 : b))],
      ['stamp length', Uint8Array.from(good, (b, i) => (i === 8 ? 250 : b))],
      ['stamp bytes', Uint8Array.from(good, (b, i) => (i === 24 ? 0xff : b))],
      ['header only', good.subarray(0, DATA - 1)],
      ['empty', new Uint8Array(0)],
    ];
    for (const [what, bytes] of damages) {
      await writeFile(path, bytes);
      const store = filesIn(['lexical']);
      expect([what, store.stampOf('lexical'), store.read('lexical', 'stamp')]).toEqual([what, null, null]);
      store.close!();
      open = [];
    }
  });

  it('forgets every value on clear, and refuses names and stamps it cannot keep', () => {
    const store = filesIn();
    store.write('lexical', 'a', bytesOf(10, 6));
    store.write('quantized', 'a', bytesOf(10, 7));
    store.clear!();
    expect([store.stampOf('lexical'), store.stampOf('quantized')]).toEqual([null, null]);
    expectCoded(() => store.write('graph', 'a', new Uint8Array(1)), 'STORAGE', 'DerivedStore.write', '"graph"');
    expectCoded(() => store.stampOf('graph'), 'STORAGE', 'DerivedStore.stampOf', '"graph"');
    expectCoded(() => store.write('lexical', 'x'.repeat(300), new Uint8Array(1)), 'STORAGE', 'DerivedStore.write', 'received 300');
    expectCoded(() => store.write('lexical', '', new Uint8Array(1)), 'STORAGE', 'DerivedStore.write', 'received 0');
  });
});

describe('a store that keeps its derived values in files', () => {
  it('saves them there, not in the database, opens from them, and forgets them when a snapshot replaces its rows', async () => {
    const mem = await openMemory({ storage: await SqliteWasmDriver.open({ derived: fileDerivedStore(nodeDerivedFiles(dir)) }) });
    stores.push(mem);
    await mem.storeMany(MEMORIES);
    await mem.relate('invoice', 'adr7', 'DEPENDS_ON');
    const expected = await answers(mem);
    const bytes = await mem.exportDatabase();
    const snapshot = await mem.exportSnapshot();
    await mem.close();
    stores = [];

    const plain = await SqliteWasmDriver.open({ bytes });
    expect(plain.all('SELECT count(*) AS n FROM derived_index')[0]!.n).toBe(0);
    plain.close();
    const log = recorder();
    const reopened = await openMemory({ storage: await SqliteWasmDriver.open({ bytes, derived: fileDerivedStore(nodeDerivedFiles(dir)) }), logger: log.logger });
    stores.push(reopened);
    for (const what of ['lexical index', 'entity index']) expect(log.messages).toContain(`loaded the saved ${what}`);
    expect(log.messages).toContain('opened the dense leg from its saved codes; vectors are read from the store when needed');
    expect(await answers(reopened)).toEqual(expected);

    const saved = fileDerivedStore(nodeDerivedFiles(dir));
    open.push(saved);
    expect(DERIVED_NAMES.map((name) => saved.stampOf(name) !== null)).toEqual(DERIVED_NAMES.map(() => true));
    await reopened.restoreSnapshot(snapshot);
    // Kept outside the replace's transaction, they are gone before the rows change under them.
    expect(DERIVED_NAMES.map((name) => saved.stampOf(name))).toEqual(DERIVED_NAMES.map(() => null));
    expect(await answers(reopened)).toEqual(expected);
  });
});
