/**
 * Background slices yield to everything else: Node's setImmediate where there is one, else the
 * browser's task scheduler at background priority (so a message to the worker, e.g. the first
 * recall after an open, runs before queued slices), else a plain timer (Deno, workerd).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { afterOpen, inSlices, nextSlice, OPEN_GRACE_MS } from '../src/util/slices.js';
import { until as waitFor } from './support/until.js';

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

describe('inSlices', () => {
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

  it('steps, one slice each, until nothing is left, then calls done once', async () => {
    let left = 3;
    const steps: number[] = [];
    let done = 0;
    inSlices((until) => (steps.push(until), --left > 0), () => true, () => done++);
    expect(steps).toHaveLength(0);
    await waitFor(() => done > 0);
    await settle();
    expect(steps).toHaveLength(3);
    expect(done).toBe(1);
  });

  it('stops without done once the work is no longer current', async () => {
    let current = true;
    let steps = 0;
    let done = 0;
    inSlices(() => {
      steps++;
      current = steps < 2;
      return true;
    }, () => current, () => done++);
    await waitFor(() => steps >= 2);
    // Then turns enough for a third slice, had the work gone on.
    await settle();
    expect(steps).toBe(2);
    expect(done).toBe(0);
  });
});

describe('afterOpen', () => {
  it('leaves the first slice of work an open starts until the grace has passed, so what the caller asks at once goes first', async () => {
    const order: string[] = [];
    afterOpen(() => order.push('background'));
    inSlices(() => (order.push('sliced'), false), () => true, () => {}, afterOpen);
    // A request arriving a moment after the open returned (here: the next turns of the event loop).
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 1));
    order.push('request');
    await new Promise((resolve) => setTimeout(resolve, OPEN_GRACE_MS + 5));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['request', 'background', 'sliced']);
  });
});
