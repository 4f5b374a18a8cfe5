import { defaultClientConditions, type Plugin } from 'vite';
import { HNSWLIB_CHUNK, patchHnswlib } from '../legs/vector/hnswlib-patch.js';

/**
 * Vite plugin for apps that bundle `hybridmind/worker`: patches hnswlib-wasm so HNSW index bytes
 * can be saved in the store (see hnswlib-patch.ts), loads ONNX Runtime's wasm as separate files
 * (no 27 MB inlined build) and keeps the wasm packages out of dependency pre-bundling, which would
 * bypass the patch and break their `new URL(…, import.meta.url)` asset lookups. List it in both
 * `plugins` and `worker.plugins`.
 *
 * @example
 * import { hybridmind } from 'hybridmind/vite';
 * export default defineConfig({ plugins: [hybridmind()], worker: { format: 'es', plugins: () => [hybridmind()] } });
 */
export function hybridmind(): Plugin[] {
  return [
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
