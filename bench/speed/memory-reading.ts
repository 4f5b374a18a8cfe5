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
 * indexes 5 s after it), so that work is counted, not skipped; and long enough for each process to
 * give back what its build only borrowed — V8's free pages and young generation, freed C heap the
 * allocator had kept (at 100k on the file store, 70–130 MiB that an explicit `PRAGMA shrink_memory`
 * released at once) — without any call from the user, as a process serving queries after an ingest
 * does. V8 gives its part back in steps some seconds apart: the baseline process at 10k read
 * 173–179 MiB right after its build, then, in six runs, 142–146 MiB until 14 s (once 91 MiB from
 * 8 s) and 88–92 MiB from 16 s to 24 s; Orama and a file store read the same from 16 s on as at
 * 24 s. An 8 s wait left the readings split between the two levels. Right after the build the
 * borrowed memory moved one system's reading by ±40 MiB between runs (the file store at 100k:
 * 450–516 MiB); both readings are reported.
 */
export const SETTLE_MS = Math.max(DEFAULT_SAVE_AFTER_MS + 3_000, 20_000);

/** The process's memory after two full GCs. */
export function reading(gc: () => void): MemoryReading {
  gc();
  gc();
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, external, arrayBuffers };
}
