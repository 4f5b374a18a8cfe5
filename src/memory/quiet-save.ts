/**
 * Saving the derived indexes (lexical, entity, vector codes) once writes have gone quiet. They
 * used to be saved only by `close()` and exports, and a store that is never closed (a Durable
 * Object evicted, a tab closed, a process killed) rebuilt them at every open: 10 s at 100k
 * memories instead of loading them in about one.
 */
import { checkIntInRange } from '../util/int-checks.js';
import type { SqlDriver } from '../storage/driver.js';
import { backgroundTimeout } from '../util/timers.js';

/** Quiet time after the last write before a persistent store saves its derived indexes (and one that does not save compacts them). */
export const DEFAULT_SAVE_AFTER_MS = 5_000;

/** Checks `open()`'s `saveIndexesAfterMs`: a delay in ms (at most what a timer takes), `false`, or absent. */
export function checkSaveDelay(method: string, option: unknown): void {
  if (option !== undefined && option !== false) checkIntInRange(method, 'options.saveIndexesAfterMs', option, 0, 2 ** 31 - 1);
}

/**
 * The delay a checked `saveIndexesAfterMs` asks for, or null for none. Left out, only a database
 * that outlives the process (`keepsData`: see `inMemory`) saves in the background: an in-memory
 * one is gone with it, so saving would be work nobody reads (its export saves them anyway).
 */
export function resolveSaveDelay(option: number | false | undefined, keepsData: boolean): number | null {
  if (option !== undefined) return option === false ? null : option;
  return keepsData ? DEFAULT_SAVE_AFTER_MS : null;
}

/** Whether `main` has no file. A driver that refuses the pragma (Durable Object SQLite may) keeps its data. */
export function inMemory(db: SqlDriver): boolean {
  try {
    const main = db.all<{ name: string; file: string | null }>('PRAGMA database_list').find((row) => row.name === 'main');
    return main !== undefined && (main.file ?? '') === '';
  } catch {
    return false;
  }
}

/** Runs `run` once `delayMs` passed without another `touch`. */
export class QuietTimer {
  readonly #delayMs: number;
  readonly #run: () => void;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(delayMs: number, run: () => void) {
    this.#delayMs = delayMs;
    this.#run = run;
  }

  touch(): void {
    this.stop();
    // A pending run must not keep a Node process alive; `close()` saves what a save would have.
    this.#timer = backgroundTimeout(() => {
      this.#timer = null;
      this.#run();
    }, this.#delayMs);
  }

  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
