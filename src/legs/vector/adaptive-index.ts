import { messageOf } from '../../errors.js';
import { silentLogger, type Logger } from '../../logger.js';
import type { Accept, AnnOptions, Scored, VectorIndex, VectorReader } from '../types.js';
import { VectorDigest, type AnnRecord } from './ann-format.js';
import { planRestore, type Repair } from './ann-repair.js';
import type { FlatVectorIndex } from './flat-index.js';
import { checkPacked } from './packed.js';
import { readQuantized, type QuantizedRun } from './quantized-snapshot.js';
import { HNSW_DEFAULTS, type HnswParams, type HnswVectorIndex } from './hnsw-index.js';
import { loadHnswlib, type Hnswlib } from './hnswlib-loader.js';
import { readBackLater } from './read-back.js';
import { fillDigestLater } from './digest-fill.js';
import { afterOpen, nextSlice, now } from '../../util/slices.js';
import type { PartedBytes } from '../../util/parted-bytes.js';
import { GraphBuild } from './graph-build.js';
import { WalkedGraph } from './walked-graph.js';
import { stripVectors } from './hnsw-links.js';
import { ANN_THRESHOLD, COPIES_MAX_BYTES, type AdaptiveDependencies, type AnnState, type AnnStatus } from './ann-settings.js';
import { backgroundTimeout } from '../../util/timers.js';
import { AnnSave } from './ann-save.js';

/**
 * The dense leg as the engine sees it: the exact flat scan always (the source of vectors, and the
 * answer whenever no graph serves), plus an HNSW graph once the store reaches `threshold`.
 * hnswlib-wasm builds the graph in time slices in the background; then its bytes are saved with a
 * digest of the vectors it holds, its links are read out (`WalkedGraph`) and the hnswlib instance,
 * with its float32 copy of every vector, is dropped: the graph is walked with the flat scan's int8
 * codes and its best re-scored exactly. At the next open the saved bytes serve again when they
 * match the vectors held, or nearly (the difference becomes the graph's tail and ghosts), without
 * loading hnswlib. Writes to a serving graph go to its tail; once they are many, hnswlib brings
 * the saved graph up to date in the background while the old one serves. Once a graph serves, or
 * the store outgrows `COPIES_MAX_BYTES`, the flat scan keeps only its int8 codes and re-scores
 * from the store (given `read`).
 */
export class AdaptiveVectorIndex implements VectorIndex {
  readonly dim: number;
  readonly #flat: FlatVectorIndex;
  readonly #threshold: number;
  readonly #params: HnswParams;
  readonly #saves: AnnSave;
  readonly #repairDelayMs: number;
  readonly #logger: Logger;
  readonly #loadLibrary: () => Promise<Hnswlib>;
  readonly #read: VectorReader | null;
  /** Vectors the flat scan keeps f32 copies of at most (see `COPIES_MAX_BYTES`). */
  readonly #copiesMax: number;
  /** What a saved graph is checked against; null when no graph is ever built (an infinite threshold), so nothing hashes every vector for it. */
  readonly #digest: VectorDigest | null;
  /** The graph that serves, if any. */
  #graph: WalkedGraph | null = null;
  /** hnswlib's run under way (a build, or the saved graph brought up to date), if any. */
  #build: GraphBuild | null = null;
  #state: AnnState = 'off';
  #epoch = 0;
  #waiters: Array<() => void> = [];
  #repairTimer: ReturnType<typeof setTimeout> | null = null;
  /** The epoch of the read-back of the flat scan's f32 copies under way (`#resideLater`), if any. */
  #readBackEpoch: number | null = null;
  /** The fill of the digest's entries under way (`#fillDigest`), if any: no graph starts before it ends. */
  #digestFill: object | null = null;
  #status: Omit<AnnStatus, 'state' | 'indexed' | 'vectors' | 'threshold'> = { source: null, loadMs: null, buildMs: null, saveMs: null, error: null };

  constructor(flat: FlatVectorIndex, options: AnnOptions = {}, deps: AdaptiveDependencies = {}) {
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
    this.#logger = deps.logger ?? silentLogger;
    this.#saves = new AnnSave(deps.store ?? null, this.#logger);
    this.#repairDelayMs = options.saveDelayMs ?? 2000;
    this.#loadLibrary = deps.loadLibrary ?? loadHnswlib;
    this.#read = deps.read ?? null;
    this.#copiesMax = Math.floor((deps.copiesMaxBytes ?? COPIES_MAX_BYTES) / (this.dim * 4));
  }

  get kind(): string {
    return this.#serving() ? 'hnsw-int8' : this.#flat.kind;
  }

  /** Exact while the scan answers (no graph serves, or the store is below the threshold). */
  get exact(): boolean {
    return !this.#serving();
  }

  get size(): number {
    return this.#flat.size;
  }

  status(): AnnStatus {
    const indexed = this.#build?.indexed ?? this.#graph?.indexed ?? 0;
    return { state: this.#state, indexed, vectors: this.#flat.size, threshold: this.#threshold, ...this.#status };
  }

  add(no: number, vector: Float32Array): void {
    this.#graph?.willAdd(no, this.#flat);
    this.#flat.add(no, vector);
    this.#digest?.set(no, vector);
    if (this.#build) this.#guard(() => this.#build!.add(no, vector));
    this.#changed();
  }

  /**
   * {@link VectorIndex.addPacked}: in bulk while no HNSW graph needs each vector (an open), else
   * one `add` each. 'loading' counts as none: an open passing the threshold starts loading the
   * saved graph, and the restore or build that follows reads what is held by then; taking that for
   * a graph sent the rest of a 100k open through `add` one vector at a time, quantizing each again.
   */
  addPacked(nos: ArrayLike<number>, vectors: Float32Array): void {
    const dim = this.dim;
    checkPacked('AdaptiveVectorIndex.addPacked', nos, vectors, dim);
    const fresh = (this.#state === 'off' || this.#state === 'loading') && this.#graph === null && this.#build === null && Array.prototype.every.call(nos, (no: number) => !this.#flat.has(no));
    if (!fresh) {
      for (let i = 0; i < nos.length; i++) this.add(nos[i]!, vectors.subarray(i * dim, (i + 1) * dim));
      return;
    }
    this.#flat.addPacked(nos, vectors);
    const digest = this.#digest;
    if (digest) for (let i = 0; i < nos.length; i++) digest.set(nos[i]!, vectors.subarray(i * dim, (i + 1) * dim));
    this.#changed();
  }
  /**
   * The flat index's codes, with each vector's digest entry where HNSW may be built, so an open
   * can check a saved graph without reading the vectors (`adoptQuantized`); without them while
   * the entries are still being filled in.
   */
  saveQuantized(): Uint8Array | null {
    const digest = this.#digestFill === null ? this.#digest : null;
    return this.#flat.saveQuantized(digest && ((nos) => digest.entries(nos)));
  }

  /**
   * {@link VectorIndex.adoptQuantized}: the flat scan takes the codes released onto the store's
   * vectors and the digest from the saved entries, so an open reads no vector. Where HNSW will
   * answer, it stays released (the graph is walked with its codes) and the saved graph is checked against
   * that digest; below the threshold, while they fit `COPIES_MAX_BYTES`, the f32 copies are read
   * back after the open, in slices queued behind what the open's caller does next (the first
   * query, typically), since a released scan re-scores from the store at every query. Bytes
   * without digest entries (saved where no graph is built) are adopted too; where one may be, the
   * digest is then filled in from the store's vectors after the open (`fillDigestLater`), and no
   * graph is read or built before that.
   */
  adoptQuantized(bytes: Uint8Array | PartedBytes): boolean {
    const read = this.#read;
    if (read === null || this.#flat.size !== 0 || this.#state !== 'off') return false;
    const method = 'AdaptiveVectorIndex.adoptQuantized';
    let run: QuantizedRun;
    try {
      run = readQuantized(method, bytes, this.dim, (count) => this.#flat.codesFor(count, read));
      this.#flat.adoptRun(run, read);
    } catch (error) {
      // Back to an empty index that keeps f32 copies, for the vectors to be read and added instead.
      this.#flat.clear();
      throw error;
    }
    if (run.digests !== null) this.#digest?.adopt(run.nos, run.digests);
    else if (this.#digest !== null) this.#fillDigest(this.#digest, read);
    // An open adopts codes: reading the saved graph waits, like the open's other background work,
    // for the caller's first request, which the exact scan answers.
    this.#changed(afterOpen);
    if (this.#state === 'off') this.#resideLater();
    return true;
  }

  /** Gives the digest the entries saved codes lacked; then a graph may start (or, if the fill failed, the exact scan answers from then on). */
  #fillDigest(digest: VectorDigest, read: VectorReader): void {
    const fill = {};
    this.#digestFill = fill;
    fillDigestLater(digest, this.#flat, read, this.#logger, {
      wanted: () => this.#digestFill === fill,
      finish: (error) => {
        this.#digestFill = null;
        if (error === null) this.#changed();
        else this.#fail(error);
      },
    });
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
    if (!this.#flat.has(no)) return false;
    this.#graph?.willRemove(no, this.#flat);
    this.#flat.remove(no);
    this.#digest?.delete(no);
    if (this.#build) this.#guard(() => this.#build!.remove(no));
    this.#changed();
    return true;
  }

  has(no: number): boolean {
    return this.#flat.has(no);
  }

  search(query: Float32Array, k: number, accept?: Accept, breadth = k): Scored[] {
    if (this.#serving()) {
      const hits = this.#graph!.search(this.#flat, query, k, Math.max(this.#params.efSearch, breadth), accept);
      // A selective filter can starve the graph walk; the exact scan then gives the full answer.
      if (hits !== null && (hits.length >= Math.min(k, this.#flat.size) || !accept)) return hits;
    }
    return this.#flat.search(query, k, accept);
  }

  clear(): void {
    this.#stop();
    this.#saves.drop();
    this.#flat.clear();
    this.#digest?.reset();
    this.#state = 'off';
  }

  byteSize(): number {
    return this.#flat.byteSize() + (this.#graph?.byteSize() ?? 0) + (this.#build?.byteSize() ?? 0);
  }

  /** The exact index's bytes: the portable form (HNSW bytes live in the store, see SavedBytes). */
  save(): Uint8Array {
    return this.#flat.save();
  }

  /** Resolves once no graph is loading or being built (or brought up to date) and the flat scan's copies are read back. */
  whenIndexed(): Promise<void> {
    const busy = this.#state === 'loading' || this.#state === 'building' || (this.#state === 'off' && this.#wanted()) || this.#readBackEpoch !== null;
    if (!busy) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Stops background work and frees the graph. Nothing is left to save: a graph is saved when
   * hnswlib finishes it, and what was written since is found again at the next open by comparing
   * the vectors with the saved digest entries.
   */
  dispose(): void {
    this.#stop();
    this.#saves.drop();
    this.#state = 'off';
    this.#settle();
    this.#flat.dispose();
  }

  /** {@link VectorIndex.flush}. */
  flush(): void {
    this.#saves.flush();
  }

  /** {@link VectorIndex.close}: a graph held back is written, then as `dispose`. */
  close(): void {
    this.#saves.flush();
    this.dispose();
  }

  #serving(): boolean {
    return this.#graph !== null && this.#flat.size >= this.#threshold;
  }

  #wanted(): boolean {
    return this.#flat.size >= this.#threshold && Number.isFinite(this.#threshold);
  }

  /** After a change of the vectors held; `first` schedules the start of the saved graph's read if the change makes a graph wanted. */
  #changed(first?: (fn: () => void) => void): void {
    if (this.#read !== null && !this.#flat.released && this.#flat.size > this.#copiesMax) {
      this.#flat.release(this.#read);
      this.#logger('debug', `dense leg: past ${this.#copiesMax} vectors the exact scan keeps int8 codes and re-scores from the store`, { vectors: this.#flat.size });
    }
    if (this.#state === 'off' && this.#wanted() && this.#digestFill === null) this.#start(first);
    else if (this.#state === 'ready' && this.#graph !== null) this.#maybeRepair();
  }

  /** Brings the serving graph up to date when it asks for it: at once, or once writes go quiet. */
  #maybeRepair(): void {
    const due = this.#graph!.repairDue();
    if (due === 'now') return this.#repair();
    if (due === null) return;
    if (this.#repairTimer) clearTimeout(this.#repairTimer);
    // A repair timer must not keep a Node process alive (the build's slices do, so awaiting it works).
    this.#repairTimer = backgroundTimeout(() => {
      this.#repairTimer = null;
      if (this.#state === 'ready' && this.#graph !== null) this.#repair();
    }, this.#repairDelayMs);
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
    this.#digestFill = null;
    if (this.#repairTimer) clearTimeout(this.#repairTimer);
    this.#repairTimer = null;
    this.#build?.cancel();
    this.#build = null;
    this.#graph = null;
  }

  #start(first: (fn: () => void) => void = (fn) => fn()): void {
    const epoch = ++this.#epoch;
    this.#state = 'loading';
    first(() => {
      if (epoch !== this.#epoch) return;
      // Reading the saved graph reads and checks its whole bytes and builds its node tables (~70 ms
      // at 100k vectors), so it waits for what is already queued: a store's first query after an
      // open is answered by the exact scan instead of behind it.
      nextSlice(() => {
        if (epoch !== this.#epoch) return;
        // Nothing awaits this: reading the saved bytes from storage may fail, and that must reach the logger.
        this.#guard(() => {
          const record = this.#saves.read();
          if (record === null || !this.#serveSaved(record)) this.#run(epoch, record);
        });
      });
    });
  }

  /** Brings the serving graph up to date: hnswlib restores the saved graph and redoes what it lacks, while this one serves. */
  #repair(): void {
    const epoch = ++this.#epoch;
    this.#state = 'loading';
    this.#logger('info', `ann: bringing the HNSW graph up to date (${this.#graph!.stale} writes since it was built)`);
    nextSlice(() => {
      if (epoch === this.#epoch) this.#guard(() => this.#run(epoch, this.#saves.read()));
    });
  }

  /**
   * What the saved graph lacks of the vectors held now; null when it cannot serve them (other
   * parameters, or so many changes that a build costs as much), and it is built anew.
   */
  #lag(record: AnnRecord): Repair | null {
    const repair = planRestore(record, this.dim, this.#params, this.#digest!, this.#flat);
    if (repair === null) this.#logger('info', 'ann: saved HNSW index is stale, rebuilding in the background');
    return repair;
  }

  /** Serves the saved graph as it is when what it lacks is few enough for its tail; false to have hnswlib bring it up to date (or build anew) first. */
  #serveSaved(record: AnnRecord): boolean {
    const repair = planRestore(record, this.dim, this.#params, this.#digest!, this.#flat);
    if (repair === null || !WalkedGraph.servesWith(repair, this.#flat.size)) return false;
    const started = now();
    let graph: WalkedGraph;
    try {
      graph = WalkedGraph.read(record.graph, this.dim, this.#flat, repair);
    } catch (error) {
      this.#logger('warn', `ann: saved HNSW index unusable, rebuilding: ${messageOf(error)}`);
      return false;
    }
    this.#status.loadMs = now() - started;
    this.#status.source = 'bytes';
    this.#logger('info', `ann: HNSW restored from saved bytes in ${this.#status.loadMs.toFixed(1)} ms`, { vectors: this.#flat.size, stale: graph.stale });
    this.#serve(graph);
    return true;
  }

  /**
   * Loads a fresh hnswlib and runs, in the background, the repair of `record` or a build. What the
   * saved graph lacks is read once hnswlib has loaded, so the writes made meanwhile are in it.
   */
  #run(epoch: number, record: AnnRecord | null): void {
    this.#loadLibrary().then(
      (lib) => {
        if (epoch !== this.#epoch) return;
        this.#guard(() => {
          const repair = record && this.#lag(record);
          const saved = repair ? { record: record!, repair } : null;
          const serving = this.#graph;
          const host = {
            flat: this.#flat,
            dim: this.dim,
            params: this.#params,
            logger: this.#logger,
            savedVectors: (labels: number[]) => this.#flat.getMany(labels).map((vector, i) => vector ?? serving?.routingVector(labels[i]!)),
            finished: (hnsw: HnswVectorIndex, source: 'build' | 'repair', ms: number) => {
              if (epoch === this.#epoch) this.#finished(hnsw, source, ms);
              else hnsw.dispose();
            },
            failed: (error: unknown) => {
              if (epoch === this.#epoch) this.#fail(error);
            },
          };
          let build: GraphBuild;
          try {
            build = new GraphBuild(lib, host, saved);
          } catch (error) {
            if (saved === null) throw error;
            this.#logger('warn', `ann: saved HNSW index unusable, rebuilding: ${messageOf(error)}`);
            build = new GraphBuild(lib, host, null);
          }
          this.#build = build;
          this.#state = 'building';
        });
      },
      (error: unknown) => {
        if (epoch === this.#epoch) this.#fail(error);
      },
    );
  }

  /** hnswlib finished a graph: its bytes are saved, its links read out, and hnswlib dropped. */
  #finished(hnsw: HnswVectorIndex, source: 'build' | 'repair', ms: number): void {
    this.#build = null;
    this.#status.buildMs = ms;
    this.#status.source = source;
    if (source === 'build') this.#logger('info', `ann: HNSW built over ${hnsw.size} vectors in ${(ms / 1000).toFixed(1)} s`, { vectors: hnsw.size });
    else this.#logger('info', `ann: HNSW brought up to date in ${ms.toFixed(0)} ms`, { vectors: hnsw.size });
    let graph: WalkedGraph;
    try {
      const started = now();
      const saved = stripVectors(hnsw.save(), this.dim);
      this.#write(hnsw, saved);
      graph = WalkedGraph.read(saved, this.dim, this.#flat);
      this.#status.saveMs = now() - started;
    } catch (error) {
      this.#fail(error);
      return;
    } finally {
      hnsw.dispose();
    }
    this.#serve(graph);
  }

  /** Saves the finished graph with the digest of the vectors it holds (`AnnSave`). */
  #write(hnsw: HnswVectorIndex, graph: Uint8Array): void {
    this.#saves.write(() => {
      const nos = hnsw.nos();
      const digest = this.#digest!;
      return { dim: this.dim, digest: [digest.a, digest.b], params: this.#params, nos, deleted: hnsw.deletedNos(), entries: digest.entries(nos), graph };
    });
  }

  /** `graph` answers from now on; the flat scan scores its walks and stops keeping f32 copies the store holds. */
  #serve(graph: WalkedGraph): void {
    this.#graph = graph;
    this.#state = 'ready';
    if (this.#read !== null) this.#flat.release(this.#read);
    this.#settle();
    this.#maybeRepair();
  }

  #settle(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}
