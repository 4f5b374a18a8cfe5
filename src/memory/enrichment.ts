import type { Embedder } from '../embedder/types.js';
import { HybridMindError, messageOf } from '../errors.js';
import type { Logger } from '../logger.js';

export interface EnrichmentOptions {
  /** Texts per embedder call. Default 32. */
  batchSize?: number | undefined;
  /** Attempts per batch before its memories are marked failed. Default 5. */
  maxAttempts?: number | undefined;
  /** First retry delay in ms, doubled per attempt. Default 250. */
  backoffMs?: number | undefined;
  /** Called after each batch with how far bulk enrichment has come. */
  onProgress?: ((progress: EnrichmentProgress) => void) | undefined;
}

export interface EnrichmentProgress {
  done: number;
  pending: number;
  failed: number;
}

export interface EnrichmentStatus extends EnrichmentProgress {
  running: boolean;
  lastError: string | null;
}

/** What the queue needs from the store: texts to embed and a place to put the vectors. */
export interface EnrichmentSink {
  /** The current text of `no`, or undefined when it is gone. */
  textOf(no: number): string | undefined;
  /** Commits vectors for memories whose text is still the one embedded; returns how many. */
  commit(batch: Array<{ no: number; text: string; vector: Float32Array }>): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Computes embeddings in the background, in batches, after memories are committed. A failing
 * embedder is retried with exponential backoff and, after `maxAttempts`, the batch is marked
 * failed (never given made-up vectors); `HybridMemory.reembed()` queues everything again.
 */
export class EnrichmentQueue {
  readonly #embedder: Embedder;
  readonly #sink: EnrichmentSink;
  readonly #logger: Logger;
  readonly #batchSize: number;
  readonly #maxAttempts: number;
  readonly #backoffMs: number;
  readonly #listeners = new Set<(p: EnrichmentProgress) => void>();
  /**
   * Memories waiting for a vector, each with the generation of its latest enqueue: a memory
   * enqueued again while its batch is at the embedder (its text was updated) keeps waiting,
   * and the vector of the old text is not stored.
   */
  readonly #pending = new Map<number, number>();
  #generation = 0;
  readonly #failed = new Set<number>();
  #done = 0;
  #running: Promise<void> | null = null;
  #stopped = false;
  #lastError: string | null = null;
  #waiters: Array<() => void> = [];

  constructor(embedder: Embedder, sink: EnrichmentSink, logger: Logger, options: EnrichmentOptions = {}) {
    this.#embedder = embedder;
    this.#sink = sink;
    this.#logger = logger;
    this.#batchSize = options.batchSize ?? 32;
    this.#maxAttempts = options.maxAttempts ?? 5;
    this.#backoffMs = options.backoffMs ?? 250;
    if (options.onProgress) this.#listeners.add(options.onProgress);
  }

  status(): EnrichmentStatus {
    return { done: this.#done, pending: this.#pending.size, failed: this.#failed.size, running: this.#running !== null, lastError: this.#lastError };
  }

  /** The memories whose batch failed after every attempt, until they are enqueued again. */
  failedNumbers(): number[] {
    return [...this.#failed];
  }

  enqueue(nos: Iterable<number>): void {
    for (const no of nos) {
      this.#failed.delete(no);
      this.#pending.set(no, ++this.#generation);
    }
    this.#kick();
  }

  /** Drops memories that were forgotten or got a vector another way. */
  cancel(no: number): void {
    this.#pending.delete(no);
    this.#failed.delete(no);
  }

  /** Adds a progress listener for one bulk job; returns its removal. */
  listen(listener: (p: EnrichmentProgress) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves when nothing is pending (failed memories do not hold it up). */
  idle(): Promise<void> {
    if (this.#pending.size === 0 && this.#running === null) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }

  #kick(): void {
    if (this.#running || this.#stopped || this.#pending.size === 0) return;
    this.#running = this.#drain().catch((error: unknown) => this.#abandon(error)).finally(() => {
      this.#running = null;
      if (this.#pending.size > 0 && !this.#stopped) this.#kick();
      else this.#settle();
    });
  }

  /**
   * Something outside the embedder and the commit failed (reading the next texts from storage):
   * nothing awaits this loop, so the failure goes to the logger and the status instead of
   * becoming an unhandled rejection, and the waiting memories are marked failed rather than
   * retried in a loop against storage that keeps failing.
   */
  #abandon(error: unknown): void {
    this.#lastError = messageOf(error);
    for (const no of this.#pending.keys()) this.#failed.add(no);
    this.#pending.clear();
    this.#logger('error', 'enrichment: stopped by an unexpected failure; the waiting memories are marked failed (reembed() retries them)', { error: this.#lastError });
  }

  #settle(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  async #drain(): Promise<void> {
    while (!this.#stopped && this.#pending.size > 0) {
      const batch: Array<{ no: number; text: string; generation: number }> = [];
      for (const [no, generation] of this.#pending) {
        const text = this.#sink.textOf(no);
        if (text === undefined) this.#pending.delete(no);
        else batch.push({ no, text, generation });
        if (batch.length >= this.#batchSize) break;
      }
      if (batch.length === 0) continue;
      const vectors = await this.#embedWithRetry(batch.map((b) => b.text));
      if (this.#stopped) return;
      // Cancelled or enqueued again while at the embedder: this result is not theirs to settle.
      const current = batch.flatMap((b, i) => (this.#pending.get(b.no) === b.generation ? [{ no: b.no, text: b.text, at: i }] : []));
      const fail = () => {
        for (const b of current) {
          this.#pending.delete(b.no);
          this.#failed.add(b.no);
        }
      };
      if (!vectors) fail();
      else {
        try {
          this.#sink.commit(current.map((b) => ({ no: b.no, text: b.text, vector: vectors[b.at]! })));
          for (const b of current) this.#pending.delete(b.no);
          this.#done += current.length;
        } catch (error) {
          this.#lastError = messageOf(error);
          this.#logger('error', 'enrichment: storing vectors failed', { error: this.#lastError });
          fail();
        }
      }
      this.#report({ done: this.#done, pending: this.#pending.size, failed: this.#failed.size });
    }
  }

  /** A listener is the app's code: when it throws, the app hears of it and enrichment goes on. */
  #report(progress: EnrichmentProgress): void {
    for (const listener of this.#listeners) {
      try {
        listener(progress);
      } catch (error) {
        this.#logger('error', 'enrichment: an onProgress callback threw; enrichment goes on', { error: messageOf(error) });
      }
    }
  }

  async #embedWithRetry(texts: string[]): Promise<Float32Array[] | null> {
    for (let attempt = 1; attempt <= this.#maxAttempts && !this.#stopped; attempt++) {
      try {
        const vectors = await this.#embedder.embed(texts);
        if (!Array.isArray(vectors) || vectors.length !== texts.length) {
          throw new HybridMindError('EMBEDDER', 'enrichment', `the embedder returned ${Array.isArray(vectors) ? vectors.length : typeof vectors} vectors for ${texts.length} texts`);
        }
        return vectors;
      } catch (error) {
        this.#lastError = messageOf(error);
        this.#logger('warn', 'enrichment: embedder failed', { attempt, error: this.#lastError });
        if (attempt < this.#maxAttempts) await sleep(this.#backoffMs * 2 ** (attempt - 1));
      }
    }
    return null;
  }
}
