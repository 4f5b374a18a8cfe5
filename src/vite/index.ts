import { defaultClientConditions, type Plugin } from 'vite';
import { HNSWLIB_CHUNK, patchHnswlib } from '../legs/vector/hnswlib-patch.js';
import { modelServing, type ModelServingOptions } from './models.js';

export { BROWSER_MODEL_FILES, type ModelServingOptions } from './models.js';

export interface HybridmindPluginOptions {
  /** Serve the provisioned model at `/models/` in dev and preview and copy it into the build; `false` leaves the model to you. Default on. */
  models?: ModelServingOptions | false | undefined;
}

/**
 * Vite plugin for apps that use `hybridmind/worker`: serves the model `npx hybridmind model fetch`
 * provisioned at `/models/` (dev and preview) and copies it into the build. For apps that bundle
 * the engine from source in their own worker it also patches hnswlib-wasm so HNSW index bytes can
 * be saved in the store (see hnswlib-patch.ts), loads ONNX Runtime's wasm as separate files (no
 * 27 MB inlined build) and keeps the wasm packages out of dependency pre-bundling, which would
 * bypass the patch and break their `new URL(…, import.meta.url)` asset lookups; such apps list it
 * in `worker.plugins` too.
 *
 * @example
 * import { hybridmind } from 'hybridmind/vite';
 * export default defineConfig({ plugins: [hybridmind()], worker: { format: 'es' } });
 */
export function hybridmind(options: HybridmindPluginOptions = {}): Plugin[] {
  return [
    ...(options.models === false ? [] : [modelServing(options.models ?? {})]),
    {
      name: 'hybridmind:hnswlib-patch',
      enforce: 'pre',
      transform(code, id) {
        if (!id.includes('hnswlib-wasm') || !id.split('?')[0]!.endsWith(HNSWLIB_CHUNK)) return null;
        return { code: patchHnswlib(code), map: null };
      },
    },
    {
      name: 'hybridmind:config',
      config() {
        return {
          resolve: {
            conditions: [...defaultClientConditions, 'onnxruntime-web-use-extern-wasm'],
            // transformers.js imports the WebGPU build; the plain wasm build is half the size and all a CPU needs.
            alias: [{ find: /^onnxruntime-web\/webgpu$/, replacement: 'onnxruntime-web/wasm' }],
          },
          optimizeDeps: { exclude: ['@sqlite.org/sqlite-wasm', 'hnswlib-wasm', '@huggingface/transformers', 'onnxruntime-web'] },
        };
      },
    },
  ];
}
