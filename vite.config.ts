import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { hybridmind } from './src/vite/index.js';

const vitest = process.env.VITEST !== undefined;

export default defineConfig({
  // `mpa`: no SPA fallback, so a missing model file is a 404 instead of index.html with status 200.
  appType: 'mpa',
  plugins: vitest ? [] : hybridmind({ models: { dir: resolve('models') } }),
  worker: { format: 'es', plugins: () => hybridmind({ models: false }) },
  server: { port: 5173, strictPort: true, fs: { allow: ['.'] } },
  // Found up front, so the dev server never reloads a page to add a dependency it discovered late.
  optimizeDeps: { entries: ['demo/index.html', 'e2e/fixtures/harness.html'], include: ['comlink', 'fflate', 'graphology', 'minisearch', 'stemmer'] },
  preview: { port: 4173, strictPort: true },
  build: {
    outDir: 'build/demo',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    rollupOptions: { input: { demo: resolve('demo/index.html'), harness: resolve('e2e/fixtures/harness.html') } },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The packed-package fixtures run under their own config (test/consumers/vitest.config.ts).
    exclude: ['test/consumers/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
