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
 * How long the background work an open starts (the graph's edges, the catalog's id map, the f32
 * copies, hnswlib's load before a saved graph's restore) waits before its first slice. The open's
 * caller usually asks at once, and its request arrives a moment after the open returns (a page's
 * first recall ~2 ms after its connect resolved): a slice that had begun by then held it, for
 * 12–16 ms in half of a 100k store's cold opens in Chromium; hnswlib's load, begun at once, made
 * them ~27 ms longer.
 */
export const OPEN_GRACE_MS = 20;

/** `nextSlice` after `OPEN_GRACE_MS`: the first slice of work an open starts. */
export function afterOpen(fn: () => void): void {
  setTimeout(() => nextSlice(fn), OPEN_GRACE_MS);
}

/**
 * Runs `step(until)` in slices of background work until it returns false (nothing left), then
 * `done`; a slice whose `current()` is false stops it (the work was replaced or the store closed).
 * `first` schedules the first slice (`afterOpen` for work an open starts).
 */
export function inSlices(step: (until: number) => boolean, current: () => boolean, done: () => void, first: (fn: () => void) => void = nextSlice): void {
  const slice = () => {
    if (!current()) return;
    if (step(now() + SLICE_MS)) return nextSlice(slice);
    done();
  };
  first(slice);
}
