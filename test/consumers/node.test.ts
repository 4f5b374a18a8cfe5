/**
 * A Node ESM app that installed the packed tarball (with transformers.js, its optional peer) runs
 * the README's Quick tour with the dense leg on: the model comes from the user cache that the
 * package's own `npx hybridmind model fetch` provisions, with no environment variable. The same
 * app runs on this machine's Node (20, better-sqlite3 12.x compiled here) and on the current LTS
 * from npm, where npm installs better-sqlite3 13.x, which ships its own binaries.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { lastJson, run, runOk } from './support/consumer.js';
import { NODE_TARGETS, expectRunsOn, installOn, type NodeRuntime } from './support/node-runtime.js';

interface Tour {
  legsRun: string[];
  hits: Array<{ id: string; status: string; legs: string[] }>;
}

describe.each(NODE_TARGETS)('a Node app from the packed package, on $label', (target) => {
  let dir: string;
  let node: NodeRuntime;

  beforeAll(async () => {
    ({ dir, node } = await installOn('node', target));
  });

  it('runs on the Node it names, with the better-sqlite3 major npm installs there', async () => {
    await expectRunsOn(dir, node, target);
  });

  it('provisions the model with the package command, then runs the Quick tour with the dense leg', async () => {
    const fetched = await runOk('npx', ['hybridmind', 'model', 'fetch'], { cwd: dir, env: node.env });
    expect(fetched.stdout).toMatch(/ready: .*hybridmind\/models\/Xenova\/all-MiniLM-L6-v2/);
    const { HYBRIDMIND_MODEL_DIR: _dir, HYBRIDMIND_CACHE_DIR: _cache, ...env } = node.env;
    const result = await runOk('node', ['tour.mjs'], { cwd: dir, env });
    const tour = lastJson<Tour>(result.stdout.split('\n').filter((l) => l.includes('legsRun')).join('\n'));
    expect([...tour.legsRun].sort()).toEqual(['graph', 'lexical', 'time', 'vector']);
    expect(tour.hits[0]).toMatchObject({ id: 'adr-007', status: 'current' });
    expect(tour.hits[0]!.legs).toContain('vector');
    expect(tour.hits.find((h) => h.id === 'adr-003')?.status).toBe('historical');
    const asOf = lastJson<{ asOf: Array<{ id: string; status: string }> }>(result.stdout);
    expect(asOf.asOf.find((h) => h.id === 'adr-003')?.status).toBe('current');
    expect(result.stderr).not.toContain('[hybridmind]');
  });

  it('keeps a durable file store through `hybridmind/node` and better-sqlite3: a new file gets 8 KiB pages, its derived files beside it load, a reopen answers', async () => {
    const result = await runOk('node', ['file-store.mjs'], { cwd: dir, env: node.env });
    const report = lastJson<{ pageSize: number; derivedFiles: string[]; reopen: string[]; memories: number; edges: string[][]; hits: string[]; metadata: unknown[] }>(result.stdout);
    expect(report.pageSize).toBe(8192);
    expect(report.derivedFiles).toEqual(['catalog.bin', 'edge-types.bin', 'entities.bin', 'lexical.bin']);
    expect(report.reopen).toEqual(expect.arrayContaining(['loaded the saved lexical index', 'loaded the saved entity index']));
    expect(report.memories).toBe(3);
    expect(report.edges).toEqual([['adr-008', 'adr-007', 'DEPENDS_ON']]);
    expect(report.hits[0]).toBe('adr-007');
    expect(report.metadata).toEqual([{ team: 'core' }, {}, {}]);
  });

  // The app's better-sqlite3 13 declares Node >= 22; on this machine's Node 20 its addon crashes the process at its first database.
  it.runIf(target.suffix === '-lts' && Number(process.versions.node.split('.')[0]) < 22)('refuses, with a coded error naming both versions, to open a file with that better-sqlite3 under this machine\'s Node', async () => {
    const result = await run(process.execPath, ['file-store.mjs'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/MISSING_DEPENDENCY/);
    expect(result.stderr).toMatch(new RegExp(`HybridMemory\\.open: the installed better-sqlite3 13\\.\\d+\\.\\d+ supports Node >=22, and this is Node ${process.versions.node.replace(/\./g, '\\.')}`));
  });

  it('saves a large store\'s vector codes in parts and its HNSW graph without the vectors, and a reopen loads them instead of rebuilding', async () => {
    const result = await runOk('node', ['reopen.mjs'], { cwd: dir, env: node.env });
    const report = lastJson<{ saved: { ann: string[]; derived: string[] }; reopen: string[]; same: boolean }>(result.stdout);
    expect(report.saved.ann).toEqual(['dense']);
    expect(report.saved.derived).toEqual(expect.arrayContaining(['lexical', 'quantized', 'quantized#1']));
    expect(report.reopen).toEqual(expect.arrayContaining(['loaded the saved lexical index', 'loaded the saved entity index', 'opened the dense leg from its saved codes; vectors are read from the store when needed']));
    expect(report.reopen.some((m) => m.startsWith('ann: HNSW restored from saved bytes'))).toBe(true);
    expect(report.same).toBe(true);
  });

  it('ships the prebuilt worker with only the files it loads: no source copied among its assets', async () => {
    const assets = await readdir(join(dir, 'node_modules/hybridmind/dist/worker/assets'));
    expect(assets.filter((name) => !/\.(wasm|js|mjs)$/.test(name))).toEqual([]);
    expect(assets.filter((name) => name.startsWith('kernel'))).toEqual([expect.stringMatching(/^kernel-[\w-]+\.wasm$/)]);
  });

  it('splits a large exact scan\'s int8 pass with a helper thread, answers as one thread does, and exits once closed', async () => {
    const result = await runOk('node', ['threads.mjs'], { cwd: dir, env: node.env });
    const report = lastJson<{ helper: string[]; same: boolean }>(result.stdout);
    expect(report.helper).toEqual(['debug: vector scan: a helper thread shares every int8 pass over 32768 vectors or more']);
    expect(report.same).toBe(true);
  });

  it('without a provisioned model it warns by default, naming the command, and runs without the dense leg', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'hybridmind-nocache-'));
    try {
      const env: NodeJS.ProcessEnv = { ...node.env, HYBRIDMIND_CACHE_DIR: empty };
      delete env.HYBRIDMIND_MODEL_DIR;
      const result = await runOk('node', ['tour.mjs'], { cwd: dir, env });
      expect(result.stderr).toContain('npx hybridmind model fetch');
      const tour = lastJson<Tour>(result.stdout.split('\n').filter((l) => l.includes('legsRun')).join('\n'));
      expect(tour.legsRun).not.toContain('vector');

      const required = lastJson<{ code?: string; message?: string }>((await runOk('node', ['required.mjs'], { cwd: dir, env })).stdout);
      expect(required.code).toBe('EMBEDDER');
      expect(required.message).toContain('npx hybridmind model fetch');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('a CommonJS app require()s the entries (Node ≥ 20.19 loads ES modules that way) and stores and recalls', async () => {
    const result = await runOk('node', ['require.cjs'], { cwd: dir, env: node.env });
    expect(lastJson(result.stdout)).toEqual({ hits: ['order-4821'], code: 'INVALID_ARGUMENT', loaded: ['function', 'function', 'function', 'function'] });
    expect(result.stderr).toBe('');
  });

  it('hybridmind/worker in Node, hybridmind/mcp without the MCP SDK and hybridmind/postgres without pg fail with coded errors', async () => {
    const probe = (specifier: string) => run('node', ['--input-type=module', '-e',
      `import(${JSON.stringify(specifier)}).then(() => console.log('{"loaded":true}'), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })))`], { cwd: dir, env: node.env });
    const worker = lastJson<{ code: string; message: string }>((await probe('hybridmind/worker')).stdout);
    expect(worker.code).toBe('UNSUPPORTED');
    expect(worker.message).toContain('HybridMemory.open()');
    const mcp = lastJson<{ code: string; message: string }>((await probe('hybridmind/mcp')).stdout);
    expect(mcp.code).toBe('MISSING_DEPENDENCY');
    expect(mcp.message).toContain('npm install @modelcontextprotocol/sdk');
    const postgres = lastJson<{ code: string; message: string }>((await run('node', ['--input-type=module', '-e',
      "import('hybridmind/postgres').then((m) => m.PostgresMemory.open({ connection: 'postgres://localhost/x', embedder: null })).then(() => console.log('{}'), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })))"], { cwd: dir, env: node.env })).stdout);
    expect(postgres.code).toBe('MISSING_DEPENDENCY');
    expect(postgres.message).toContain('npm install pg');
  });

  it('installs the ONNX runtime only because this app asked for transformers.js, and no MCP SDK or pg', async () => {
    const installed = await readdir(join(dir, 'node_modules'));
    expect(installed).toContain('onnxruntime-node');
    expect(installed).not.toContain('@modelcontextprotocol');
    expect(installed).not.toContain('hono');
    expect(installed).not.toContain('pg');
  });
});
