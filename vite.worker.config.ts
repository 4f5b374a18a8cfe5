import { posix, resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { hybridmind } from './src/vite/index.js';

/**
 * Vite wraps every dynamic import of an app entry in its preload helper, whose error path calls
 * `window.dispatchEvent`; it leaves the helper out only of bundles it builds as workers, and this
 * entry is a worker built as an entry. In a worker that path has no `window`, so a chunk that fails
 * to load (transformers.js, hnswlib) reported "window is not defined" instead of its own error.
 * With modulePreload off the helper has nothing to preload, so it is replaced by the bare import.
 */
function workerPreloadHelper(): Plugin {
  const id = '\0vite/preload-helper.js';
  return {
    name: 'hybridmind:worker-preload-helper',
    enforce: 'pre',
    resolveId: (source) => (source === id ? id : null),
    load: (loaded) => (loaded === id ? 'export const __vitePreload = (load) => load();' : null),
  };
}

/**
 * This bundle is built once more by every app that uses it, and the build here folds ONNX
 * Runtime's `let e = URL; new e("ort.wasm.min.mjs", import.meta.url)` (its own file, looked up only
 * when it runs from a `file:` URL), written so that bundlers pass it by, into `new URL(…)`: every
 * app's `vite build` then warned that `ort.wasm.min.mjs` "doesn't exist at build time". Once the
 * chunks are final, a URL relative to `import.meta.url` that names no file of this bundle gets the
 * `@vite-ignore` mark Vite honours; the URLs of this bundle's own files (SQLite, ONNX Runtime, the
 * kernel) stay as they are, for the app's build to copy. (Node built-ins stay out of its sight
 * through `nodeBuiltin`, whose specifier is a parameter this build does not fold.)
 */
function runtimeLookups(): Plugin {
  return {
    name: 'hybridmind:runtime-lookups',
    enforce: 'post',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        const dir = posix.dirname(chunk.fileName);
        chunk.code = chunk.code.replace(/\bnew URL\((["'`])([^"'`$]+)\1,\s*import\.meta\.url\)/g, (whole, quote: string, url: string) =>
          posix.join(dir, url) in bundle ? whole : `new URL(/* @vite-ignore */ ${quote}${url}${quote}, import.meta.url)`);
      }
    },
  };
}

/**
 * Builds the ready-to-use worker bundle `dist/worker/` (`hybridmind/worker`): one ES module plus
 * the wasm files it loads beside it (SQLite, ONNX Runtime; hnswlib's wasm is inline in its chunk).
 */
export default defineConfig({
  plugins: [workerPreloadHelper(), ...hybridmind({ models: false }), runtimeLookups()],
  worker: { format: 'es', plugins: () => hybridmind({ models: false }) },
  // Relative: the bundle finds its wasm files beside itself wherever a consumer's build puts it.
  base: './',
  build: {
    outDir: 'dist/worker',
    emptyOutDir: true,
    target: 'es2022',
    minify: true,
    assetsInlineLimit: 0,
    // A worker has no document: Vite's preload helper for dynamic imports (transformers.js's chunk) reads one.
    modulePreload: false,
    chunkSizeWarningLimit: 5000,
    rollupOptions: {
      input: { 'memory.worker': resolve('worker/memory.worker.ts') },
      preserveEntrySignatures: 'strict',
      // The library loads SQLite-WASM and transformers.js with `import()` so that edge bundles, which
      // cannot run them, never reach them; the worker needs both from its start and imports them
      // statically, so here those imports cannot split anything, as intended.
      checks: { ineffectiveDynamicImport: false },
      output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js', assetFileNames: 'assets/[name]-[hash][extname]' },
    },
  },
});
