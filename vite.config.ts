import { createReadStream, existsSync, statSync } from 'node:fs';
import { cp, mkdir } from 'node:fs/promises';
import { join, normalize, resolve } from 'node:path';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { hybridmind } from './src/vite/index.js';

const MODELS = resolve('models');
/** What the browser needs of the provisioned model: the q8 ONNX file, config and tokenizer. */
export const BROWSER_MODEL_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'];

/**
 * Serves `models/` at `/models/` in dev and preview (a missing file is a real 404, so ONNX Runtime
 * never parses an HTML page) and copies the browser's model files into the build.
 */
export function localModels(outModels?: string): Plugin {
  const serve = (server: { middlewares: { use: (path: string, fn: (req: { url?: string }, res: import('node:http').ServerResponse, next: () => void) => void) => void } }) => {
    server.middlewares.use('/models', (req, res, next) => {
      const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0]!));
      const file = join(MODELS, path);
      if (!file.startsWith(MODELS)) return next();
      if (!existsSync(file) || !statSync(file).isFile()) {
        res.statusCode = 404;
        res.end('not found');
        return;
      }
      res.setHeader('Content-Type', file.endsWith('.json') ? 'application/json' : 'application/octet-stream');
      res.setHeader('Content-Length', statSync(file).size);
      createReadStream(file).pipe(res);
    });
  };
  return {
    name: 'hybridmind:local-models',
    configureServer: serve,
    configurePreviewServer: serve,
    async closeBundle() {
      if (!outModels) return;
      for (const model of ['Xenova/all-MiniLM-L6-v2']) {
        for (const f of BROWSER_MODEL_FILES) {
          const from = join(MODELS, model, f);
          if (!existsSync(from)) continue;
          await mkdir(join(outModels, model, f, '..'), { recursive: true });
          await cp(from, join(outModels, model, f));
        }
      }
    },
  };
}

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
  plugins: vitest ? [] : [...hybridmind(), localModels(resolve('build/demo/models')), demoAtRoot()],
  worker: { format: 'es', plugins: () => hybridmind() },
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
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
