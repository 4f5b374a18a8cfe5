import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridMemory } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'hybridmind-erase-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'the vault combination is 7319-ZEBRA-4402';
const REWRITTEN = 'the old draft said launch on friday 88412';
const encode = (s: string) => new TextEncoder().encode(s);

function contains(haystack: Uint8Array, needle: string): boolean {
  return Buffer.from(haystack).includes(Buffer.from(encode(needle)));
}

async function forgetAndRewrite(mem: HybridMemory): Promise<void> {
  await mem.storeMany(Array.from({ length: 40 }, (_, i) => ({ id: `m${i}`, text: `ordinary note ${i} about the weekly sync` })));
  await mem.store({ id: 'secret', text: SECRET });
  await mem.store({ id: 'draft', text: REWRITTEN });
  await mem.forget('secret');
  await mem.update('draft', { text: 'the plan is final' });
}

// A memory that is forgotten (or rewritten) must not travel on in the bytes of what is exported:
// SQLite leaves a deleted cell's bytes in the page unless secure_delete is on.
describe('forget and update erase the old text from what leaves the store', () => {
  it('in-memory store: exportDatabase and the snapshot store.db hold neither the forgotten nor the overwritten text', async () => {
    const mem = await HybridMemory.open({ embedder: null });
    await forgetAndRewrite(mem);
    const db = await mem.exportDatabase();
    expect(contains(db, 'ordinary note 7')).toBe(true);
    expect(contains(db, SECRET)).toBe(false);
    expect(contains(db, REWRITTEN)).toBe(false);
    const parts = unzipSync(await mem.exportSnapshot());
    for (const [name, bytes] of Object.entries(parts)) {
      expect(contains(bytes, SECRET), name).toBe(false);
      expect(contains(bytes, REWRITTEN), name).toBe(false);
    }
    await mem.close();
  });

  it('Node file store: the file and its export hold neither text once the store is closed', async () => {
    const path = join(dir, 'erase.db');
    const mem = await HybridMemory.open({ storage: path, embedder: null });
    await forgetAndRewrite(mem);
    const parts = unzipSync(await mem.exportSnapshot());
    for (const [name, bytes] of Object.entries(parts)) expect(contains(bytes, SECRET), name).toBe(false);
    await mem.close();
    const file = readFileSync(path);
    expect(contains(file, 'ordinary note 7')).toBe(true);
    expect(contains(file, SECRET)).toBe(false);
    expect(contains(file, REWRITTEN)).toBe(false);
  });
});
