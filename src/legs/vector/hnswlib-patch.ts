/**
 * hnswlib-wasm 0.8.2 is built for the web only and keeps its file system private: an index can be
 * saved only to IndexedDB through IDBFS. HybridMind stores index bytes itself (in SQLite), so it
 * needs the in-memory file system. This is the one string patch that gives it, applied to the
 * package's internal chunk: at build time by the Vite plugin (`hybridmind/vite`), at load time in
 * Node and Deno. It is checked against the pinned version; a mismatch fails loudly, never silently.
 */

/** The chunk inside `hnswlib-wasm/dist/` that holds the Emscripten module (pinned 0.8.2). */
export const HNSWLIB_CHUNK = 'hnswlib-317962d7.js';

/** The patched module exposes the Emscripten FS under this name. */
export const FS_PROPERTY = '__hybridmindFS';

const ENV_CHECK = "if (!(typeof window == 'object' || typeof importScripts == 'function')) throw new Error('not compiled for this environment";
const RUN = '\nrun();\n';
const MARK = '/* hybridmind:patched */';

/** True when `code` is the hnswlib chunk this patch was written for (or already patched). */
export function isHnswlibChunk(code: string): boolean {
  return code.includes(MARK) || (code.includes(ENV_CHECK) && code.includes(RUN) && code.includes('var FS = {'));
}

/**
 * Exposes `FS` on the module object and lets the web build run where neither `window` nor
 * `importScripts` exists (Node, Deno); the environment check is the only web-specific code on the
 * path HybridMind uses (the wasm is inlined, nothing is fetched).
 */
export function patchHnswlib(code: string): string {
  if (code.includes(MARK)) return code;
  if (!isHnswlibChunk(code)) throw new Error('hnswlib-wasm: unexpected chunk contents; HybridMind pins hnswlib-wasm 0.8.2');
  // The package's source map no longer matches, and Node cannot resolve it against a data: URL.
  const source = code.replace(/\/\/# sourceMappingURL=\S+\s*$/, '');
  const at = source.lastIndexOf(RUN);
  const head = source.slice(0, at).replace(ENV_CHECK, "if (false) throw new Error('not compiled for this environment");
  return `${MARK}${head}\nObject.defineProperty(Module, '${FS_PROPERTY}', { value: FS });${source.slice(at)}`;
}
