import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * The packed-package suite: globalSetup runs `npm pack` once (prepack builds dist/), and every
 * fixture here installs that tarball with npm and runs the way its users would.
 */
export default defineConfig({
  root: resolve(import.meta.dirname, '../..'),
  test: {
    include: ['test/consumers/**/*.test.ts'],
    globalSetup: ['test/consumers/support/pack.ts'],
    testTimeout: 300_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // The fixtures install and build in parallel otherwise, and two cores are all there is.
    fileParallelism: false,
  },
});
