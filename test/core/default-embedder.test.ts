/**
 * When the default embedder cannot load: a warning through the default logger naming the fix,
 * `embedder: 'required'` failing coded instead, and `ready()` saying what the dense leg has.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HybridMemory, HybridMindError, type Embedder, type LogLevel } from '../../src/index.js';

let empty: string;
const saved = process.env.HYBRIDMIND_MODEL_DIR;

beforeAll(async () => {
  empty = await mkdtemp(join(tmpdir(), 'hybridmind-nomodel-'));
  process.env.HYBRIDMIND_MODEL_DIR = empty;
});

afterAll(async () => {
  if (saved === undefined) delete process.env.HYBRIDMIND_MODEL_DIR;
  else process.env.HYBRIDMIND_MODEL_DIR = saved;
  await rm(empty, { recursive: true, force: true });
});

describe('without a provisioned model', () => {
  it("open({ embedder: 'required' }) fails with EMBEDDER naming the command", async () => {
    const error = await HybridMemory.open({ embedder: 'required' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HybridMindError);
    expect((error as HybridMindError).code).toBe('EMBEDDER');
    expect((error as HybridMindError).message).toContain('npx hybridmind model fetch');
    expect((error as HybridMindError).message).toContain(empty);
  });

  it('open() warns on the console by default and runs without the dense leg; ready() says so', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const mem = await HybridMemory.open();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/^\[hybridmind\] HybridMemory\.open: the default embedder could not be loaded.*npx hybridmind model fetch/);
      await mem.store({ id: 'a', text: 'ADR-007: SQLite-WASM on OPFS' });
      expect(await mem.ready()).toEqual({ embedderId: null, semantic: 0, failed: [] });
      expect((await mem.recallReport('SQLite')).legsRun).not.toContain('vector');
      await mem.close();
    } finally {
      warn.mockRestore();
    }
  });

  it('a logger of your own receives the warning instead of the console', async () => {
    const seen: Array<[LogLevel, string]> = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const mem = await HybridMemory.open({ logger: (level, message) => seen.push([level, message]) });
      expect(warn).not.toHaveBeenCalled();
      expect(seen.filter(([level]) => level === 'warn')).toHaveLength(1);
      await mem.close();
    } finally {
      warn.mockRestore();
    }
  });
});

describe('ready()', () => {
  it('lists the memories whose embedding failed after every retry', async () => {
    const failing: Embedder = { id: 'failing', dim: 4, embed: async (texts) => {
      if (texts.some((t) => t.includes('poison'))) throw new Error('the embedding server refused');
      return texts.map(() => new Float32Array([1, 0, 0, 0]));
    } };
    const mem = await HybridMemory.open({ embedder: failing, logger: () => {}, enrichment: { maxAttempts: 1, backoffMs: 1, batchSize: 1 } });
    await mem.storeMany([{ id: 'ok', text: 'fine' }, { id: 'bad', text: 'poison pill' }]);
    expect(await mem.ready()).toEqual({ embedderId: 'failing', semantic: 1, failed: ['bad'] });
    await mem.close();
  });
});
