import { resolve } from 'node:path';
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
 * Builds the ready-to-use worker bundle `dist/worker/` (`hybridmind/worker`): one ES module plus
 * the wasm files it loads beside it (SQLite, ONNX Runtime; hnswlib's wasm is inline in its chunk).
 */
export default defineConfig({
  plugins: [workerPreloadHelper(), ...hybridmind({ models: false })],
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
      output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js', assetFileNames: 'assets/[name]-[hash][extname]' },
    },
  },
});
