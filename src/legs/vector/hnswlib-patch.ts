/**
 * hnswlib-wasm 0.8.2 is built for the web only and keeps its file system private: an index can be
 * saved only to IndexedDB through IDBFS. HybridMind stores index bytes itself (in SQLite), so it
 * needs the in-memory file system. These string patches give it, applied to the package's internal
 * chunk: at build time by the Vite plugin (`hybridmind/vite`), at load time in Node and Deno. Each
 * is checked against the pinned version; a mismatch fails loudly, never silently.
 */

/** The chunk inside `hnswlib-wasm/dist/` that holds the Emscripten module (pinned 0.8.2). */
export const HNSWLIB_CHUNK = 'hnswlib-317962d7.js';

/** The patched module exposes the Emscripten FS under this name. */
export const FS_PROPERTY = '__hybridmindFS';

const ENV_CHECK = "if (!(typeof window == 'object' || typeof importScripts == 'function')) throw new Error('not compiled for this environment";
const RUN = '\nrun();\n';
const MARK = '/* hybridmind:patched */';

/**
 * Emscripten formats a stack trace for every file-system error it creates (the library's static
 * init makes one; every failed path lookup another) and for every C++ exception it throws (each
 * `writeIndex` throws one, HybridMind's save expects it). Nothing reads those stacks: a file-system
 * error is caught inside the module, and `hnswError` keeps only an exception's message. In Node
 * with source maps on (tsx, ts-node, `--enable-source-maps`) each trace is mapped frame by frame,
 * and a frame of this module is named by its 2 MB `data:` URL: loading the library took ~517 ms
 * instead of ~175, and every save ~75 ms more (`writeIndex` of 100 vectors: ~6 ms).
 */
const STACK_PATCHES: ReadonlyArray<readonly [string, string]> = [
  ['          if (this.stack) {\n            // Define the stack property for Node.js 4', '          if (false) {\n            // Define the stack property for Node.js 4'],
  ['new WebAssembly.Exception(getCppExceptionTag(), [ex], {traceStack: true})', 'new WebAssembly.Exception(getCppExceptionTag(), [ex], {traceStack: false})'],
];

/**
 * The package is a debug build: for each runtime symbol it leaves out it defines a getter on
 * `globalThis` that warns when read, whose closure holds the whole module instance. The first
 * instance in a realm was never collected, so the float32 copy of the vectors in its heap (~165
 * MiB at 100k) outlived the graph the dense leg had read out of it and let go (`walked-graph.ts`);
 * it also left ~150 stray names on the host's global object. Nothing here reads them.
 */
const GLOBAL_PATCHES: ReadonlyArray<readonly [string, string]> = [
  ["function missingGlobal(sym, msg) {\n  if (typeof globalThis !== 'undefined') {", "function missingGlobal(sym, msg) {\n  if (false) {"],
  ["function missingLibrarySymbol(sym) {\n  if (typeof globalThis !== 'undefined' && !Object.getOwnPropertyDescriptor(globalThis, sym)) {", "function missingLibrarySymbol(sym) {\n  if (false) {"],
];

const PATCHES = [...STACK_PATCHES, ...GLOBAL_PATCHES];

/** True when `code` is the hnswlib chunk this patch was written for (or already patched). */
export function isHnswlibChunk(code: string): boolean {
  return code.includes(MARK) || (code.includes(ENV_CHECK) && code.includes(RUN) && code.includes('var FS = {') && PATCHES.every(([from]) => code.includes(from)));
}

/**
 * Exposes `FS` on the module object, lets the web build run where neither `window` nor
 * `importScripts` exists (Node, Deno; the environment check is the only web-specific code on the
 * path HybridMind uses: the wasm is inlined, nothing is fetched), stops the stack traces nobody
 * reads (`STACK_PATCHES`) and the global getters that kept an instance alive (`GLOBAL_PATCHES`).
 */
export function patchHnswlib(code: string): string {
  if (code.includes(MARK)) return code;
  if (!isHnswlibChunk(code)) throw new Error('hnswlib-wasm: unexpected chunk contents; HybridMind pins hnswlib-wasm 0.8.2');
  // The package's source map no longer matches, and Node cannot resolve it against a data: URL.
  const source = code.replace(/\/\/# sourceMappingURL=\S+\s*$/, '');
  const at = source.lastIndexOf(RUN);
  const head = PATCHES.reduce((text, [from, to]) => text.replace(from, to), source.slice(0, at).replace(ENV_CHECK, "if (false) throw new Error('not compiled for this environment"));
  return `${MARK}${head}\nObject.defineProperty(Module, '${FS_PROPERTY}', { value: FS });${source.slice(at)}`;
}
