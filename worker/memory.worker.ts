/**
 * The worker entry (`hybridmind/worker`): hosts one HybridMemory on SQLite-WASM's opfs-sahpool VFS
 * with the sentence model, for `HybridMemory.connect` on the page. Bundle it with Vite and the
 * `hybridmind/vite` plugin; the ONNX Runtime files are emitted next to it and used from there.
 */
import ortMjs from 'onnxruntime-web/ort-wasm-simd-threaded.mjs?url';
import ortWasm from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import { provideTransformers, type TransformersModule } from '../src/embedder/transformers-module.js';
import { exposeMemoryWorker } from './host.js';

/**
 * transformers.js is an optional peer of the package, but this bundle carries it, in a chunk of
 * its own: evaluating it was about a third of a worker's start (287 → 200 ms on an empty store),
 * and a store opened without a model (or before its model loads) does not need it.
 */
async function loadTransformers(): Promise<TransformersModule> {
  const { env, pipeline } = await import('@huggingface/transformers');
  // transformers.js would otherwise load ONNX Runtime's factory from a blob: URL, which an extension's
  // CSP (script-src 'self') refuses; imported from its own URL it works everywhere.
  env.useWasmCache = false;
  const onnx = env.backends.onnx as { wasm?: { wasmPaths?: unknown; numThreads?: number; proxy?: boolean } };
  if (onnx.wasm) {
    onnx.wasm.wasmPaths = { mjs: new URL(ortMjs, self.location.href).href, wasm: new URL(ortWasm, self.location.href).href };
    // Threads need SharedArrayBuffer (cross-origin isolation), which neither the demo nor an extension has.
    onnx.wasm.numThreads = 1;
    onnx.wasm.proxy = false;
  }
  return { env, pipeline };
}

provideTransformers(loadTransformers);
exposeMemoryWorker();
