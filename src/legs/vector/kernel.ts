/**
 * Loads the WebAssembly SIMD inner-product kernel (`kernel.wat`, assembled to `kernel.wasm` by
 * `scripts/build-kernel.mjs`). Loading never throws: when WebAssembly, SIMD or the file is
 * unavailable it resolves to `null`, says why through the logger, and the index falls back to
 * plain JavaScript (several times slower on large stores).
 */
import { messageOf } from '../../errors.js';
import { silentLogger, type Logger } from '../../logger.js';
import type { VectorKernelSource } from '../types.js';
import { nodeBuiltin } from '../../util/node-builtin.js';
import { checkIntInRange } from '../../util/int-checks.js';
import { PassHelper, sharedMemory, SPLIT_FROM, type ScanThreads } from './scan-threads.js';

/** One instance of the kernel. It owns its memory, so every index gets its own instance. */
export interface VectorKernelInstance {
  readonly memory: WebAssembly.Memory;
  /**
   * Writes `n` f32 inner products of the `dim`-long query at byte offset `queryPtr` against the
   * `n` contiguous vectors starting at `basePtr`, to `outPtr`.
   */
  dot(queryPtr: number, basePtr: number, n: number, dim: number, outPtr: number): void;
  /**
   * Writes `n` exact i32 inner products of the i16 query at `queryPtr` against the `n` i8 vectors
   * of `stride` bytes (a multiple of 16, zero-padded) starting at `basePtr`, to `outPtr`.
   */
  dotI8(queryPtr: number, basePtr: number, n: number, stride: number, outPtr: number): void;
  /**
   * Replaces each of the `n` i32 slot numbers at `listPtr` by the f32 inner product of the query at
   * `queryPtr` with the vector in that slot (vectors of `dim` starting at `basePtr`), bit for bit
   * what `dot` gives that vector: one call re-scores all the int8 pass's candidates.
   */
  dotAt(queryPtr: number, basePtr: number, listPtr: number, n: number, dim: number): void;
  /**
   * Replaces each of the `n` i32 slot numbers at `listPtr` by what `dotI8` gives the codes in that
   * slot (vectors of `stride` bytes starting at `basePtr`): an HNSW walk's batch of neighbours.
   */
  dotI8At(queryPtr: number, basePtr: number, listPtr: number, n: number, stride: number): void;
  /** The thread that takes part of large int8 passes (its memory is shared), or null. */
  readonly helper: PassHelper | null;
}

/** A compiled kernel: cheap to instantiate many times, compiled once. */
export interface VectorKernel {
  readonly module: WebAssembly.Module;
  /** A fresh instance with its own memory (synchronous, so index constructors can stay sync). */
  instantiate(): VectorKernelInstance;
  /** How instances split large int8 passes with a second thread; null where they do not. */
  readonly threads: ScanThreads | null;
}

/** Options for {@link loadVectorKernel}. */
export interface LoadVectorKernelOptions {
  /**
   * Whether the bundled kernel may run large int8 passes on two threads: in Node, on a machine
   * with two cores or more, for stores of 32,768 vectors or more (see `scan-threads.ts`), or of
   * `from` vectors or more. Default `true`. A kernel given as `source` runs on the calling thread.
   */
  threads?: boolean | { from: number } | undefined;
}


/** A kernel, or why there is none. */
type Loaded = { kernel: VectorKernel; why?: never } | { kernel: null; why: string };
/** The threads variant and Node's `Worker`; null where passes stay on one thread, or why they must. */
type ThreadsPart = Omit<ScanThreads, 'logger' | 'from'> | string | null;
/** What a load compiles once per process: the kernel and, in Node, its threads variant. */
type Compiled = { module: WebAssembly.Module; threads: ThreadsPart } | { module: null; why: string };

/** The bundled kernel, with and without its threads variant. */
const bundled = new Map<boolean, Promise<Compiled>>();

/**
 * Compiles the kernel, or wraps an already compiled module.
 *
 * Without `source` the bundled `kernel.wasm` is read (from disk in Node, Deno and Bun; with
 * `fetch` elsewhere) and compiled once per process, so many indexes share one compile; in Node it
 * comes with its threads variant (see `options.threads`). On Cloudflare workerd, which forbids
 * compiling from bytes at run time, import the `.wasm` as a module and pass it here.
 *
 * @example
 * const kernel = await loadVectorKernel();          // null when SIMD is unavailable
 * const index = new FlatVectorIndex(384, kernel);
 * @example
 * import wasm from './kernel.wasm';                   // workerd: a precompiled WebAssembly.Module
 * const kernel = await loadVectorKernel(wasm);
 */
export async function loadVectorKernel(source?: VectorKernelSource, logger: Logger = silentLogger, options: LoadVectorKernelOptions = {}): Promise<VectorKernel | null> {
  const { threads = true } = options;
  const from = threads === false ? 0 : threads === true ? SPLIT_FROM : checkIntInRange('loadVectorKernel', 'options.threads.from', threads.from, 1);
  const compiled = await compile(source, from > 0 && source === undefined && isNode());
  let loaded: Loaded;
  if (compiled.module === null) {
    loaded = { kernel: null, why: compiled.why };
  } else {
    if (typeof compiled.threads === 'string') logger('debug', `vector kernel: every scan runs on one thread: ${compiled.threads}`, { error: compiled.threads });
    loaded = wrap(compiled.module, compiled.threads === null || typeof compiled.threads === 'string' ? null : { ...compiled.threads, from, logger });
  }
  if (loaded.kernel === null) logger('warn', `vector kernel unavailable, the exact scan runs in plain JavaScript: ${loaded.why}`, { error: loaded.why });
  return loaded.kernel;
}

function compile(source: VectorKernelSource | undefined, withThreads: boolean): Promise<Compiled> {
  if (source === undefined) {
    let compiling = bundled.get(withThreads);
    if (compiling === undefined) {
      compiling = fromBytes(readBundled('kernel'), withThreads ? compileThreads() : Promise.resolve(null));
      bundled.set(withThreads, compiling);
    }
    return compiling;
  }
  if (typeof WebAssembly === 'undefined') return Promise.resolve({ module: null, why: 'this runtime has no WebAssembly' });
  if (source instanceof WebAssembly.Module) return Promise.resolve({ module: source, threads: null });
  return fromBytes(Promise.resolve(source), Promise.resolve(null));
}

async function fromBytes(bytes: Promise<ArrayBuffer | Uint8Array>, threads: Promise<ThreadsPart>): Promise<Compiled> {
  try {
    if (typeof WebAssembly === 'undefined') return { module: null, why: 'this runtime has no WebAssembly' };
    // `compile` rejects when the engine lacks SIMD, which is exactly the fallback case.
    return { module: await WebAssembly.compile((await bytes) as BufferSource), threads: await threads };
  } catch (error) {
    return { module: null, why: messageOf(error) };
  }
}

/**
 * Node itself, not a runtime answering `node:` specifiers for compatibility: the helper thread is
 * a Node `Worker` running CommonJS, measured only there.
 */
function isNode(): boolean {
  const g = globalThis as { Deno?: unknown; Bun?: unknown; process?: { versions?: { node?: string } } };
  return g.process?.versions?.node !== undefined && g.Deno === undefined && g.Bun === undefined;
}

/** The threads part of a bundled load: null on one core. */
async function compileThreads(): Promise<ThreadsPart> {
  try {
    const os = await nodeBuiltin<typeof import('node:os')>('node:os');
    if (os.availableParallelism() < 2) return null;
    const [{ Worker }, bytes] = await Promise.all([
      nodeBuiltin<typeof import('node:worker_threads')>('node:worker_threads'),
      readBundled('threads'),
    ]);
    return { module: await WebAssembly.compile(bytes as BufferSource), Worker };
  } catch (error) {
    return messageOf(error);
  }
}

async function readBundled(variant: 'kernel' | 'threads'): Promise<ArrayBuffer | Uint8Array> {
  const kernel = new URL('./kernel.wasm', import.meta.url);
  // The threads variant is named relative to the kernel, not with a `new URL('./…', import.meta.url)`
  // of its own: bundlers copy every file that pattern names beside their output (with a name built
  // at run time, every file of this folder, sources included), and only Node reads this one.
  const url = variant === 'kernel' ? kernel : new URL('kernel-threads.wasm', kernel);
  if (globalThis.process?.versions?.node) {
    const fs = await nodeBuiltin<typeof import('node:fs/promises')>('node:fs/promises');
    return new Uint8Array(await fs.readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`fetching ${url.href} answered ${response.status}`);
  return response.arrayBuffer();
}

/** `kernel` itself when it is loaded already, otherwise the kernel loaded from it (the bundled one when undefined). */
export async function kernelOf(kernel: VectorKernel | VectorKernelSource | undefined): Promise<VectorKernel | null> {
  return typeof (kernel as Partial<VectorKernel> | undefined)?.instantiate === 'function' ? (kernel as VectorKernel) : loadVectorKernel(kernel as VectorKernelSource | undefined);
}

/** Checks the exports once, up front, so a wrong module becomes `null` rather than a later crash. */
function wrap(module: WebAssembly.Module, threads: ScanThreads | null): Loaded {
  try {
    const kernel: VectorKernel = {
      module,
      threads,
      instantiate() {
        const shared = threads === null ? null : sharedMemory();
        const { exports } = shared === null ? new WebAssembly.Instance(module, {}) : new WebAssembly.Instance(threads!.module, { env: { memory: shared } });
        const memory = shared ?? exports['memory'];
        const dot = exports['dot'];
        const dotI8 = exports['dot_i8'];
        const dotAt = exports['dot_at'];
        const dotI8At = exports['dot_i8_at'];
        const fiveArguments = (f: unknown) => typeof f === 'function' && f.length === 5;
        if (!(memory instanceof WebAssembly.Memory) || ![dot, dotI8, dotAt, dotI8At].every(fiveArguments)) {
          throw new TypeError('not the hybridmind vector kernel');
        }
        return {
          memory,
          dot: dot as VectorKernelInstance['dot'],
          dotI8: dotI8 as VectorKernelInstance['dotI8'],
          dotAt: dotAt as VectorKernelInstance['dotAt'],
          dotI8At: dotI8At as VectorKernelInstance['dotI8At'],
          helper: shared === null ? null : new PassHelper(threads!, shared),
        };
      },
    };
    kernel.instantiate();
    return { kernel };
  } catch (error) {
    return { kernel: null, why: messageOf(error) };
  }
}
