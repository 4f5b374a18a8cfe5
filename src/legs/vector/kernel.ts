/**
 * Loads the WebAssembly SIMD inner-product kernel (`kernel.wat`, assembled to `kernel.wasm` by
 * `scripts/build-kernel.mjs`). Loading never throws and never logs: when WebAssembly, SIMD or the
 * file is unavailable it resolves to `null` and the index falls back to plain JavaScript.
 */

/** One instance of the kernel. It owns its memory, so every index gets its own instance. */
export interface VectorKernelInstance {
  readonly memory: WebAssembly.Memory;
  /**
   * Writes `n` f32 inner products of the `dim`-long query at byte offset `queryPtr` against the
   * `n` contiguous vectors starting at `basePtr`, to `outPtr`.
   */
  dot(queryPtr: number, basePtr: number, n: number, dim: number, outPtr: number): void;
}

/** A compiled kernel: cheap to instantiate many times, compiled once. */
export interface VectorKernel {
  readonly module: WebAssembly.Module;
  /** A fresh instance with its own memory (synchronous, so index constructors can stay sync). */
  instantiate(): VectorKernelInstance;
}

export type VectorKernelSource = WebAssembly.Module | ArrayBuffer | Uint8Array;

let bundled: Promise<VectorKernel | null> | undefined;

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
export function loadVectorKernel(source?: VectorKernelSource): Promise<VectorKernel | null> {
  if (source === undefined) {
    bundled ??= fromBytes(readBundled());
    return bundled;
  }
  if (typeof WebAssembly === 'undefined') return Promise.resolve(null);
  if (source instanceof WebAssembly.Module) return Promise.resolve(wrap(source));
  return fromBytes(Promise.resolve(source));
}

async function fromBytes(bytes: Promise<ArrayBuffer | Uint8Array | null>): Promise<VectorKernel | null> {
  try {
    if (typeof WebAssembly === 'undefined') return null;
    const data = await bytes;
    if (data === null) return null;
    // `compile` rejects when the engine lacks SIMD, which is exactly the fallback case.
    return wrap(await WebAssembly.compile(data as BufferSource));
  } catch {
    return null;
  }
}

async function readBundled(): Promise<ArrayBuffer | Uint8Array | null> {
  const url = new URL('./kernel.wasm', import.meta.url);
  try {
    if (globalThis.process?.versions?.node) {
      // A computed specifier keeps browser bundlers from trying to resolve a Node built-in.
      const specifier = 'node:fs/promises';
      const fs = (await import(/* @vite-ignore */ specifier)) as typeof import('node:fs/promises');
      return new Uint8Array(await fs.readFile(url));
    }
    const response = await fetch(url);
    return response.ok ? await response.arrayBuffer() : null;
  } catch {
    return null;
  }
}

/** Checks the exports once, up front, so a wrong module becomes `null` rather than a later crash. */
function wrap(module: WebAssembly.Module): VectorKernel | null {
  try {
    const kernel: VectorKernel = {
      module,
      instantiate() {
        const { exports } = new WebAssembly.Instance(module, {});
        const memory = exports['memory'];
        const dot = exports['dot'];
        if (!(memory instanceof WebAssembly.Memory) || typeof dot !== 'function' || dot.length !== 5) {
          throw new TypeError('not the hybridmind vector kernel');
        }
        return { memory, dot: dot as VectorKernelInstance['dot'] };
      },
    };
    kernel.instantiate();
    return kernel;
  } catch {
    return null;
  }
}
