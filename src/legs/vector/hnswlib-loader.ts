import { HybridMindError, messageOf } from '../../errors.js';
import { FS_PROPERTY, HNSWLIB_CHUNK, patchHnswlib } from './hnswlib-patch.js';
import { nodeBuiltin } from '../../util/node-builtin.js';

/** The parts of hnswlib-wasm's `HierarchicalNSW` HybridMind uses (0.8.2 signatures). */
export interface HnswNative {
  initIndex(maxElements: number, m: number, efConstruction: number, randomSeed: number): void;
  readIndex(filename: string, maxElements: number): void;
  writeIndex(filename: string): void;
  resizeIndex(maxElements: number): void;
  addPoint(point: Float32Array, label: number, replaceDeleted: boolean): void;
  addPoints(points: Float32Array[], labels: number[], replaceDeleted: boolean): void;
  markDelete(label: number): void;
  unmarkDelete(label: number): void;
  searchKnn(query: Float32Array, k: number, filter: ((label: number) => boolean) | undefined): { distances: number[]; neighbors: number[] };
  getMaxElements(): number;
  getCurrentCount(): number;
  setEfSearch(ef: number): void;
  delete(): void;
}

interface EmscriptenFs {
  /** Emscripten's file systems by name (its in-memory one holds the files hnswlib writes). */
  filesystems?: { MEMFS?: Memfs | undefined } | null | undefined;
  mkdir(path: string): void;
  readFile(path: string): Uint8Array;
  /** `canOwn`: the file takes `data` itself instead of a copy (it must not change while the file exists). */
  writeFile(path: string, data: Uint8Array, options?: { canOwn?: boolean | undefined }): void;
  unlink(path: string): void;
  analyzePath(path: string): { exists: boolean };
  lookupPath?(path: string): { node: MemfsNode };
}

interface MemfsNode {
  contents: Uint8Array | null;
}

interface Memfs {
  expandFileStorage(node: MemfsNode, capacity: number): void;
  /** The file's bytes as a view of the buffer it keeps them in (its used length, no copy). */
  getFileDataAsTypedArray?(node: MemfsNode): Uint8Array;
}

/** A loaded hnswlib-wasm module with its in-memory file system. */
export interface Hnswlib {
  HierarchicalNSW: new (space: 'ip' | 'l2' | 'cosine', dim: number, autoSaveFilename: string) => HnswNative;
  getExceptionMessage(error: unknown): [string, string];
  readonly fs: EmscriptenFs;
}

/** Where hnswlib-wasm reads and writes index files (its own fixed prefix). */
export const HNSW_DIR = '/hnswlib-index';

let importing: Promise<Factory> | undefined;

/**
 * A fresh instance of hnswlib-wasm, with a heap of its own: WebAssembly memory never shrinks, so
 * a graph's float32 copy of the vectors is given back only when its whole instance is dropped
 * (the dense leg reads the graph's links out and lets the instance go, see `walked-graph.ts`).
 * The module's code is imported once per JS realm. In Node and Deno the package's chunk is patched
 * while it loads; in bundles the `hybridmind/vite` plugin patched it at build time. The library's
 * C++ exceptions are `WebAssembly.Exception`s, which cannot cross a worker boundary; callers
 * translate them with `hnswError`.
 */
export async function loadHnswlib(): Promise<Hnswlib> {
  importing ??= importModule();
  try {
    const module = (await (await importing)({ print: () => {}, printErr: () => {} })) as Record<string, unknown>;
    const fs = module[FS_PROPERTY] as EmscriptenFs | undefined;
    if (!fs) {
      throw new HybridMindError('UNSUPPORTED', 'loadHnswlib',
        "hnswlib-wasm was bundled without HybridMind's patch; add the plugin from 'hybridmind/vite' to your bundler config (plugins and worker.plugins)");
    }
    if (!fs.analyzePath(HNSW_DIR).exists) fs.mkdir(HNSW_DIR);
    growFilesByDoubling(fs);
    return {
      HierarchicalNSW: module['HierarchicalNSW'] as Hnswlib['HierarchicalNSW'],
      getExceptionMessage: module['getExceptionMessage'] as Hnswlib['getExceptionMessage'],
      fs,
    };
  } catch (cause) {
    importing = undefined;
    if (cause instanceof HybridMindError) throw cause;
    throw new HybridMindError('UNSUPPORTED', 'loadHnswlib', `hnswlib-wasm failed to load: ${messageOf(cause)}`, { cause });
  }
}

/** The most a file grows by at once, bounding what doubling allocates past what the file holds. */
const MAX_GROWTH = 256 * 1024 * 1024;

/**
 * Emscripten's in-memory file system grows a file by an eighth once it passes 1 MiB, copying it
 * each time, and hnswlib's `writeIndex` writes the whole graph through it: saving HNSW over 100k
 * vectors (168 MB) took 2.7 s of the 4.2 s save, which blocks the thread. Growing by doubling (at
 * most 256 MiB at a time) copies it a few times instead of ~40. Without the file system's
 * internals (another Emscripten build) saves stay correct, only slower.
 */
function growFilesByDoubling(fs: EmscriptenFs): void {
  const memfs = fs.filesystems?.MEMFS;
  if (typeof memfs?.expandFileStorage !== 'function') return;
  const expand = memfs.expandFileStorage.bind(memfs);
  memfs.expandFileStorage = (node, capacity) => {
    const held = node.contents?.length ?? 0;
    expand(node, held >= capacity ? capacity : Math.max(capacity, held + Math.min(held, MAX_GROWTH)));
  };
}

/**
 * A file's bytes for a caller that unlinks it next, as a view of the buffer the in-memory file
 * system wrote them into: `readFile` copies them, which for an HNSW save at 100k vectors was
 * another 160 MB at the save's peak and ~80 ms of the ~1.1 s it holds the thread. Without the
 * file system's internals (another Emscripten build) it is `readFile`'s copy.
 */
export function takeFile(fs: EmscriptenFs, path: string): Uint8Array {
  const memfs = fs.filesystems?.MEMFS;
  if (typeof memfs?.getFileDataAsTypedArray !== 'function' || typeof fs.lookupPath !== 'function') return fs.readFile(path);
  return memfs.getFileDataAsTypedArray(fs.lookupPath(path).node);
}

type Factory = (moduleArg: object) => Promise<unknown>;

async function importModule(): Promise<Factory> {
  const g = globalThis as { process?: { versions?: { node?: string } }; Deno?: unknown; document?: unknown; WorkerGlobalScope?: unknown };
  const server = (g.process?.versions?.node !== undefined || g.Deno !== undefined) && g.document === undefined && g.WorkerGlobalScope === undefined;
  if (server) {
    const { createRequire } = await nodeBuiltin<typeof import('node:module')>('node:module');
    const { readFile } = await nodeBuiltin<typeof import('node:fs/promises')>('node:fs/promises');
    const file = createRequire(import.meta.url).resolve(`hnswlib-wasm/dist/${HNSWLIB_CHUNK}`);
    const code = patchHnswlib(await readFile(file, 'utf8'));
    const url = `data:text/javascript;charset=utf-8,${encodeURIComponent(code)}`;
    return ((await import(/* @vite-ignore */ url)) as { default: Factory }).default;
  }
  return ((await import('hnswlib-wasm/dist/hnswlib-317962d7.js')) as { default: Factory }).default;
}

/** Turns whatever hnswlib threw (often a `WebAssembly.Exception`) into a plain, cloneable error. */
export function hnswError(lib: Hnswlib | null, method: string, cause: unknown): HybridMindError {
  if (cause instanceof HybridMindError) return cause;
  let message: string;
  if (typeof WebAssembly !== 'undefined' && 'Exception' in WebAssembly && cause instanceof (WebAssembly as unknown as { Exception: new () => object }).Exception && lib) {
    try {
      message = lib.getExceptionMessage(cause).filter(Boolean).join(': ');
    } catch {
      message = 'a C++ exception';
    }
  } else {
    message = messageOf(cause);
  }
  return new HybridMindError('STORAGE', method, `hnswlib: ${message}`);
}
