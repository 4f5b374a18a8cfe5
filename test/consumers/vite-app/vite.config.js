import { defineConfig } from 'vite';
import { hybridmind } from 'hybridmind/vite';

// hybridmind() serves the model `npx hybridmind model fetch` provisioned at /models/ and copies it into the build.
export default defineConfig({ plugins: [hybridmind()], worker: { format: 'es' } });
