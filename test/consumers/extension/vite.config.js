import { defineConfig } from 'vite';
import { hybridmind } from 'hybridmind/vite';

// An MV3 extension: relative URLs, no inline modulepreload script (the CSP forbids it), the model copied into dist/models/.
export default defineConfig({
  base: './',
  plugins: [hybridmind()],
  worker: { format: 'es' },
  build: { modulePreload: false, rollupOptions: { input: 'page.html' } },
});
