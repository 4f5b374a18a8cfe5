import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridMemory } from '../../src/index.js';
import { runCli } from '../../src/mcp/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hybridmind-mcp-commands-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `hybridmind-mcp <args>` in this process; resolves to its exit code and what it logged. */
async function cli(...args: string[]): Promise<{ code: number; log: string }> {
  const lines: string[] = [];
  const stdin = new PassThrough();
  stdin.end();
  const code = await runCli(args, { stdin, stdout: new PassThrough(), log: (l) => lines.push(l), cwd: dir });
  return { code, log: lines.join('\n') };
}

async function storeWith(file: string, ids: string[]): Promise<void> {
  const mem = await HybridMemory.open({ storage: file, embedder: null });
  await mem.storeMany(ids.map((id) => ({ id, text: `memory ${id} about the release plan` })));
  await mem.relate(ids[1]!, ids[0]!, 'DEPENDS_ON');
  await mem.close();
}

async function idsIn(file: string): Promise<string[]> {
  const mem = await HybridMemory.open({ storage: file, embedder: null });
  try {
    return (await mem.recall('release plan', { k: 100, mode: 'lexical' })).map((h) => h.id).sort();
  } finally {
    await mem.close();
  }
}

describe('hybridmind-mcp export / import', () => {
  it('exports a store to a .mind.zip and imports it into a new store, folders created', async () => {
    await storeWith(join(dir, 'a.db'), ['x', 'y', 'z']);
    const exported = await cli('export', 'out/a.mind.zip', '--file', 'a.db');
    expect(exported).toMatchObject({ code: 0 });
    expect(exported.log).toContain('exported');
    const imported = await cli('import', 'out/a.mind.zip', '--file', 'new/place/b.db');
    expect(imported).toMatchObject({ code: 0 });
    expect(imported.log).toContain('imported');
    expect(await idsIn(join(dir, 'new/place/b.db'))).toEqual(['x', 'y', 'z']);
  });

  it('replaces a store that holds memories only with --replace, and then all at once', async () => {
    await storeWith(join(dir, 'c.db'), ['old1', 'old2']);
    const refused = await cli('import', 'out/a.mind.zip', '--file', 'c.db');
    expect(refused.code).toBe(1);
    expect(refused.log).toMatch(/already holds 2 memories; pass --replace/);
    expect(await idsIn(join(dir, 'c.db'))).toEqual(['old1', 'old2']);
    expect(await cli('import', 'out/a.mind.zip', '--file', 'c.db', '--replace')).toMatchObject({ code: 0 });
    expect(await idsIn(join(dir, 'c.db'))).toEqual(['x', 'y', 'z']);
  });

  it('refuses a damaged archive and leaves the store as it was', async () => {
    writeFileSync(join(dir, 'bad.mind.zip'), new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]));
    const run = await cli('import', 'bad.mind.zip', '--file', 'c.db', '--replace');
    expect(run.code).toBe(1);
    expect(run.log).toMatch(/CORRUPT|invalid snapshot/i);
    expect(await idsIn(join(dir, 'c.db'))).toEqual(['x', 'y', 'z']);
  });

  it('fails with BUSY while another store owns the file', async () => {
    const owner = await HybridMemory.open({ storage: join(dir, 'a.db'), embedder: null });
    try {
      const run = await cli('export', 'busy.mind.zip', '--file', 'a.db');
      expect(run.code).toBe(1);
      expect(run.log).toContain('is open elsewhere');
      expect(existsSync(join(dir, 'busy.mind.zip'))).toBe(false);
    } finally {
      await owner.close();
    }
  });

  it('explains what to do when --file names a .mind.zip, and refuses usage mistakes with exit code 2', async () => {
    const run = await cli('--file', 'out/a.mind.zip', '--no-embedder');
    expect(run.code).toBe(1);
    expect(run.log).toContain('hybridmind-mcp import');
    expect((await cli('export', 'x.mind.zip')).code).toBe(2);
    expect((await cli('import', '--file', 'a.db')).code).toBe(2);
    expect((await cli('export', 'x.mind.zip', '--file', 'a.db', '--replace')).code).toBe(2);
    expect((await cli('backup', 'x.mind.zip', '--file', 'a.db')).code).toBe(2);
    expect((await cli('export', 'missing.mind.zip', '--file', 'nothing-here.db')).code).toBe(1);
  });
});
