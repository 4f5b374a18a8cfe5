/**
 * TypeScript apps that installed the packed tarball type-check against its declarations, with none
 * of the optional peers installed, under both resolutions apps use:
 * - a web app and an edge worker (a bundler's resolution, the DOM's types) strictly and without
 *   skipping declaration files, so a declaration that names a peer's types (transformers.js) fails
 *   here as it would in such an app;
 * - a Node server (NodeNext, Node's types, `skipLibCheck` as @tsconfig/node20 sets it).
 * Each app marks calls the declarations must refuse with @ts-expect-error, so declarations that
 * collapsed to `any` fail too.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { installConsumer, ROOT, run } from './support/consumer.js';

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const OPTIONAL_PEERS = ['@huggingface/transformers', '@modelcontextprotocol/sdk', 'better-sqlite3', 'pg', 'vite'];

let dir: string;

beforeAll(async () => {
  ({ dir } = await installConsumer('typescript'));
});

describe('a TypeScript app from the packed package', () => {
  it('installs none of the optional peers', async () => {
    for (const peer of OPTIONAL_PEERS) {
      await expect(access(join(dir, 'node_modules', peer)), peer).rejects.toThrow();
    }
  });

  it.each([
    ['a web app and an edge worker (bundler resolution)', 'tsconfig.json'],
    ['a Node server (NodeNext resolution)', 'tsconfig.node.json'],
  ])('type-checks %s, and the calls it marks as wrong are refused', async (_name, config) => {
    const result = await run('node', [TSC, '-p', config, '--pretty', 'false'], { cwd: dir });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.code).toBe(0);
  });
});
