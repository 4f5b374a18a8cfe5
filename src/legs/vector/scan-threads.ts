/**
 * The exact scan's int8 pass on two threads, in Node. The pass reads every vector's codes once
 * (38 MB at 100k 384-d vectors), and on the hosts measured one core, not memory, is what limits
 * it: two threads each reading half took 1.1 ms where one took 2.2 (scratch probe, 100k vectors,
 * Node 20, 2 cores). So a large store's kernel instance lives in a shared memory, and a helper
 * thread with its own instance over that memory takes part in each pass. Small stores gain
 * nothing: waking the helper costs about a tenth of a millisecond (10k vectors: 0.18 ms alone,
 * 0.19 split in halves; 40k: 0.76 → 0.45).
 *
 * Both threads claim the pass's chunks from one counter until none is left, rather than each
 * taking a fixed half: the calling thread starts at once, a helper that wakes late (or is
 * descheduled on a busy host) takes fewer chunks, and the caller waits at most for the chunks the
 * helper is scoring. The threads meet through a few words of a `SharedArrayBuffer` and
 * `Atomics.wait`/`notify`: a search stays synchronous, and an idle helper sleeps without a core.
 *
 * One word decides every claim: it holds the pass's number of chunks and how many are claimed, and
 * a claim is a compare-and-swap on it. The helper reads the pass's other words (its size among
 * them) only once its claim succeeded. Until it reports that chunk finished the pass cannot end, so
 * they cannot be the next pass's yet. A helper that decided from words it read before claiming
 * could take the next pass's size with the last pass's claim word (a store that grew between two
 * searches), claim a chunk past the last pass's end and count it finished in the next pass. That
 * pass then ended before its last chunk was scored, or its count overshot and the search waited
 * out `WAIT_MS` and failed.
 */
import type { Worker as NodeWorker } from 'node:worker_threads';
import { HybridMindError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { backgroundTimeout } from '../../util/timers.js';

type WorkerConstructor = typeof import('node:worker_threads').Worker;

/** What a kernel needs to split its passes: the kernel over a shared memory, and Node's `Worker`. */
export interface ScanThreads {
  /** `kernel-threads.wasm`: the kernel with its memory imported as `env.memory`, shared. */
  readonly module: WebAssembly.Module;
  readonly Worker: WorkerConstructor;
  /** Passes over fewer vectors than this run on the calling thread alone. */
  readonly from: number;
  readonly logger: Logger;
}

/** See the measurements above: from here the split saves more than the helper's wake-up costs. */
export const SPLIT_FROM = 32_768;
/** wasm32's whole address space, what an unshared memory may also grow to. */
const MAX_PAGES = 65_536;
/** A helper with no split pass for this long ends (it starts again at the next one). */
const IDLE_MS = 60_000;
/** A helper that has not answered in this long is taken for lost, and the search fails rather than hang. */
const WAIT_MS = 60_000;

// The control words. JOB counts the passes shared, which wakes the helper; NEXT is the pass's number
// of chunks shifted left by 16 plus how many of them are claimed; FINISHED counts its chunks scored.
const JOB = 0;
const NEXT = 1;
const FINISHED = 2;
const STATE = 3;
const QUERY = 4;
const BASE = 5;
const COUNT = 6;
const STRIDE = 7;
const OUT = 8;
const CHUNK = 9;
const WORDS = 10;
/** Chunks a pass may have: 16 bits of NEXT (a 4 GiB memory of 16-byte rows in chunks of 8,192 has 32,768). */
const MAX_CHUNKS = 0xffff;
// STATE's values; it starts at 0, before the helper has its instance.
const READY = 1;
const FAILED = 2;
const STOPPING = 3;

/**
 * The helper's whole program, run with `eval` so that no file has to be found next to this
 * module's (bundlers and test runners move it; a `.ts` source has no `.js` twin). It is this
 * module's constant, never input. A failed chunk is reported, not thrown: the calling thread then
 * scores the whole pass itself.
 */
const HELPER = `'use strict';
const { workerData } = require('node:worker_threads');
const { module, memory, control } = workerData;
const c = new Int32Array(control);
const words = new Uint32Array(control);
let pass = null;
try {
  pass = new WebAssembly.Instance(module, { env: { memory } }).exports.dot_i8;
  Atomics.store(c, ${STATE}, ${READY});
} catch {
  Atomics.store(c, ${STATE}, ${FAILED});
}
let seen = 0;
while (pass !== null) {
  Atomics.wait(c, ${JOB}, seen);
  seen = Atomics.load(c, ${JOB});
  if (Atomics.load(c, ${STATE}) === ${STOPPING}) break;
  for (;;) {
    const next = Atomics.load(c, ${NEXT});
    if ((next & 0xffff) >= next >>> 16) break;
    if (Atomics.compareExchange(c, ${NEXT}, next, next + 1) !== next) continue;
    const chunk = Atomics.load(words, ${CHUNK}), count = Atomics.load(words, ${COUNT}), stride = Atomics.load(words, ${STRIDE});
    const from = (next & 0xffff) * chunk;
    try {
      pass(Atomics.load(words, ${QUERY}), Atomics.load(words, ${BASE}) + from * stride, Math.min(chunk, count - from), stride, Atomics.load(words, ${OUT}) + from * 4);
    } catch {
      Atomics.store(c, ${STATE}, ${FAILED});
      pass = null;
    }
    Atomics.add(c, ${FINISHED}, 1);
    Atomics.notify(c, ${FINISHED});
    if (pass === null) break;
  }
}
`;

/** A memory both threads can see, for a kernel instance that may split its passes. */
export function sharedMemory(): WebAssembly.Memory {
  return new WebAssembly.Memory({ initial: 1, maximum: MAX_PAGES, shared: true });
}

/** The words a running helper shares with the calling thread (see the control words above). */
interface Running {
  readonly worker: NodeWorker;
  readonly control: Int32Array;
  /** The job's words (byte offsets reach 4 GiB, past what an Int32Array holds): the same bytes as `control`. */
  readonly words: Uint32Array;
}

/**
 * The helper thread of one kernel instance. It starts at the first pass large enough to split,
 * which that pass does not wait for, and takes part from the next pass on. After `IDLE_MS` without
 * a split pass it ends, giving back its ~10 MiB (an HNSW store leaves the scan once its graph
 * serves), and the next large pass starts it again.
 */
export class PassHelper {
  readonly #threads: ScanThreads;
  readonly #memory: WebAssembly.Memory;
  #running: Running | null = null;
  #idle: ReturnType<typeof setTimeout> | null = null;
  /** Whether a pass was split yet (said once, at debug level). */
  #joined = false;
  /** Set once the helper was stopped or failed: every later pass runs on the calling thread. */
  #off = false;

  constructor(threads: ScanThreads, memory: WebAssembly.Memory) {
    this.#threads = threads;
    this.#memory = memory;
  }

  /**
   * Runs a pass over `count` vectors with the helper: `own(from, to)` scores slots [from, to) on
   * the calling thread, the helper scores the chunks it claims, `chunk` vectors each. Pointers are
   * byte offsets as `dot_i8` takes them. Returns how many slots the helper scored, or −1 when the
   * pass was not shared (a small pass, a helper not ready yet, or one that failed): the caller
   * then scores every slot itself.
   */
  share(query: number, base: number, count: number, stride: number, out: number, chunk: number, own: (from: number, to: number) => void, method: string): number {
    const chunks = Math.ceil(count / chunk);
    if (this.#off || count < this.#threads.from || chunks > MAX_CHUNKS) return -1;
    const running = this.#running;
    if (running === null) {
      this.#start();
      return -1;
    }
    const c = running.control;
    const state = Atomics.load(c, STATE);
    if (state !== READY) {
      if (state === FAILED) this.#fail('could not instantiate the kernel');
      return -1;
    }
    if (!this.#joined) {
      this.#joined = true;
      this.#threads.logger('debug', `vector scan: a helper thread shares every int8 pass over ${this.#threads.from} vectors or more`, { from: this.#threads.from });
    }
    this.#stillBusy();
    const w = running.words;
    Atomics.store(w, QUERY, query);
    Atomics.store(w, BASE, base);
    Atomics.store(w, COUNT, count);
    Atomics.store(w, STRIDE, stride);
    Atomics.store(w, OUT, out);
    Atomics.store(w, CHUNK, chunk);
    Atomics.store(c, FINISHED, 0);
    // Opens the claims; the helper reads the words above only after a claim succeeds.
    Atomics.store(c, NEXT, chunks << 16);
    Atomics.add(c, JOB, 1);
    Atomics.notify(c, JOB);
    let scored = 0;
    for (let next = Atomics.load(c, NEXT); (next & 0xffff) < chunks; next = Atomics.load(c, NEXT)) {
      if (Atomics.compareExchange(c, NEXT, next, next + 1) !== next) continue;
      const from = (next & 0xffff) * chunk;
      const to = Math.min(count, from + chunk);
      own(from, to);
      scored += to - from;
      Atomics.add(c, FINISHED, 1);
    }
    for (let finished = Atomics.load(c, FINISHED); finished !== chunks; finished = Atomics.load(c, FINISHED)) {
      if (Atomics.wait(c, FINISHED, finished, WAIT_MS) === 'timed-out') {
        this.#fail(`gave no answer in ${WAIT_MS / 1000} s`);
        throw new HybridMindError('STORAGE', method, `the scan's helper thread gave no answer in ${WAIT_MS / 1000} s`);
      }
    }
    if (Atomics.load(c, STATE) !== FAILED) return count - scored;
    this.#fail('failed during a pass');
    return -1;
  }

  /** Whether a helper runs, has its instance and takes part of every large pass. */
  get ready(): boolean {
    return !this.#off && this.#running !== null && Atomics.load(this.#running.control, STATE) === READY;
  }

  /** Ends the helper thread for good; later passes run on the calling thread alone. */
  stop(): void {
    this.#off = true;
    this.#rest();
  }

  /** Ends the running helper, if any; the next large pass starts another unless stopped. */
  #rest(): void {
    if (this.#idle !== null) clearTimeout(this.#idle);
    this.#idle = null;
    const running = this.#running;
    if (running === null) return;
    this.#running = null;
    Atomics.store(running.control, STATE, STOPPING);
    Atomics.add(running.control, JOB, 1);
    Atomics.notify(running.control, JOB);
    running.worker.terminate().catch(() => undefined);
  }

  /** Puts off the idle end: one timer, pushed back by every split pass. */
  #stillBusy(): void {
    if (this.#idle === null) {
      this.#idle = backgroundTimeout(() => this.#rest(), IDLE_MS);
    } else {
      (this.#idle as { refresh?: () => void }).refresh?.();
    }
  }

  #start(): void {
    try {
      const control = new Int32Array(new SharedArrayBuffer(WORDS * 4));
      const worker = new this.#threads.Worker(HELPER, {
        eval: true,
        // The helper runs only the program above: none of the process's loaders or preloads.
        execArgv: [],
        workerData: { module: this.#threads.module, memory: this.#memory, control: control.buffer },
      });
      // An idle helper must not keep the process alive: it ends with its index or with the process.
      worker.unref();
      worker.on('error', (error) => {
        if (this.#running?.worker === worker) this.#fail(`stopped: ${error instanceof Error ? error.message : String(error)}`);
      });
      this.#running = { worker, control, words: new Uint32Array(control.buffer) };
    } catch (error) {
      this.#fail(`could not start: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  #fail(why: string): void {
    if (this.#off) return;
    this.#threads.logger('warn', `vector scan: the helper thread ${why}; the int8 pass runs on one thread`, { why });
    this.stop();
  }
}
