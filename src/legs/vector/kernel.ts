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
}

/** A compiled kernel: cheap to instantiate many times, compiled once. */
export interface VectorKernel {
  readonly module: WebAssembly.Module;
  /** A fresh instance with its own memory (synchronous, so index constructors can stay sync). */
  instantiate(): VectorKernelInstance;
}


/** A kernel, or why there is none. */
type Loaded = { kernel: VectorKernel; why?: never } | { kernel: null; why: string };

let bundled: Promise<Loaded> | undefined;

/**
 * Compiles the kernel, or wraps an already compiled module.
 *
 * Without `source` the bundled `kernel.wasm` is read (from disk in Node, Deno and Bun; with
 * `fetch` elsewhere) and the result is cached for the process, so many indexes share one compile.
 * On Cloudflare workerd, which forbids compiling from bytes at run time, import the `.wasm` as a
 * module and pass it here.
 *
 * @example
 * const kernel = await loadVectorKernel();          // null when SIMD is unavailable
 * const index = new FlatVectorIndex(384, kernel);
 * @example
 * import wasm from './kernel.wasm';                   // workerd: a precompiled WebAssembly.Module
 * const kernel = await loadVectorKernel(wasm);
 */
export async function loadVectorKernel(source?: VectorKernelSource, logger: Logger = silentLogger): Promise<VectorKernel | null> {
  const loaded = await load(source);
  if (loaded.kernel === null) logger('warn', `vector kernel unavailable, the exact scan runs in plain JavaScript: ${loaded.why}`, { error: loaded.why });
  return loaded.kernel;
}

function load(source: VectorKernelSource | undefined): Promise<Loaded> {
  if (source === undefined) {
    bundled ??= fromBytes(readBundled());
    return bundled;
  }
  if (typeof WebAssembly === 'undefined') return Promise.resolve({ kernel: null, why: 'this runtime has no WebAssembly' });
  if (source instanceof WebAssembly.Module) return Promise.resolve(wrap(source));
  return fromBytes(Promise.resolve(source));
}

async function fromBytes(bytes: Promise<ArrayBuffer | Uint8Array>): Promise<Loaded> {
  try {
    if (typeof WebAssembly === 'undefined') return { kernel: null, why: 'this runtime has no WebAssembly' };
    // `compile` rejects when the engine lacks SIMD, which is exactly the fallback case.
    return wrap(await WebAssembly.compile((await bytes) as BufferSource));
  } catch (error) {
    return { kernel: null, why: messageOf(error) };
  }
}

async function readBundled(): Promise<ArrayBuffer | Uint8Array> {
  const url = new URL('./kernel.wasm', import.meta.url);
  if (globalThis.process?.versions?.node) {
    const fs = await nodeBuiltin<typeof import('node:fs/promises')>('node:fs/promises');
    return new Uint8Array(await fs.readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`fetching ${url.href} answered ${response.status}`);
  return response.arrayBuffer();
}

/** Checks the exports once, up front, so a wrong module becomes `null` rather than a later crash. */
function wrap(module: WebAssembly.Module): Loaded {
  try {
    const kernel: VectorKernel = {
      module,
      instantiate() {
        const { exports } = new WebAssembly.Instance(module, {});
        const memory = exports['memory'];
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
        };
      },
    };
    kernel.instantiate();
    return { kernel };
  } catch (error) {
    return { kernel: null, why: messageOf(error) };
  }
}
