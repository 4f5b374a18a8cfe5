/** Background index work (the HNSW build, the read-back of f32 copies, the graph fill) runs in time slices of this many ms, so writes and queries interleave with it. */
export const SLICE_MS = 12;

export function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

/**
 * The next slice of background work, after pending I/O and timers. Node's setTimeout(0) waits at
 * least 1 ms, about a tenth of each 12 ms slice, where setImmediate yields just as well without
 * the wait.
 */
export function nextSlice(fn: () => void): void {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  if (immediate) immediate(fn);
  else setTimeout(fn, 0);
}
