/**
 * A process killed between creating its temp file and renaming it leaves the temp behind; the
 * next save or open of the same file removes it, and never a temp a live process is writing.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapshotBackups } from '../../src/index.js';
import { loadSnapshotFile, saveSnapshotFile } from '../../src/snapshot/node-files.js';
import { openMemory } from '../support/memory.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hybridmind-temps-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

async function plant(file: string, into = dir): Promise<{ dead: string; own: string; live: string; oldStale: string; oldFresh: string }> {
  const names = {
    dead: `.${file}.${deadPid()}-abc123.tmp`,
    own: `.${file}.${process.pid}-def456.tmp`,
    live: `.${file}.${process.ppid}-ghi789.tmp`,
    // The naming before temps carried the writer's pid: only age tells a killed write from a running one.
    oldStale: `.${file}.k3j4h5l6m7.tmp`,
    oldFresh: `.${file}.x8y9z0a1b2.tmp`,
  };
  for (const name of Object.values(names)) await writeFile(join(into, name), '');
  const twoMinutesAgo = new Date(Date.now() - 120_000);
  await utimes(join(into, names.oldStale), twoMinutesAgo, twoMinutesAgo);
  return names;
}

describe('stale temp files of atomic writes', () => {
  it('the next save removes temps whose writer is gone, and keeps a live process\'s', async () => {
    const mem = await openMemory({ embedder: null });
    await mem.store({ id: 'a', text: 'alpha' });
    const planted = await plant('save.mind.zip');
    await saveSnapshotFile(mem, join(dir, 'save.mind.zip'));
    await mem.close();
    const left = await readdir(dir);
    expect(left).toContain('save.mind.zip');
    expect(left).not.toContain(planted.dead);
    expect(left).not.toContain(planted.own);
    expect(left).toContain(planted.live);
    expect(left).not.toContain(planted.oldStale);
    expect(left).toContain(planted.oldFresh);
  });

  it('opening the file removes them too', async () => {
    const planted = await plant('save.mind.zip');
    const mem = await loadSnapshotFile(join(dir, 'save.mind.zip'), { embedder: null });
    expect((await mem.get('a'))?.text).toBe('alpha');
    await mem.close();
    const left = await readdir(dir);
    expect(left).not.toContain(planted.dead);
    expect(left).toContain(planted.live);
    expect(left).not.toContain(planted.oldStale);
  });

  it('opening a backup directory removes the temps of backups killed midway, whatever their name, and only of snapshots', async () => {
    const backupsDir = join(dir, 'backups');
    await mkdir(backupsDir);
    const killed = await plant('hybridmind-20261130T120000000Z-0001.mind.zip', backupsDir);
    const notOurs = await plant('notes.txt', backupsDir);
    const backups = await SnapshotBackups.inDirectory(backupsDir, { keep: 2 });
    expect(await backups.list()).toEqual([]);
    const left = await readdir(backupsDir);
    for (const gone of [killed.dead, killed.own, killed.oldStale]) expect(left).not.toContain(gone);
    for (const kept of [killed.live, killed.oldFresh, ...Object.values(notOurs)]) expect(left).toContain(kept);
    const mem = await openMemory({ embedder: null });
    await mem.store({ id: 'b', text: 'beta' });
    const name = await backups.backup(mem);
    await mem.close();
    expect(await backups.list()).toEqual([name]);
  });
});
