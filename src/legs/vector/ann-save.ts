/**
 * Where a finished HNSW graph goes: into the store at once, or, when the store defers its writes
 * (`SavedBytes.deferred`: an in-memory database, which only an export outlives), held back as its
 * record until `flush`. Held back, it costs its numbers and digest entries (~1.2 MB at 100k
 * vectors): its graph bytes are the ones the walked graph reads its links from. Written into an
 * in-memory database at once, it was ~16 MB of its pages at 100k, read by nothing but an export
 * and hnswlib bringing the graph up to date, which takes the record held back instead.
 */
import { messageOf } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { SavedBytes } from '../types.js';
import { decodeAnn, encodeAnn, type AnnRecord } from './ann-format.js';

type FullRecord = AnnRecord & { entries: Uint32Array };

export class AnnSave {
  readonly #store: SavedBytes | null;
  readonly #logger: Logger;
  #held: FullRecord | null = null;

  constructor(store: SavedBytes | null, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /**
   * Saves the graph `record` describes as it is now: at once, or at the next `flush`. A newer
   * graph replaces one held back.
   */
  write(record: () => FullRecord): void {
    if (this.#store === null) return;
    if (!this.#store.deferred) {
      this.#save(record);
      return;
    }
    try {
      this.#held = record();
    } catch (error) {
      this.#failed(error);
    }
  }

  /**
   * The last graph saved: the one held back, or the store's, or null when there is none or it
   * does not read (a graph is then built anew).
   */
  read(): AnnRecord | null {
    if (this.#held !== null) return this.#held;
    const bytes = this.#store?.read();
    if (!bytes) return null;
    try {
      return decodeAnn(bytes);
    } catch (error) {
      this.#logger('warn', `ann: saved HNSW index unusable, rebuilding: ${messageOf(error)}`);
      return null;
    }
  }

  /** Writes the graph held back, if any. */
  flush(): void {
    const held = this.#held;
    if (held === null) return;
    this.#held = null;
    this.#save(() => held);
  }

  /** Forgets the graph held back: the index no longer serves it. */
  drop(): void {
    this.#held = null;
  }

  /** A failed save costs the next open a rebuild, not this one its graph. */
  #save(record: () => FullRecord): void {
    try {
      this.#store!.write(encodeAnn(record()));
    } catch (error) {
      this.#failed(error);
    }
  }

  #failed(error: unknown): void {
    this.#logger('warn', `ann: saving the HNSW index failed: ${messageOf(error)}`);
  }
}
