import { messageOf } from '../../errors.js';
import { silentLogger, type Logger } from '../../logger.js';
import type { Accept, AnnOptions, SavedBytes, Scored, VectorIndex, VectorReader } from '../types.js';
import { decodeAnn, encodeAnn, VectorDigest } from './ann-format.js';
import { AnnSaves } from './ann-saves.js';
import { planRestore, REBUILD_DELETED_RATIO, type Repair } from './ann-repair.js';
import type { FlatVectorIndex } from './flat-index.js';
import { checkPacked } from './packed.js';
import { readQuantized, type QuantizedRun } from './quantized-snapshot.js';
import { HNSW_DEFAULTS, HnswVectorIndex, maxHnswVectors, type HnswParams } from './hnsw-index.js';
import { loadHnswlib, type Hnswlib } from './hnswlib-loader.js';
import { readBackLater } from './read-back.js';
import { afterOpen, nextSlice, now, SLICE_MS } from '../../util/slices.js';
import type { PartedBytes } from '../../util/parted-bytes.js';

/**
 * When HNSW takes over (bench/ann/crossover.ts, all-MiniLM-L6-v2 vectors, Node 20, 2 cores; see
 * bench/ann/RESULTS.md). HNSW at efSearch 64 overtakes the exact WASM-SIMD scan near 5k vectors
 * (0.26 vs 0.34 ms), but below 20k the scan costs at most ~1.4 ms, a tenth of embedding the query,
 * while HNSW costs ~0.4 ms of build per vector and a second copy of every vector. From 20k on the
 * scan grows linearly (2.75 ms at 40k) and HNSW stays near 0.3 ms with recall@10 ≥ 0.99.
 */
export const ANN_THRESHOLD = 20_000;

export type AnnState = 'off' | 'loading' | 'building' | 'ready' | 'failed';

export interface AnnStatus {
  state: AnnState;
  /** Vectors in the HNSW graph (while building: so far). */
  indexed: number;
  vectors: number;
  threshold: number;
  /**
   * 'bytes': restored from the saved index; 'repair': restored, then brought up to date with the
   * vectors changed since it was saved (`buildMs` is that part); 'build': built here.
   */
  source: 'bytes' | 'repair' | 'build' | null;
  loadMs: number | null;
  buildMs: number | null;
  saveMs: number | null;
  error: string | null;
}

interface Dependencies {
  store?: SavedBytes | null;
  /**
   * The store's vectors: once HNSW serves, the flat scan (then only a fallback) drops its f32
   * copies and re-scores from here (`FlatVectorIndex.release`). Without it the copies stay.
   */
  read?: VectorReader;
  logger?: Logger;
  loadLibrary?: () => Promise<Hnswlib>;
  /** Bytes of f32 copies the flat scan keeps before it re-scores from `read` instead. Default {@link COPIES_MAX_BYTES}. */
  copiesMaxBytes?: number;
}

/**
 * Past this many bytes of f32 copies (21,845 vectors at 384-d) the flat scan keeps only its int8
 * codes and reads the ~100–150 candidates a recall re-scores from the store. At 100k vectors that
 * gives back 190 MiB of WebAssembly memory (the copies at doubled capacity) for ~0.3 ms a query;
 * below it the copies are small and the read would be a large share of a sub-millisecond query.
 */
const COPIES_MAX_BYTES = 32 * 2 ** 20;

const BATCH = 32;

/**
 * The dense leg as the engine sees it: the exact flat scan always (the source of vectors, and the
 * answer whenever HNSW is missing, stale or still building), plus an HNSW graph once the store
 * reaches `threshold`. The graph is built in time slices in the background, kept in step with
 * every add and remove, saved with a digest of the vectors it holds, and restored from those
 * bytes at start when the digest still matches. Once the graph serves, or the store outgrows
 * `COPIES_MAX_BYTES`, the flat scan keeps only its int8 codes and re-scores from the store (given
 * `read`): SQLite (and HNSW) already hold every vector, and another copy was 146 MiB at 100k.
 */
export class AdaptiveVectorIndex implements VectorIndex {
  readonly dim: number;
  readonly #flat: FlatVectorIndex;
  readonly #threshold: number;
  readonly #params: HnswParams;
  readonly #store: SavedBytes | null;
  readonly #saves: AnnSaves;
  readonly #logger: Logger;
  readonly #loadLibrary: () => Promise<Hnswlib>;
  readonly #read: VectorReader | null;
  /** Vectors the flat scan keeps f32 copies of at most (see `COPIES_MAX_BYTES`). */
  readonly #copiesMax: number;
  /** What the HNSW graph is checked against; null when no graph is ever built (an infinite threshold), so nothing hashes every vector for it. */
  readonly #digest: VectorDigest | null;
  #hnsw: HnswVectorIndex | null = null;
  #pending = new Set<number>();
  #state: AnnState = 'off';
  #epoch = 0;
  #waiters: Array<() => void> = [];
  /** The epoch of the read-back of the flat scan's f32 copies under way (`#resideLater`), if any. */
  #readBackEpoch: number | null = null;
  #status: Omit<AnnStatus, 'state' | 'indexed' | 'vectors' | 'threshold' | 'saveMs'> = { source: null, loadMs: null, buildMs: null, error: null };

  constructor(flat: FlatVectorIndex, options: AnnOptions = {}, deps: Dependencies = {}) {
    this.#flat = flat;
    this.dim = flat.dim;
    this.#threshold = options.threshold ?? ANN_THRESHOLD;
    this.#digest = Number.isFinite(this.#threshold) ? new VectorDigest() : null;
    this.#params = {
      ...HNSW_DEFAULTS,
      ...(options.m !== undefined ? { m: options.m } : {}),
      ...(options.efConstruction !== undefined ? { efConstruction: options.efConstruction } : {}),
      ...(options.efSearch !== undefined ? { efSearch: options.efSearch } : {}),
    };
    this.#store = deps.store ?? null;
    this.#logger = deps.logger ?? silentLogger;
    this.#saves = new AnnSaves(this.#store, options.saveDelayMs ?? 2000, this.#logger, {
      encode: () => this.#encode(),
      ready: () => this.#state === 'ready',
      size: () => this.#flat.size,
    });
    this.#loadLibrary = deps.loadLibrary ?? loadHnswlib;
    this.#read = deps.read ?? null;
    this.#copiesMax = Math.floor((deps.copiesMaxBytes ?? COPIES_MAX_BYTES) / (this.dim * 4));
  }

  get kind(): string {
    return this.#serving() ? this.#hnsw!.kind : this.#flat.kind;
  }

  /** Exact while the scan answers (HNSW not built, not ready, or below the threshold). */
  get exact(): boolean {
    return !this.#serving();
  }

  get size(): number {
    return this.#flat.size;
  }

  status(): AnnStatus {
    return { state: this.#state, indexed: this.#hnsw?.size ?? 0, vectors: this.#flat.size, threshold: this.#threshold, ...this.#status, saveMs: this.#saves.saveMs };
  }

  add(no: number, vector: Float32Array): void {
    this.#flat.add(no, vector);
    this.#digest?.set(no, vector);
    if (this.#hnsw && (this.#state === 'ready' || this.#hnsw.has(no))) this.#guard(() => this.#hnsw!.add(no, vector));
    else if (this.#state === 'building') this.#pending.add(no);
    this.#changed();
  }

  /**
   * {@link VectorIndex.addPacked}: in bulk while no HNSW graph needs each vector (an open), else
   * one `add` each. 'loading' counts as none: an open passing the threshold starts loading the
   * library, and the restore or build that follows reads what is held by then; taking that for a
   * graph sent the rest of a 100k open through `add` one vector at a time, quantizing each again.
   */
  addPacked(nos: ArrayLike<number>, vectors: Float32Array): void {
    const dim = this.dim;
    checkPacked('AdaptiveVectorIndex.addPacked', nos, vectors, dim);
    const fresh = (this.#state === 'off' || this.#state === 'loading') && this.#hnsw === null && Array.prototype.every.call(nos, (no: number) => !this.#flat.has(no));
    if (!fresh) {
      for (let i = 0; i < nos.length; i++) this.add(nos[i]!, vectors.subarray(i * dim, (i + 1) * dim));
      return;
    }
    this.#flat.addPacked(nos, vectors);
    const digest = this.#digest;
    if (digest) for (let i = 0; i < nos.length; i++) digest.set(nos[i]!, vectors.subarray(i * dim, (i + 1) * dim));
    this.#changed();
  }

  /** The flat index's codes, with each vector's digest entry where HNSW may be built, so an open can adopt them (`adoptQuantized`). */
  saveQuantized(): Uint8Array | null {
    const digest = this.#digest;
    return this.#flat.saveQuantized(digest && ((nos) => digest.entries(nos)));
  }

  /**
   * {@link VectorIndex.adoptQuantized}: the flat scan takes the codes released onto the store's
   * vectors and the digest from the saved entries, so an open reads no vector. Where HNSW will
   * answer, it stays released (HNSW holds the vectors) and the saved graph is checked against
   * that digest; below the threshold, while they fit `COPIES_MAX_BYTES`, the f32 copies are read
   * back after the open, in slices queued behind what the open's caller does next (the first
   * query, typically), since a released scan re-scores from the store at every query. Bytes
   * without digest entries are declined unless this index never builds a graph.
   */
  adoptQuantized(bytes: Uint8Array | PartedBytes): boolean {
    const read = this.#read;
    if (read === null || this.#flat.size !== 0 || this.#state !== 'off') return false;
    const method = 'AdaptiveVectorIndex.adoptQuantized';
    let run: QuantizedRun | null;
    try {
      run = readQuantized(method, bytes, this.dim, (count, withDigests) => (this.#digest !== null && !withDigests ? null : this.#flat.codesFor(count, read)));
      if (run === null) return false;
      this.#flat.adoptRun(run, read);
    } catch (error) {
      // Back to an empty index that keeps f32 copies, for the vectors to be read and added instead.
      this.#flat.clear();
      throw error;
    }
    this.#digest?.adopt(run.nos, run.digests!);
    // An open adopts codes: hnswlib's load waits, like the open's other background work, for the
    // caller's first request, which the exact scan answers.
    this.#changed(afterOpen);
    if (this.#state === 'off') this.#resideLater();
    return true;
  }

  /** Reads the flat scan's f32 copies back after an open, until HNSW starts or writes take the scan past `#copiesMax`. */
  #resideLater(): void {
    const epoch = this.#epoch;
    this.#readBackEpoch = epoch;
    readBackLater(this.#flat, this.#read!, this.#logger, {
      wanted: () => epoch === this.#epoch && this.#state === 'off' && this.#flat.size <= this.#copiesMax,
      owns: () => this.#readBackEpoch === epoch,
      finish: () => {
        this.#readBackEpoch = null;
        if (this.#state !== 'loading' && this.#state !== 'building') this.#settle();
      },
    });
  }

  useQuantized(bytes: Uint8Array | null): void {
    this.#flat.useQuantized(bytes);
  }

  remove(no: number): boolean {
    if (!this.#flat.remove(no)) return false;
    this.#digest?.delete(no);
    this.#pending.delete(no);
    if (this.#hnsw?.has(no)) this.#guard(() => this.#hnsw!.remove(no));
    if (this.#state === 'ready' && this.#hnsw && this.#hnsw.deletedRatio > REBUILD_DELETED_RATIO) this.#restart('many removals');
    this.#changed();
    return true;
  }

  has(no: number): boolean {
    return this.#flat.has(no);
  }

  search(query: Float32Array, k: number, accept?: Accept): Scored[] {
    if (this.#serving()) {
      const hits = this.#hnsw!.search(query, k, accept);
      // A selective filter can starve the graph walk; the exact scan then gives the full answer.
      if (hits.length >= Math.min(k, this.#flat.size) || !accept) return hits;
    }
    return this.#flat.search(query, k, accept);
  }

  clear(): void {
    this.#stop();
    this.#flat.clear();
    this.#digest?.reset();
    this.#state = 'off';
  }

  byteSize(): number {
    return this.#flat.byteSize() + (this.#hnsw?.byteSize() ?? 0);
  }

  /** The exact index's bytes: the portable form (HNSW bytes live in the store, see SavedBytes). */
  save(): Uint8Array {
    return this.#flat.save();
  }

  /** Resolves once HNSW is ready, has failed, or is not needed at this size, and the flat scan's copies are read back. */
  whenIndexed(): Promise<void> {
    const busy = this.#state === 'loading' || this.#state === 'building' || (this.#state === 'off' && this.#wanted()) || this.#readBackEpoch !== null;
    if (!busy) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Saves unsaved graph changes now (an export or close); `quiet` (the store's save after its
   * writes went quiet) only once they are many (`QUIET_SAVE_SHARE` in `ann-saves.ts`).
   */
  flush(quiet = false): void {
    this.#saves.flush(quiet);
  }

  /** Saves, then stops: what a store does before its database closes. */
  close(): void {
    this.flush();
    this.dispose();
  }

  /** Stops background work and frees the graph. */
  dispose(): void {
    this.#stop();
    this.#state = 'off';
    this.#settle();
  }

  #serving(): boolean {
    return this.#state === 'ready' && this.#hnsw !== null && this.#flat.size >= this.#threshold;
  }

  #wanted(): boolean {
    return this.#flat.size >= this.#threshold && Number.isFinite(this.#threshold);
  }

  /** After a change of the vectors held; `first` schedules the start of HNSW's library load if the change makes it wanted. */
  #changed(first?: (fn: () => void) => void): void {
    if (this.#read !== null && !this.#flat.released && this.#flat.size > this.#copiesMax) {
      this.#flat.release(this.#read);
      this.#logger('debug', `dense leg: past ${this.#copiesMax} vectors the exact scan keeps int8 codes and re-scores from the store`, { vectors: this.#flat.size });
    }
    if (this.#state === 'off' && this.#wanted()) this.#start(first);
    if (this.#state === 'ready') this.#saves.changed();
  }

  #guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#fail(error);
    }
  }

  #fail(error: unknown): void {
    const message = messageOf(error);
    this.#logger('warn', `ann: HNSW disabled, the exact scan answers: ${message}`, { error: message });
    this.#stop();
    this.#state = 'failed';
    this.#status.error = message;
    this.#settle();
  }

  #stop(): void {
    this.#epoch++;
    this.#saves.reset();
    this.#hnsw?.dispose();
    this.#hnsw = null;
    this.#pending.clear();
  }

  #restart(reason: string): void {
    this.#logger('info', `ann: rebuilding HNSW (${reason})`);
    this.#stop();
    this.#state = 'off';
    this.#changed();
  }

  #start(first: (fn: () => void) => void = (fn) => fn()): void {
    const epoch = ++this.#epoch;
    this.#state = 'loading';
    first(() => {
      if (epoch !== this.#epoch) return;
      this.#loadLibrary().then(
        (lib) => {
          if (epoch !== this.#epoch) return;
          // Restoring reads, checks and parses the whole saved graph (about 1 s at 100k vectors), so
          // it waits for what is already queued: a store's first query after an open is answered by
          // the exact scan instead of behind the restore.
          nextSlice(() => {
            if (epoch !== this.#epoch) return;
            // Nothing awaits this: reading the saved bytes from storage may fail, and that must reach the logger.
            this.#guard(() => {
              if (!this.#restore(lib, epoch)) this.#build(lib, epoch);
            });
          });
        },
        (error: unknown) => {
          if (epoch === this.#epoch) this.#fail(error);
        },
      );
    });
  }

  /**
   * Adopts the saved index when it was built from the vectors held now, or from nearly them: the
   * vectors changed since it was saved (a write the last save did not see, typically because the
   * process ended first) are then re-added in the background while the exact scan answers.
   */
  #restore(lib: Hnswlib, epoch: number): boolean {
    const bytes = this.#store?.read();
    if (!bytes) return false;
    const started = now();
    let repair: Repair;
    try {
      const record = decodeAnn(bytes);
      const plan = planRestore(record, this.dim, this.#params, this.#digest!, this.#flat);
      if (plan === null) {
        this.#logger('info', 'ann: saved HNSW index is stale, rebuilding in the background');
        return false;
      }
      repair = plan;
      this.#hnsw = HnswVectorIndex.load(lib, this.dim, record.payload, record.nos, record.deleted, this.#params);
      for (const no of repair.removed) this.#hnsw.remove(no);
      this.#saves.reset(repair.removed.length);
    } catch (error) {
      this.#hnsw?.dispose();
      this.#hnsw = null;
      this.#logger('warn', `ann: saved HNSW index unusable, rebuilding: ${messageOf(error)}`);
      return false;
    }
    this.#status.loadMs = now() - started;
    this.#logger('info', `ann: HNSW restored from saved bytes in ${this.#status.loadMs.toFixed(1)} ms`, { vectors: this.#flat.size });
    if (repair.removed.length === 0 && repair.pending.length === 0) {
      this.#status.source = 'bytes';
      this.#ready();
      this.#settle();
      return true;
    }
    this.#logger('info', `ann: bringing the saved HNSW index up to date (vectors to add: ${repair.pending.length}, removed: ${repair.removed.length})`, { add: repair.pending.length, removed: repair.removed.length });
    this.#pending = new Set(repair.pending);
    this.#fill(lib, epoch, 'repair');
    return true;
  }

  /**
   * A fresh graph with room for every vector held now plus `headroom`, capped at what fits in
   * hnswlib-wasm's heap; false (and the exact scan answers) when the vectors alone do not fit.
   */
  #createGraph(lib: Hnswlib, headroom: number): boolean {
    const limit = maxHnswVectors(this.dim, this.#params.m);
    if (this.#flat.size > limit) {
      this.#fail(new Error(`${this.#flat.size} vectors of ${this.dim} dimensions exceed what hnswlib-wasm's 2 GiB heap holds (${limit})`));
      return false;
    }
    this.#hnsw?.dispose();
    try {
      this.#hnsw = new HnswVectorIndex(lib, this.dim, this.#params, Math.min(limit, Math.ceil(this.#flat.size * headroom)));
    } catch (error) {
      this.#fail(error);
      return false;
    }
    this.#pending = new Set(this.#flat.nos());
    return true;
  }

  #build(lib: Hnswlib, epoch: number): void {
    if (this.#createGraph(lib, 1.25)) this.#fill(lib, epoch, 'build');
  }

  /** Adds the pending vectors to the graph in background slices; HNSW serves once none is left. */
  #fill(lib: Hnswlib, epoch: number, filling: 'build' | 'repair'): void {
    const started = now();
    let source = filling;
    this.#state = 'building';
    const slice = () => {
      if (epoch !== this.#epoch) return;
      const until = now() + SLICE_MS;
      // Writes during the build can outgrow the graph. Growing it copies the whole graph inside
      // hnswlib's 2 GiB heap, which fails long before a million vectors, so the build starts over
      // at twice the store's size; the work thrown away is what was built while the store grew.
      if (this.#hnsw!.size + this.#pending.size > this.#hnsw!.capacity) {
        this.#logger('info', `ann: the store grew to ${this.#flat.size} vectors during the HNSW build, restarting it with room for more`);
        if (!this.#createGraph(lib, 2)) return;
        source = 'build';
      }
      try {
        while (this.#pending.size > 0 && now() < until) {
          const batch: number[] = [];
          for (const no of this.#pending) {
            this.#pending.delete(no);
            batch.push(no);
            if (batch.length === BATCH) break;
          }
          const nos: number[] = [];
          const vectors: Float32Array[] = [];
          this.#flat.getMany(batch).forEach((vector, i) => {
            if (!vector) return;
            nos.push(batch[i]!);
            vectors.push(vector);
          });
          if (nos.length > 0) this.#hnsw!.addMany(nos, vectors);
          this.#saves.filled(nos.length);
        }
      } catch (error) {
        this.#fail(error);
        return;
      }
      if (this.#pending.size > 0) {
        nextSlice(slice);
        return;
      }
      this.#status.buildMs = now() - started;
      this.#status.source = source;
      this.#ready();
      if (source === 'build') this.#logger('info', `ann: HNSW built over ${this.#hnsw!.size} vectors in ${(this.#status.buildMs / 1000).toFixed(1)} s`, { vectors: this.#hnsw!.size });
      else this.#logger('info', `ann: HNSW brought up to date in ${this.#status.buildMs.toFixed(0)} ms`, { vectors: this.#hnsw!.size });
      this.#saves.finished(source === 'build');
      this.#settle();
    };
    nextSlice(slice);
  }

  /** HNSW answers from now on; the flat scan is the fallback and stops keeping f32 copies HNSW and the store both hold. */
  #ready(): void {
    this.#state = 'ready';
    if (this.#read !== null) this.#flat.release(this.#read);
  }

  /** The serving graph's bytes for the store, with the digest of the vectors it was built from. */
  #encode(): PartedBytes | null {
    const hnsw = this.#hnsw;
    if (hnsw === null) return null;
    const payload = hnsw.save();
    const nos = hnsw.nos();
    const digest = this.#digest!;
    return encodeAnn({ dim: this.dim, digest: [digest.a, digest.b], params: this.#params, nos, deleted: hnsw.deletedNos(), entries: digest.entries(nos), payload });
  }

  #settle(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}

