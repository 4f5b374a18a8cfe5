/**
 * TypeScript apps that installed the packed tarball type-check against its declarations, with none
 * of the optional peers installed, under the resolutions apps use:
 * - a web app and an edge worker (a bundler's resolution, the DOM's types);
 * - a Node server (NodeNext, Node's types and no DOM);
 * - a CommonJS app under node10 resolution, which finds the entries through `typesVersions`.
 * Each type-checks under TypeScript 5.9, and all but the CommonJS app under TypeScript 7 too. All are
 * strict, `exactOptionalPropertyTypes` included (an app forwards a value it may not have,
 * `{ kind: maybeKind }`), and do not skip declaration files, so a declaration that names a
 * peer's types (transformers.js), or a browser global Node's types lack (`Worker`, `WebAssembly`,
 * SQLite-WASM's declarations, which name both), fails here as it would in such an app.
 * Each app marks calls the declarations must refuse with @ts-expect-error, so declarations that
 * collapsed to `any` fail too.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { installConsumer, ROOT, run } from './support/consumer.js';

const OPTIONAL_PEERS = ['@huggingface/transformers', '@modelcontextprotocol/sdk', 'better-sqlite3', 'pg', 'vite'];

const WEB = ['a web app and an edge worker (bundler resolution)', 'tsconfig.json'] as const;
const NODE = ['a Node server (NodeNext resolution)', 'tsconfig.node.json'] as const;
const LEGACY = ['a CommonJS app (node10 resolution, which reads no exports map)', 'tsconfig.legacy.json'] as const;

/**
 * The compilers apps use: this repository's TypeScript 5, and TypeScript 7 (the native one), which
 * the app installs as a new app would today. TypeScript 7 removed node10 resolution, so the
 * CommonJS app is a TypeScript 5 app only.
 */
const COMPILERS = [
  { name: 'TypeScript 5.9', version: /^Version 5\.9\./, tsc: () => join(ROOT, 'node_modules/typescript/bin/tsc'), apps: [WEB, NODE, LEGACY] },
  { name: 'TypeScript 7', version: /^Version 7\./, tsc: () => join(dir, 'node_modules/typescript/bin/tsc'), apps: [WEB, NODE] },
];

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

  describe.each(COMPILERS)('under $name', ({ version, tsc, apps }) => {
    it('is the compiler it names', async () => {
      expect((await run('node', [tsc(), '--version'], { cwd: dir })).stdout).toMatch(version);
    });

    it.each(apps)('type-checks %s, and the calls it marks as wrong are refused', async (_name, config) => {
      const result = await run('node', [tsc(), '-p', config, '--pretty', 'false'], { cwd: dir });
      expect(`${result.stdout}${result.stderr}`).toBe('');
      expect(result.code).toBe(0);
    });
  });
});
