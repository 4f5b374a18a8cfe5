import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridMemory } from '../../src/index.js';
import { PAGE_SIZE, SqliteFileDriver } from '../../src/storage/node-file.js';
import { loadSqlite3 } from '../../src/storage/sqlite3-module.js';
import { codeOf } from '../support/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'hybridmind-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** better-sqlite3 itself, to make a file the way a store made before would have it. */
const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => { pragma(sql: string): unknown; close(): void };

const unit = (i: number, dim = 8) => Float32Array.from({ length: dim }, (_, j) => (j === i % dim ? 1 : 0.1));

describe('HybridMemory.open({ storage: path })', () => {
  it('creates the file and its folders, and a reopen sees memories, edges, vectors and working indexes', async () => {
    const path = join(dir, 'deep', 'er', 'memory.db');
    const now = () => 1_800_000_000_000;
    const mem = await HybridMemory.open({ storage: path, embedder: null, now });
    await mem.storeMany(Array.from({ length: 20 }, (_, i) => ({ id: `m${i}`, text: `note ${i} about ${i % 2 ? 'hnsw tuning' : 'sqlite wal'}`, embedding: unit(i) })));
    await mem.relate('m1', 'm0', 'DEPENDS_ON');
    await mem.update('m2', { text: 'rewritten: postgres replication' });
    await mem.forget('m3');
    const before = await mem.recall('sqlite wal', { k: 5 });
    expect((await mem.stats()).storage).toBe(`sqlite-file:${path}`);
    await mem.close();
    expect(existsSync(`${path}-wal`)).toBe(false);

    const again = await HybridMemory.open({ storage: path, embedder: null, now });
    try {
      const stats = await again.stats();
      // m2's new text has no vector (no embedder), so 18 of 19 are semantic.
      expect([stats.memories, stats.edges, stats.dim, stats.readiness.semantic]).toEqual([19, 1, 8, 18]);
      expect(await again.recall('sqlite wal', { k: 5 })).toEqual(before);
      expect((await again.recall('postgres replication', { k: 1, mode: 'lexical' }))[0]!.id).toBe('m2');
      expect(await again.get('m3')).toBeNull();
      expect((await again.edges('m1')).map((e) => [e.from, e.to, e.type])).toEqual([['m1', 'm0', 'DEPENDS_ON']]);
      expect((await again.recall('x', { queryEmbedding: unit(5), mode: 'vector', k: 1 }))[0]!.id).toBe('m5');
    } finally {
      await again.close();
    }
  });

  it('takes a SqliteFileDriver with options, and refuses bad ones', async () => {
    const driver = await SqliteFileDriver.open(join(dir, 'driver.db'), { lockTimeoutMs: 0 });
    const mem = await HybridMemory.open({ storage: driver, embedder: null });
    await mem.store({ id: 'a', text: 'via a driver' });
    await mem.close();
    expect(await codeOf(SqliteFileDriver.open(join(dir, 'x.db'), { lockTimeoutMs: -1 }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(SqliteFileDriver.open(''))).toBe('INVALID_ARGUMENT');
  });

  it('tells a typo from a path, and refuses a file that is not a database', async () => {
    expect(await codeOf(HybridMemory.open({ storage: 'memroy', embedder: null }))).toBe('INVALID_ARGUMENT');
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'this is not a database, just text long enough to fill a header page'.repeat(20));
    expect(await codeOf(HybridMemory.open({ storage: junk, embedder: null }))).toBe('CORRUPT');
  });

  it('a new file takes the page size SQLite-WASM gives its files; an existing file keeps its own', async () => {
    const pageSize = (db: { all: (sql: string) => Array<Record<string, unknown>> }) => Number(db.all('PRAGMA page_size')[0]!['page_size']);
    // The build's default, which an OPFS store's new file gets (in-memory stores choose their own).
    const sqlite3 = await loadSqlite3();
    const raw = new sqlite3.oo1.DB(':memory:', 'c');
    try {
      expect(Number(raw.selectValue('PRAGMA page_size'))).toBe(PAGE_SIZE);
    } finally {
      raw.close();
    }
    const fresh = await SqliteFileDriver.open(join(dir, 'fresh.db'));
    const mem = await HybridMemory.open({ storage: fresh, embedder: null });
    await mem.store({ id: 'a', text: 'new file', embedding: unit(0) });
    expect(pageSize(fresh)).toBe(PAGE_SIZE);
    await mem.close();

    const path = join(dir, 'old-pages.db');
    const old = new Database(path);
    old.pragma('page_size = 4096');
    old.pragma('journal_mode = WAL');
    old.close();
    const before = await HybridMemory.open({ storage: path, embedder: null });
    await before.storeMany(Array.from({ length: 50 }, (_, i) => ({ id: `o${i}`, text: `older store ${i}`, embedding: unit(i) })));
    await before.close();
    const driver = await SqliteFileDriver.open(path);
    const again = await HybridMemory.open({ storage: driver, embedder: null });
    try {
      expect(pageSize(driver)).toBe(4096);
      expect((await again.stats()).memories).toBe(50);
      expect((await again.recall('older store 7', { k: 1, mode: 'lexical' }))[0]!.id).toBe('o7');
    } finally {
      await again.close();
    }
  });

  it('writes cost the batch, not the store: one memory adds a few pages to the log', async () => {
    const path = join(dir, 'big.db');
    const mem = await HybridMemory.open({ storage: path, embedder: null });
    for (let b = 0; b < 5; b++) await mem.storeMany(Array.from({ length: 1000 }, (_, i) => ({ id: `b${b}-${i}`, text: `memory ${b} ${i} ${'filler words '.repeat(10)}`, embedding: unit(i) })));
    await mem.close();
    const reopened = await HybridMemory.open({ storage: path, embedder: null });
    try {
      await reopened.store({ id: 'one-more', text: 'a single new memory', embedding: unit(1) });
      const wal = statSync(`${path}-wal`).size;
      expect(statSync(path).size).toBeGreaterThan(1_000_000);
      expect(wal).toBeLessThan(64 * 1024);
    } finally {
      await reopened.close();
    }
  });

  it('snapshots of a file store import anywhere, and restoreSnapshot replaces the file\'s content for good', async () => {
    const path = join(dir, 'snap.db');
    const mem = await HybridMemory.open({ storage: path, embedder: null });
    await mem.storeMany([{ id: 'keep', text: 'in the snapshot' }, { id: 'also', text: 'in it too' }]);
    const zip = await mem.exportSnapshot();
    const bytes = await mem.exportDatabase();
    await mem.store({ id: 'later', text: 'written after the snapshot' });
    const copy = await HybridMemory.importSnapshot(zip, { embedder: null });
    const raw = await HybridMemory.open({ storage: { bytes }, embedder: null });
    expect((await copy.stats()).memories).toBe(2);
    expect((await raw.stats()).memories).toBe(2);
    await copy.close();
    await raw.close();

    await mem.restoreSnapshot(zip);
    expect(await mem.get('later')).toBeNull();
    await mem.close();
    const again = await HybridMemory.open({ storage: path, embedder: null });
    try {
      expect((await again.stats()).memories).toBe(2);
      expect(await again.get('later')).toBeNull();
      expect((await again.get('keep'))?.text).toBe('in the snapshot');
    } finally {
      await again.close();
    }
  });
});

describe('without the optional engine', () => {
  it('a path fails with MISSING_DEPENDENCY naming better-sqlite3, while memory stores still open', async () => {
    const { spawnSync } = await import('node:child_process');
    const script = `
      const { HybridMemory } = await import(${JSON.stringify(new URL('../../src/index.ts', import.meta.url).pathname)});
      const error = await HybridMemory.open({ storage: ${JSON.stringify(join(dir, 'never.db'))}, embedder: null }).then(() => null, (e) => e);
      const mem = await HybridMemory.open({ embedder: null });
      console.log(JSON.stringify({ code: error?.code, message: error?.message, memory: (await mem.stats()).storage }));`;
    const hide = new URL('../support/hide-better-sqlite3.mjs', import.meta.url).pathname;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--import', hide, '--input-type=module', '-e', script], { encoding: 'utf8' });
    const result = JSON.parse(run.stdout) as { code: string; message: string; memory: string };
    expect(result).toMatchObject({ code: 'MISSING_DEPENDENCY', memory: 'sqlite-wasm:memory' });
    expect(result.message).toContain('npm install better-sqlite3');
    expect(existsSync(join(dir, 'never.db'))).toBe(false);
  });
});

describe('one owner per file', () => {
  it('a second open fails with BUSY while a process holds the file, and succeeds once that process is killed', async () => {
    const path = join(dir, 'owned.db');
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('../support/crash-writer.ts', import.meta.url).pathname, 'store', path, '1', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ack') && resolve());
      child.on('exit', () => reject(new Error('the owner exited early')));
    });
    try {
      expect(await codeOf(SqliteFileDriver.open(path, { lockTimeoutMs: 50 }))).toBe('BUSY');
      expect(await codeOf(HybridMemory.open({ storage: path, embedder: null }))).toBe('BUSY');
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    const mem = await HybridMemory.open({ storage: path, embedder: null });
    try {
      expect((await mem.stats()).memories).toBeGreaterThan(0);
    } finally {
      await mem.close();
    }
  });

  it('two stores in one process cannot share a file either', async () => {
    const path = join(dir, 'twice.db');
    const first = await HybridMemory.open({ storage: path, embedder: null });
    try {
      expect(await codeOf(SqliteFileDriver.open(path, { lockTimeoutMs: 0 }))).toBe('BUSY');
    } finally {
      await first.close();
    }
    const second = await SqliteFileDriver.open(path, { lockTimeoutMs: 0 });
    second.close();
  });
});
