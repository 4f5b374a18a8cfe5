import type { HybridMemory } from '../memory/hybrid-memory.js';
import { saveSnapshotFile } from '../snapshot/node-files.js';

/**
 * Saves a store to its `.mind.zip` after writes, one save at a time. A write that arrives while a
 * save runs waits for the next save (which will include it) instead of starting its own, so a
 * burst of N writes costs at most two saves, and a caller that awaits `save()` knows its write is
 * on disk.
 */
export class SnapshotSaver {
  readonly #mem: HybridMemory;
  readonly #path: string;
  readonly #write: (mem: HybridMemory, path: string) => Promise<void>;
  #running: Promise<void> | null = null;
  #queued: Promise<void> | null = null;
  #saves = 0;

  constructor(mem: HybridMemory, path: string, write: (mem: HybridMemory, path: string) => Promise<void> = saveSnapshotFile) {
    this.#mem = mem;
    this.#path = path;
    this.#write = write;
  }

  /** How many saves completed; tests use it to see the coalescing. */
  get saves(): number {
    return this.#saves;
  }

  /** Resolves once everything written before the call is in the file; rejects if that save failed. */
  save(): Promise<void> {
    if (this.#queued) return this.#queued;
    if (!this.#running) return this.#start();
    // The running save may have exported the store before this write: one more covers it.
    this.#queued = this.#running.catch(() => undefined).then(() => {
      this.#queued = null;
      return this.#start();
    });
    return this.#queued;
  }

  /** Waits for saves in flight; never rejects (their callers were told). */
  async idle(): Promise<void> {
    while (this.#running || this.#queued) await (this.#queued ?? this.#running)!.catch(() => undefined);
  }

  #start(): Promise<void> {
    const run = this.#write(this.#mem, this.#path).then(() => {
      this.#saves++;
    });
    this.#running = run;
    const clear = () => {
      if (this.#running === run) this.#running = null;
    };
    run.then(clear, clear);
    return run;
  }
}
