import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { hybridmind } from './src/vite/index.js';

/**
 * Builds the ready-to-use worker bundle `dist/worker/` (`hybridmind/worker`): one ES module plus
 * the wasm files it loads beside it (SQLite, ONNX Runtime; hnswlib's wasm is inline in its chunk).
 */
export default defineConfig({
  plugins: hybridmind({ models: false }),
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
