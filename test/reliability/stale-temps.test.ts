/**
 * A process killed between creating its temp file and renaming it leaves the temp behind; the
 * next save or open of the same file removes it, and never a temp a live process is writing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

async function plant(file: string): Promise<{ dead: string; own: string; live: string }> {
  const names = { dead: `.${file}.${deadPid()}-abc123.tmp`, own: `.${file}.${process.pid}-def456.tmp`, live: `.${file}.${process.ppid}-ghi789.tmp` };
  for (const name of Object.values(names)) await writeFile(join(dir, name), '');
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
  });

  it('opening the file removes them too', async () => {
    const planted = await plant('save.mind.zip');
    const mem = await loadSnapshotFile(join(dir, 'save.mind.zip'), { embedder: null });
    expect((await mem.get('a'))?.text).toBe('alpha');
    await mem.close();
    const left = await readdir(dir);
    expect(left).not.toContain(planted.dead);
    expect(left).toContain(planted.live);
  });
});
