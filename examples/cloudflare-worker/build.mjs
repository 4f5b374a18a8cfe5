// Bundles the example Worker for workerd / `wrangler deploy --no-bundle`: dist/worker.js + dist/kernel.wasm,
// and creates ./data, where config.capnp keeps the Durable Objects' SQLite files.
//
// `hybridmind/edge` and `hybridmind/kernel.wasm` resolve from node_modules, as in any app that
// installed the package; `--from-source` (this repository's tests) maps them to src/ instead.
//
// Every dynamic import is left out of the bundle. In hybridmind they are exactly the paths a
// Worker never takes and workerd could not run: SQLite-WASM (the default storage), hnswlib-wasm
// (HNSW), transformers.js and node: built-ins (the default embedder). Inlined, they would only
// add megabytes of dead code; left as imports they are never resolved.
import { build } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Never bundled into a Worker, not even as dead code. */
export const FORBIDDEN = ['@sqlite.org/sqlite-wasm', 'hnswlib-wasm', '@huggingface/transformers', 'onnxruntime-node', 'onnxruntime-web'];

const SOURCES = resolve(here, '../../src');

export async function buildWorker(outdir = join(here, 'dist'), { fromSource = false } = {}) {
  await mkdir(outdir, { recursive: true });
  await mkdir(join(outdir, '..', 'data'), { recursive: true });
  const kernel = fromSource ? join(SOURCES, 'legs/vector/kernel.wasm') : createRequire(join(here, 'package.json')).resolve('hybridmind/kernel.wasm');
  const result = await build({
    entryPoints: [join(here, 'worker.ts')],
    outfile: join(outdir, 'worker.js'),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    metafile: true,
    ...(fromSource ? { alias: { 'hybridmind/edge': join(SOURCES, 'edge/index.ts') } } : {}),
    logLevel: 'warning',
    plugins: [{
      name: 'workers',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) => {
          if (args.kind === 'dynamic-import') return { path: args.path, external: true };
          // The platform compiles imported .wasm modules at deploy time; the bundle refers to the copy beside it.
          if (args.path.endsWith('.wasm')) return { path: './kernel.wasm', external: true };
          return undefined;
        });
      },
    }],
  });
  await copyFile(kernel, join(outdir, 'kernel.wasm'));
  const bundled = Object.keys(result.metafile.inputs);
  const leaked = bundled.filter((input) => FORBIDDEN.some((pkg) => input.includes(`node_modules/${pkg}/`)));
  if (leaked.length > 0) throw new Error(`the Worker bundle pulled in ${leaked.join(', ')}`);
  return { outdir, metafile: result.metafile, bytes: result.metafile.outputs[Object.keys(result.metafile.outputs)[0]].bytes };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const fromSource = args.includes('--from-source');
  const out = args.find((a) => !a.startsWith('--'));
  const { outdir, bytes } = await buildWorker(out ? resolve(out) : undefined, { fromSource });
  process.stdout.write(`built ${join(outdir, 'worker.js')} (${(bytes / 1024).toFixed(0)} KiB) and kernel.wasm\n`);
}
