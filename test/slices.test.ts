/**
 * Background slices yield to everything else: Node's setImmediate where there is one, else the
 * browser's task scheduler at background priority (so a message to the worker, e.g. the first
 * recall after an open, runs before queued slices), else a plain timer (Deno, workerd).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { nextSlice } from '../src/util/slices.js';

type Globals = { setImmediate?: unknown; scheduler?: unknown };
const g = globalThis as Globals;
const saved = { setImmediate: g.setImmediate, scheduler: g.scheduler };

afterEach(() => {
  g.setImmediate = saved.setImmediate;
  if (saved.scheduler === undefined) delete g.scheduler;
  else g.scheduler = saved.scheduler;
});

const ran = (): Promise<void> => new Promise((resolve) => nextSlice(resolve));

describe('nextSlice', () => {
  it('uses setImmediate where it exists', async () => {
    const posted: string[] = [];
    g.scheduler = { postTask: (fn: () => void, o: { priority: string }) => (posted.push(o.priority), Promise.resolve().then(fn)) };
    await ran();
    expect(posted).toEqual([]);
  });

  it('posts a background-priority task where there is no setImmediate but a task scheduler', async () => {
    const posted: string[] = [];
    g.setImmediate = undefined;
    g.scheduler = { postTask: (fn: () => void, o: { priority: string }) => (posted.push(o.priority), Promise.resolve().then(fn)) };
    await ran();
    expect(posted).toEqual(['background']);
  });

  it('falls back to a timer where there is neither', async () => {
    g.setImmediate = undefined;
    delete g.scheduler;
    await ran();
  });
});
