/**
 * The exact scan's int8 pass on two threads, in Node. The pass reads every vector's codes once
 * (38 MB at 100k 384-d vectors), and on the hosts measured one core, not memory, is what limits
 * it: two threads each reading half took 1.1 ms where one took 2.2 (scratch probe, 100k vectors,
 * Node 20, 2 cores). So a large store's kernel instance lives in a shared memory, and a helper
 * thread with its own instance over that memory scores the upper half of the slots while the
 * calling thread scores the lower half. Small stores gain nothing: waking the helper costs about
 * a tenth of a millisecond (10k vectors: 0.18 ms alone, 0.19 split; 40k: 0.76 → 0.45).
 *
 * The two threads meet through a few words of a `SharedArrayBuffer` and `Atomics.wait`/`notify`:
 * a search stays synchronous, and an idle helper sleeps without using a core.
 */
import type { Worker as NodeWorker } from 'node:worker_threads';
import { HybridMindError } from '../../errors.js';
import type { Logger } from '../../logger.js';

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

// The control words. JOB and DONE are sequence numbers: the helper works while they differ.
const JOB = 0;
const DONE = 1;
const STATE = 2;
const QUERY = 3;
const BASE = 4;
const COUNT = 5;
const STRIDE = 6;
const OUT = 7;
const CHUNK = 8;
const WORDS = 9;
// STATE's values; it starts at 0, before the helper has its instance.
const READY = 1;
const FAILED = 2;
const STOPPING = 3;

/**
 * The helper's whole program, run with `eval` so that no file has to be found next to this
 * module's (bundlers and test runners move it; a `.ts` source has no `.js` twin). It is this
 * module's constant, never input. A failed pass is reported, not thrown: the calling thread then
 * scores that part itself.
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
while (pass !== null) {
  Atomics.wait(c, ${JOB}, Atomics.load(c, ${DONE}));
  const job = Atomics.load(c, ${JOB});
  if (Atomics.load(c, ${STATE}) === ${STOPPING}) break;
  if (job === Atomics.load(c, ${DONE})) continue;
  try {
    const query = words[${QUERY}], base = words[${BASE}], count = words[${COUNT}], stride = words[${STRIDE}], out = words[${OUT}], chunk = words[${CHUNK}];
    for (let from = 0; from < count; from += chunk) pass(query, base + from * stride, Math.min(chunk, count - from), stride, out + from * 4);
  } catch {
    Atomics.store(c, ${STATE}, ${FAILED});
    pass = null;
  }
  Atomics.store(c, ${DONE}, job);
  Atomics.notify(c, ${DONE});
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
  #job = 0;
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
   * Hands the upper part of a pass over `count` vectors to the helper and returns how many it took,
   * 0 when it takes none (a small pass, or a helper not ready yet). Pointers are byte offsets as
   * `dot_i8` takes them; the helper scores its part `chunk` vectors per call.
   */
  begin(query: number, base: number, count: number, stride: number, out: number, chunk: number): number {
    if (this.#off || count < this.#threads.from) return 0;
    const running = this.#running;
    if (running === null) {
      this.#start();
      return 0;
    }
    const state = Atomics.load(running.control, STATE);
    if (state !== READY) {
      if (state === FAILED) this.#fail('could not instantiate the kernel');
      return 0;
    }
    if (!this.#joined) {
      this.#joined = true;
      this.#threads.logger('debug', `vector scan: a helper thread takes half of every int8 pass over ${this.#threads.from} vectors or more`, { from: this.#threads.from });
    }
    this.#stillBusy();
    const own = count >>> 1;
    const w = running.words;
    w[QUERY] = query;
    w[BASE] = base + own * stride;
    w[COUNT] = count - own;
    w[STRIDE] = stride;
    w[OUT] = out + own * 4;
    w[CHUNK] = chunk;
    this.#job = (this.#job + 1) | 0;
    // A sequentially consistent store: the helper that sees the new job also sees its words.
    Atomics.store(running.control, JOB, this.#job);
    Atomics.notify(running.control, JOB);
    return count - own;
  }

  /**
   * Waits for the part `begin` handed over. False when the helper could not score it, which the
   * caller then scores itself; the helper is not used again.
   */
  end(method: string): boolean {
    const c = this.#running!.control;
    for (let done = Atomics.load(c, DONE); done !== this.#job; done = Atomics.load(c, DONE)) {
      if (Atomics.wait(c, DONE, done, WAIT_MS) === 'timed-out') {
        this.#fail(`gave no answer in ${WAIT_MS / 1000} s`);
        throw new HybridMindError('STORAGE', method, `the scan's helper thread gave no answer in ${WAIT_MS / 1000} s`);
      }
    }
    if (Atomics.load(c, STATE) !== FAILED) return true;
    this.#fail('failed during a pass');
    return false;
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
      this.#idle = setTimeout(() => this.#rest(), IDLE_MS);
      (this.#idle as { unref?: () => void }).unref?.();
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
      this.#job = 0;
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
