import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HybridMemory, HybridMindError, SnapshotBackups, verifySnapshot } from '../../src/index.js';
import { DirectoryBackupStore, loadSnapshotFile, saveSnapshotFile } from '../../src/node.js';
import { HashEmbedder } from '../support/hash-embedder.js';
import { NOW, openMemory } from '../support/memory.js';
import { repack, unpack } from './support/archive.js';
import { codeOf } from '../support/errors.js';

let dir: string;
const open: HybridMemory[] = [];
const track = (m: HybridMemory) => (open.push(m), m);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hybridmind-backups-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
  await rm(dir, { recursive: true, force: true });
});


/** A store that gains one memory per backup, so each backup is recognisable by its count. */
async function growing(): Promise<{ mem: HybridMemory; grow: () => Promise<void> }> {
  const mem = track(await openMemory({ embedder: new HashEmbedder(8) }));
  let n = 0;
  return { mem, grow: async () => void (await mem.store({ id: `m${n}`, text: `memory number ${n++}` })) };
}

const readBytes = async (path: string) => new Uint8Array(await readFile(path));
const countOf = async (path: string) => (await verifySnapshot(await readBytes(path))).counts.memories;

describe('SnapshotBackups in a directory', () => {
  it('keeps the N newest valid snapshots, named in time order, with no temp files left', async () => {
    let now = NOW;
    const backups = await SnapshotBackups.inDirectory(dir, { keep: 3, now: () => now });
    const { mem, grow } = await growing();
    const written: string[] = [];
    for (let i = 0; i < 7; i++) {
      await grow();
      written.push(await backups.backup(mem));
      now += 1000;
    }
    expect(written).toEqual([...written].sort());
    expect(await backups.list()).toEqual(written.slice(-3).reverse());
    expect((await readdir(dir)).sort()).toEqual(written.slice(-3));
    expect(await Promise.all(written.slice(-3).map((name) => countOf(join(dir, name))))).toEqual([5, 6, 7]);
  });

  it('keeps names strictly ordered when the clock stalls or steps back', async () => {
    let now = NOW;
    const backups = await SnapshotBackups.inDirectory(dir, { keep: 10, now: () => now });
    const { mem, grow } = await growing();
    const names: string[] = [];
    for (const step of [0, 0, -60_000, 5]) {
      now += step;
      await grow();
      names.push(await backups.backup(mem));
    }
    expect(new Set(names).size).toBe(4);
    expect(names).toEqual([...names].sort());
    expect(names[0]).toMatch(/^hybridmind-\d{8}T\d{9}Z-0000\.mind\.zip$/);
  });

  it('runs overlapping backups one after another', async () => {
    const backups = await SnapshotBackups.inDirectory(dir, { keep: 5, now: () => NOW });
    const { mem, grow } = await growing();
    await grow();
    const names = await Promise.all([backups.backup(mem), backups.backup(mem), backups.backup(mem)]);
    expect(new Set(names).size).toBe(3);
    expect(await backups.list()).toEqual([...names].reverse());
  });

  it('restores the newest valid backup, skipping corrupt ones', async () => {
    let now = NOW;
    const backups = await SnapshotBackups.inDirectory(dir, { keep: 5, now: () => (now += 1000) });
    const { mem, grow } = await growing();
    for (let i = 0; i < 3; i++) {
      await grow();
      await backups.backup(mem);
    }
    const [newest, second] = await backups.list();
    await writeFile(join(dir, newest!), 'not a zip');
    const damaged = unpack(await readBytes(join(dir, second!)));
    damaged.parts.set('graph.jsonl', new TextEncoder().encode('{"node":"m0"}\n'));
    await writeFile(join(dir, second!), await repack(damaged));

    const live = track(await openMemory({ embedder: new HashEmbedder(8) }));
    await live.store({ text: 'replaced' });
    const result = await backups.restoreNewestValid(live);
    expect(result.skipped.map((s) => [s.name, s.code])).toEqual([[newest, 'CORRUPT'], [second, 'CORRUPT']]);
    expect(result.restored).toBe((await backups.list())[2]);
    expect((await live.stats()).memories).toBe(1);

    const opened = await backups.openNewestValid({ embedder: new HashEmbedder(8) });
    expect(opened.name).toBe(result.restored);
    track(opened.memory!);
    expect((await opened.memory!.stats()).memories).toBe(1);
  });

  it('does not count invalid backups toward keep, and deletes them only once older than the kept ones', async () => {
    let now = NOW;
    const backups = await SnapshotBackups.inDirectory(dir, { keep: 2, now: () => (now += 1000) });
    const { mem, grow } = await growing();
    await grow();
    const a = await backups.backup(mem);
    await grow();
    const b = await backups.backup(mem);
    await writeFile(join(dir, b), 'torn');
    await grow();
    const c = await backups.backup(mem);
    expect(await backups.list()).toEqual([c, b, a]);
    await grow();
    const d = await backups.backup(mem);
    expect(await backups.list()).toEqual([d, c]);
  });

  it('leaves other files in the directory alone, and skips backups from a newer library', async () => {
    let now = NOW;
    const backups = await SnapshotBackups.inDirectory(dir, { keep: 1, now: () => (now += 1000) });
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const { mem, grow } = await growing();
    await grow();
    const old = await backups.backup(mem);
    const future = unpack(await readBytes(join(dir, old)));
    future.manifest['formatVersion'] = '2.0';
    const futureName = old.replace(/-0000\.mind\.zip$/, '-0001.mind.zip');
    await writeFile(join(dir, futureName), await repack(future));
    const live = track(await openMemory({ embedder: new HashEmbedder(8) }));
    const result = await backups.restoreNewestValid(live);
    expect(result).toMatchObject({ restored: old, skipped: [{ name: futureName, code: 'UNSUPPORTED' }] });
    expect((await readdir(dir)).sort()).toEqual([old, futureName, 'notes.txt'].sort());
  });

  it('answers null when nothing is valid, and checks its options', async () => {
    const backups = await SnapshotBackups.inDirectory(join(dir, 'not-yet'));
    const live = track(await openMemory());
    expect(await backups.restoreNewestValid(live)).toEqual({ restored: null, skipped: [] });
    expect(await backups.openNewestValid()).toEqual({ memory: null, name: null, skipped: [] });
    const store = new DirectoryBackupStore(dir);
    expect(() => new SnapshotBackups(store, { keep: 0 })).toThrow(HybridMindError);
    expect(() => new SnapshotBackups(store, { prefix: '../up' })).toThrow(HybridMindError);
    expect(() => new SnapshotBackups(store, { every: 5 } as never)).toThrow(HybridMindError);
  });

  it('a directory store refuses names that leave the directory', async () => {
    const store = new DirectoryBackupStore(dir);
    for (const name of ['../x', 'a/b', 'a\\b', '..', '']) {
      expect(await codeOf(store.write(name, new Uint8Array(1)))).toBe('INVALID_ARGUMENT');
      expect(await codeOf(store.read(name))).toBe('INVALID_ARGUMENT');
    }
  });

  it('OPFS backups are refused outside a browser', async () => {
    expect(await codeOf(SnapshotBackups.inOpfs())).toBe('UNSUPPORTED');
  });
});

describe('snapshot files', () => {
  it('save and load round-trip, and a save replaces the file whole', async () => {
    const path = join(dir, 'store.mind.zip');
    const { mem, grow } = await growing();
    await grow();
    await saveSnapshotFile(mem, path);
    await grow();
    await saveSnapshotFile(mem, path);
    expect(await readdir(dir)).toEqual(['store.mind.zip']);
    const loaded = track(await loadSnapshotFile(path, { embedder: new HashEmbedder(8), now: () => NOW }));
    expect((await loaded.stats()).memories).toBe(2);
  });

  it('a failed save leaves the target and the directory as they were', async () => {
    const { mem, grow } = await growing();
    await grow();
    expect(await codeOf(saveSnapshotFile(mem, join(dir, 'missing', 'store.mind.zip')))).toBe('STORAGE');
    const blocked = join(dir, 'blocked.mind.zip');
    await mkdir(blocked);
    await writeFile(join(blocked, 'keep'), 'x');
    expect(await codeOf(saveSnapshotFile(mem, blocked))).toBe('STORAGE');
    expect(await readdir(dir)).toEqual(['blocked.mind.zip']);
    expect(await readdir(blocked)).toEqual(['keep']);
  });

  it('loading reports missing and corrupt files with codes', async () => {
    expect(await codeOf(loadSnapshotFile(join(dir, 'nope.mind.zip')))).toBe('STORAGE');
    await writeFile(join(dir, 'bad.mind.zip'), 'PK not really');
    expect(await codeOf(loadSnapshotFile(join(dir, 'bad.mind.zip')))).toBe('CORRUPT');
  });
});
