import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** A fresh Node process whose `unhandledRejection` listener records instead of ending it (inside vitest one would only be reported). */
function runNode(script: string): { status: number | null; stdout: string; stderr: string } {
  const prelude = `
    const rejections = [];
    process.on('unhandledRejection', (reason) => rejections.push(String(reason?.message ?? reason)));
    const settle = () => new Promise((r) => setTimeout(r, 50));
    const logged = [];
    const logger = (level, message, data) => logged.push({ level, message, error: data?.error });
  `;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', prelude + script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface Outcome {
  rejections: string[];
  failed: string[];
  lastError: string | null;
  logged: Array<{ level: string; message: string; error?: string }>;
}

function outcome(run: ReturnType<typeof runNode>): Outcome {
  // stderr may hold SQLite-WASM's own report of a refused statement; the outcome is in stdout.
  expect(run.stderr).not.toMatch(/Unhandled|TypeError|ReferenceError/);
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Outcome;
}

const REPORT = `
  const report = async (mem, { storageGone = false } = {}) => {
    const { failed } = await mem.ready();
    // stats() reads the database, which the last case closed.
    const lastError = storageGone ? null : (await mem.stats()).enrichment.lastError;
    await settle();
    process.stdout.write(JSON.stringify({ rejections, failed: failed.sort(), lastError, logged }));
  };
`;

describe('background failures (enrichment, the HNSW build) are reported, never unhandled rejections', () => {
  it('an embedder that throws synchronously: logged, the memories marked failed', () => {
    const result = outcome(runNode(`
      import { HybridMemory } from './src/hybrid-memory.ts';
      ${REPORT}
      const embedder = { id: 'sync-thrower', dim: 4, embed() { throw new Error('the model fell over'); } };
      const mem = await HybridMemory.open({ embedder, logger, enrichment: { maxAttempts: 2, backoffMs: 1 } });
      await mem.storeMany([{ id: 'a', text: 'first' }, { id: 'b', text: 'second' }]);
      await report(mem);
      await mem.close();
    `));
    expect(result.rejections).toEqual([]);
    expect(result.failed).toEqual(['a', 'b']);
    expect(result.lastError).toBe('the model fell over');
    expect(result.logged.filter((l) => l.level === 'warn').map((l) => l.error)).toEqual(['the model fell over', 'the model fell over']);
  });

  it('the database refusing the vectors: logged as an error, the memories marked failed', () => {
    const result = outcome(runNode(`
      import { HybridMemory, SqliteWasmDriver } from './src/index.ts';
      import { HashEmbedder } from './test/support/hash-embedder.ts';
      ${REPORT}
      const driver = await SqliteWasmDriver.open();
      const mem = await HybridMemory.open({ storage: driver, embedder: new HashEmbedder(8), logger });
      // A real SQLite refusal on the vector table only: the memories themselves commit.
      driver.exec("CREATE TRIGGER no_room BEFORE INSERT ON vectors BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END");
      await mem.storeMany([{ id: 'a', text: 'first' }, { id: 'b', text: 'second' }]);
      await report(mem);
      await mem.close();
    `));
    expect(result.rejections).toEqual([]);
    expect(result.failed).toEqual(['a', 'b']);
    expect(result.lastError).toMatch(/database or disk is full/);
    expect(result.logged.some((l) => l.level === 'error' && /storing vectors failed/.test(l.message))).toBe(true);
  });

  it('the database going away under the queue (reading the next texts fails): logged, the rest marked failed', () => {
    const result = outcome(runNode(`
      import { HybridMemory, SqliteWasmDriver } from './src/index.ts';
      import { HashEmbedder } from './test/support/hash-embedder.ts';
      ${REPORT}
      const driver = await SqliteWasmDriver.open();
      const hash = new HashEmbedder(8);
      // The first batch closes the database, so the queue's next read of a text fails.
      const embedder = { id: hash.id, dim: hash.dim, embed: async (texts) => { driver.close(); return hash.embed(texts); } };
      const mem = await HybridMemory.open({ storage: driver, embedder, logger, enrichment: { batchSize: 1 } });
      await mem.storeMany([{ id: 'a', text: 'first' }, { id: 'b', text: 'second' }, { id: 'c', text: 'third' }]);
      await report(mem, { storageGone: true });
    `));
    expect(result.rejections).toEqual([]);
    expect(result.failed).toEqual(['a', 'b', 'c']);
    expect(result.logged.filter((l) => l.level === 'error').map((l) => l.error)).toEqual(['SqlDriver.all: DB has been closed.', 'SqlDriver.all: DB has been closed.']);
    expect(result.logged.filter((l) => l.level === 'error').map((l) => l.message)).toEqual(['enrichment: storing vectors failed', 'enrichment: stopped by an unexpected failure; the waiting memories are marked failed (reembed() retries them)']);
  });

  it('the dense index failing to read its saved HNSW bytes in the background: logged, not a rejection', () => {
    const run = runNode(`
      import { HybridMemory, SqliteWasmDriver } from './src/index.ts';
      const driver = await SqliteWasmDriver.open();
      const mem = await HybridMemory.open({ storage: driver, embedder: null, dim: 2, ann: { threshold: 1 }, logger });
      await mem.store({ id: 'a', text: 'first', embedding: new Float32Array([1, 0]) });
      // HNSW is loading in the background; its first step reads the saved bytes from this database.
      driver.close();
      // Until the background step has run and gone somewhere (the logger or an unhandled rejection).
      while (logged.every((l) => l.level !== 'warn') && rejections.length === 0) await settle();
      process.stdout.write(JSON.stringify({ rejections, logged }));
    `);
    expect(run.status).toBe(0);
    const { rejections, logged } = JSON.parse(run.stdout) as { rejections: string[]; logged: Outcome['logged'] };
    expect(rejections).toEqual([]);
    expect(logged.filter((l) => l.level === 'warn').map((l) => l.error)).toEqual(['SqlDriver.all: DB has been closed.']);
  });
});
