import { createReadStream, existsSync, statSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import type { Plugin, ResolvedConfig } from 'vite';
import { DEFAULT_MODEL_ID, defaultLocalModelPath, findLocalModel } from '../embedder/local-model.js';

/** What a browser needs of the provisioned model: the q8 ONNX file (the worker's default), config and tokenizer. */
export const BROWSER_MODEL_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'];

export interface ModelServingOptions {
  /** Folder holding `Xenova/all-MiniLM-L6-v2/` (a `localModelPath`). Default: `./models` when it has the model, else the user cache `npx hybridmind model fetch` fills. */
  dir?: string | undefined;
  /** URL path the worker loads from (its `localModelPath`). Default `/models/`. */
  base?: string | undefined;
}

type Middlewares = { use: (path: string, fn: (req: { url?: string | undefined }, res: ServerResponse, next: () => void) => void) => void };

/**
 * Serves the provisioned model in `vite` dev and `vite preview` (a missing file is a real 404, so
 * ONNX Runtime never parses an HTML fallback page) and copies the browser's files into the build's
 * `models/`. Warns, naming the command, when the model is not provisioned.
 */
export function modelServing(options: ModelServingOptions = {}): Plugin {
  const base = `/${(options.base ?? '/models/').replace(/^\/+|\/+$/g, '')}`;
  let root: string | null = null;
  let config: ResolvedConfig | null = null;
  const locate = async (warn: (msg: string) => void) => {
    root = resolve(options.dir ?? await defaultLocalModelPath());
    if (!(await findLocalModel({ root }))) {
      warn(`hybridmind: ${DEFAULT_MODEL_ID} is not provisioned in ${root}; run \`npx hybridmind model fetch\` (the dense leg stays off until then)`);
    }
  };
  const serve = (server: { middlewares: Middlewares; config: ResolvedConfig }) => {
    server.middlewares.use(base, (req, res, next) => {
      const path = decodeURIComponent((req.url ?? '/').split('?')[0]!).replace(/^\/+/, '');
      const [owner, name, ...rest] = path.split('/');
      const file = rest.join('/');
      if (!root || `${owner}/${name}` !== DEFAULT_MODEL_ID || !(BROWSER_MODEL_FILES.includes(file) || file === 'onnx/model.onnx')) return next();
      const full = join(root, DEFAULT_MODEL_ID, file);
      if (!existsSync(full) || !statSync(full).isFile()) {
        res.statusCode = 404;
        res.end('not found');
        return;
      }
      res.setHeader('Content-Type', file.endsWith('.json') ? 'application/json' : 'application/octet-stream');
      res.setHeader('Content-Length', statSync(full).size);
      createReadStream(full).pipe(res);
    });
  };
  let copied = false;
  return {
    name: 'hybridmind:models',
    configResolved(resolved) {
      config = resolved;
    },
    async configureServer(server) {
      await locate((msg) => server.config.logger.warn(msg));
      serve(server);
    },
    async configurePreviewServer(server) {
      await locate((msg) => server.config.logger.warn(msg));
      serve(server);
    },
    async closeBundle() {
      if (copied || !config || config.command !== 'build' || config.build.ssr) return;
      copied = true;
      await locate((msg) => config!.logger.warn(msg));
      const from = join(root!, DEFAULT_MODEL_ID);
      const to = join(resolve(config.root, config.build.outDir), base.slice(1), DEFAULT_MODEL_ID);
      for (const file of BROWSER_MODEL_FILES) {
        if (!existsSync(join(from, file))) continue;
        await mkdir(dirname(join(to, file)), { recursive: true });
        await copyFile(join(from, file), join(to, file));
      }
    },
  };
}
