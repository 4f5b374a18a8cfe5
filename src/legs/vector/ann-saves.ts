import { messageOf } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { SavedBytes } from '../types.js';
import type { PartedBytes } from '../../util/parted-bytes.js';
import { now } from '../../util/slices.js';

/**
 * Unsaved graph changes, as a share of the vectors held, from which a quiet period saves the
 * graph. A save rewrites all of it and holds the thread meanwhile (about a second at 100k vectors), after
 * every burst of writes; a graph saved without the last changes is brought up to date at the next
 * open instead (`planRepair`), in the background, for about a millisecond per change. Export and
 * close save whatever is unsaved.
 */
const QUIET_SAVE_SHARE = 0.01;

interface Graph {
  /** The serving graph's bytes for the store, or null when there is no graph. */
  encode(): PartedBytes | null;
  /** Whether the graph is ready (one being built or repaired is never saved). */
  ready(): boolean;
  /** Vectors the dense leg holds, which `QUIET_SAVE_SHARE` is a share of. */
  size(): number;
}

/**
 * When the dense leg's HNSW graph is written to the store: right after a build, `delayMs` after
 * the writes to a serving graph go quiet once enough of it is unsaved, and whenever asked (an export
 * or a close). Counts what the saved graph lacks; a store that writes only when asked
 * (`background: false`) is never saved on a timer.
 */
export class AnnSaves {
  readonly #store: SavedBytes | null;
  readonly #delayMs: number;
  readonly #logger: Logger;
  readonly #graph: Graph;
  #dirty = false;
  /** Vectors added, replaced or removed in the graph since it was last saved (or restored exactly). */
  #unsaved = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #saveMs: number | null = null;

  constructor(store: SavedBytes | null, delayMs: number, logger: Logger, graph: Graph) {
    this.#store = store;
    this.#delayMs = delayMs;
    this.#logger = logger;
    this.#graph = graph;
  }

  /** How long the last save took. */
  get saveMs(): number | null {
    return this.#saveMs;
  }

  /** A graph starts over, or was restored lacking `unsaved` changes: nothing is pending. */
  reset(unsaved = 0): void {
    this.#cancel();
    this.#dirty = false;
    this.#unsaved = unsaved;
  }

  /** `count` vectors went into a graph still being filled. */
  filled(count: number): void {
    this.#unsaved += count;
  }

  /** The serving graph changed by one vector: saved once writes go quiet. */
  changed(): void {
    this.#dirty = true;
    this.#unsaved++;
    this.#schedule();
  }

  /** A fill finished: a fresh build is saved now (where the store saves in the background), a repair once writes go quiet. */
  finished(fresh: boolean): void {
    this.#dirty = true;
    if (!fresh) this.#schedule();
    else if (this.#store?.background !== false) this.#save();
  }

  /** Saves unsaved changes now; `quiet` (after the store's writes went quiet) only once they are many. */
  flush(quiet = false): void {
    this.#cancel();
    if (this.#dirty && this.#graph.ready() && (!quiet || this.#worthSaving())) this.#save();
  }

  #worthSaving(): boolean {
    return this.#unsaved >= QUIET_SAVE_SHARE * this.#graph.size();
  }

  #cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #schedule(): void {
    if (!this.#store || this.#store.background === false) return;
    this.#cancel();
    this.#timer = later(() => {
      this.#timer = null;
      if (this.#dirty && this.#graph.ready() && this.#worthSaving()) this.#save();
    }, this.#delayMs);
  }

  #save(): void {
    const store = this.#store;
    if (!store) return;
    const started = now();
    try {
      const bytes = this.#graph.encode();
      if (bytes === null) return;
      store.write(bytes);
      this.#dirty = false;
      this.#unsaved = 0;
      this.#saveMs = now() - started;
    } catch (error) {
      // The exact scan and a rebuild at the next start cover for a failed save; nothing is lost.
      this.#logger('warn', `ann: saving the HNSW index failed: ${messageOf(error)}`);
    }
  }
}

/** A save timer must not keep a Node process alive (the build's slices do, so awaiting it works). */
function later(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
  const timer = setTimeout(fn, ms);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
