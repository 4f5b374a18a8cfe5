/**
 * TypeScript apps that installed the packed tarball type-check against its declarations, with none
 * of the optional peers installed, under the resolutions apps use:
 * - a web app and an edge worker (a bundler's resolution, the DOM's types);
 * - a Node server (NodeNext, Node's types and no DOM);
 * - a CommonJS app under node10 resolution, which finds the entries through `typesVersions`.
 * All three are strict, `exactOptionalPropertyTypes` included (an app forwards a value it may not
 * have, `{ kind: maybeKind }`), and do not skip declaration files, so a declaration that names a
 * peer's types (transformers.js), or a browser global Node's types lack (`Worker`, `WebAssembly`,
 * SQLite-WASM's declarations, which name both), fails here as it would in such an app.
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
    ['a CommonJS app (node10 resolution, which reads no exports map)', 'tsconfig.legacy.json'],
  ])('type-checks %s, and the calls it marks as wrong are refused', async (_name, config) => {
    const result = await run('node', [TSC, '-p', config, '--pretty', 'false'], { cwd: dir });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.code).toBe(0);
  });
});
