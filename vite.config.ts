import { resolve } from 'node:path';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { hybridmind } from './src/vite/index.js';

/** `/` answers with the demo (a redirect to `/demo/`, query kept), in dev and preview alike. */
export function demoAtRoot(): Plugin {
  const serve = (server: { middlewares: { use: (fn: (req: { url?: string }, res: import('node:http').ServerResponse, next: () => void) => void) => void } }) => {
    server.middlewares.use((req, res, next) => {
      const [path, query] = (req.url ?? '/').split('?');
      if (path !== '/' && path !== '/index.html') return next();
      res.statusCode = 302;
      res.setHeader('Location', `/demo/${query ? `?${query}` : ''}`);
      res.end();
    });
  };
  return { name: 'hybridmind:demo-at-root', configureServer: serve, configurePreviewServer: serve };
}

const vitest = process.env.VITEST !== undefined;

export default defineConfig({
  // `mpa`: no SPA fallback, so a missing model file is a 404 instead of index.html with status 200.
  appType: 'mpa',
  plugins: vitest ? [] : [...hybridmind({ models: { dir: resolve('models') } }), demoAtRoot()],
  // The demo's worker loads SQLite-WASM and transformers.js from its start: see vite.worker.config.ts's `checks`.
  worker: { format: 'es', plugins: () => hybridmind({ models: false }), rolldownOptions: { checks: { ineffectiveDynamicImport: false } } },
  server: { port: 5173, strictPort: true, fs: { allow: ['.'] } },
  // Found up front, so the dev server never reloads a page to add a dependency it discovered late.
  optimizeDeps: { entries: ['demo/index.html', 'e2e/fixtures/harness.html'], include: ['comlink', 'fflate', 'graphology', 'minisearch', 'stemmer'] },
  preview: { port: 4173, strictPort: true },
  build: {
    outDir: 'build/demo',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    rollupOptions: { input: { demo: resolve('demo/index.html'), harness: resolve('e2e/fixtures/harness.html'), differential: resolve('e2e/fixtures/differential.html') } },
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
