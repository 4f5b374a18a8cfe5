/** Background index work (the HNSW build, the read-back of f32 copies, the graph fill) runs in time slices of this many ms, so writes and queries interleave with it. */
export const SLICE_MS = 12;

/**
 * In a loop that does a part of its work per call: whether the part is spent before its `k`-th
 * item. The clock is read every `every` items (an item costs less than reading it), so each part
 * does at least `every − 1`.
 */
export function partSpent(k: number, until: number, every = 1024): boolean {
  return k % every === every - 1 && now() >= until;
}

export function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

/**
 * The next slice of background work, after pending I/O, timers and messages. Node's setTimeout(0)
 * waits at least 1 ms, about a tenth of each 12 ms slice, where setImmediate yields just as well
 * without the wait. In a browser worker, slices posted as background-priority tasks let a message
 * that arrives meanwhile run first: with timers, the first recall after an open at 10k waited
 * ~60 ms behind the open's background fills.
 */
export function nextSlice(fn: () => void): void {
  const g = globalThis as { setImmediate?: (fn: () => void) => unknown; scheduler?: { postTask?: (fn: () => void, o: { priority: string }) => Promise<unknown> } };
  if (g.setImmediate) g.setImmediate(fn);
  else if (g.scheduler?.postTask) void g.scheduler.postTask(fn, { priority: 'background' });
  else setTimeout(fn, 0);
}

/**
 * Runs `step(until)` in slices of background work until it returns false (nothing left), then
 * `done`; a slice whose `current()` is false stops it (the work was replaced or the store closed).
 */
export function inSlices(step: (until: number) => boolean, current: () => boolean, done: () => void): void {
  const slice = () => {
    if (!current()) return;
    if (step(now() + SLICE_MS)) return nextSlice(slice);
    done();
  };
  nextSlice(slice);
}
