import { defineConfig } from 'vite';
import { hybridmind } from 'hybridmind/vite';

// An app that bundles the engine from the main entry: the plugin patches hnswlib-wasm and keeps the wasm packages out of pre-bundling.
export default defineConfig({ plugins: [hybridmind({ models: false })], worker: { format: 'es', plugins: () => hybridmind({ models: false }) } });
