/** How the speed benchmark reads a system process's memory (`child.ts`), and when. */
import { DEFAULT_SAVE_AFTER_MS } from '../../src/memory/quiet-save.js';

export interface MemoryReading {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/**
 * Idle time between the build and the settled memory reading, the same for every system and the
 * baseline. Longer than any system's own work after its last write (HybridMind saves its derived
 * indexes 5 s after it), so that work is counted, not skipped; and what a build only borrowed —
 * V8's young generation grown to its maximum, freed C heap the allocator had not given back
 * (at 100k on the file store, 70–130 MiB that an explicit `PRAGMA shrink_memory` released at
 * once) — goes back in it without any call from the user, as it does in a process that serves
 * queries after an ingest. Right after the build, that borrowed memory moved one system's reading
 * by ±40 MiB between runs (the file store at 100k: 450–516 MiB); both readings are reported.
 */
export const SETTLE_MS = DEFAULT_SAVE_AFTER_MS + 3_000;

/** The process's memory after two full GCs. */
export function reading(gc: () => void): MemoryReading {
  gc();
  gc();
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, external, arrayBuffers };
}
