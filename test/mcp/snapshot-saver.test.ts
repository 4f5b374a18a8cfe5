import { describe, expect, it } from 'vitest';
import type { HybridMemory } from '../../src/index.js';
import { SnapshotSaver } from '../../src/mcp/snapshot-saver.js';
import { parseCli } from '../../src/mcp/cli.js';

const mem = {} as HybridMemory;

/** A save whose completion the test controls, recording how many writes each save saw. */
function controlledWrites() {
  const pending: Array<() => void> = [];
  let writes = 0;
  const seen: number[] = [];
  const write = () => {
    seen.push(writes);
    return new Promise<void>((resolve) => pending.push(resolve));
  };
  return { write, pending, seen, wrote: () => writes++ };
}

describe('SnapshotSaver', () => {
  it('coalesces a burst of writes into the running save plus one more', async () => {
    const c = controlledWrites();
    const saver = new SnapshotSaver(mem, 'x.mind.zip', c.write);
    c.wrote();
    const first = saver.save();
    c.wrote();
    const second = saver.save();
    c.wrote();
    const third = saver.save();
    expect(second).toBe(third);
    expect(c.pending).toHaveLength(1);
    c.pending[0]!();
    await first;
    await new Promise((r) => setTimeout(r, 0));
    expect(c.pending).toHaveLength(2);
    c.pending[1]!();
    await third;
    expect(c.seen).toEqual([1, 3]);
    expect(saver.saves).toBe(2);
    await saver.idle();
  });

  it('rejects the callers of a failed save and recovers with the next', async () => {
    let fail = true;
    const saver = new SnapshotSaver(mem, 'x.mind.zip', async () => {
      if (fail) throw new Error('disk full');
    });
    await expect(saver.save()).rejects.toThrow('disk full');
    fail = false;
    await expect(saver.save()).resolves.toBeUndefined();
    expect(saver.saves).toBe(1);
  });
});

describe('parseCli', () => {
  it('defaults to every tool, the default embedder and no file', () => {
    expect(parseCli([], '/w')).toEqual({ file: null, embedder: 'default', dtype: undefined, reembed: false, tools: expect.any(Array), readOnly: false, verbose: false });
  });

  it('resolves paths against the working directory and reads the flags', () => {
    expect(parseCli(['--file', 'a.mind.zip', '--model', 'models', '--dtype', 'q8', '--tools', 'memory_recall, memory_store'], '/w')).toMatchObject({
      file: '/w/a.mind.zip',
      embedder: { dir: '/w/models' },
      dtype: 'q8',
      tools: ['memory_store', 'memory_recall'],
    });
    expect(parseCli(['--read-only'], '/w')).toMatchObject({ readOnly: true, tools: ['memory_recall', 'memory_context'] });
    expect(parseCli(['--no-embedder'], '/w')).toMatchObject({ embedder: 'none' });
    expect(parseCli(['--offline'], '/w')).toMatchObject({ embedder: 'offline' });
    expect(parseCli(['--help'])).toBe('help');
  });

  it.each([
    [['--colour', 'red']],
    [['--no-embedder', '--model', 'm']],
    [['--dtype', 'fp16']],
    [['--tools', 'memory_drop']],
    [['--read-only', '--tools', 'memory_store']],
    [['stray']],
  ])('refuses %j with INVALID_ARGUMENT', (argv) => {
    expect(() => parseCli(argv, '/w')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
