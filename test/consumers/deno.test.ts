/**
 * Deno importing the package from the packed tarball (installed with npm, `nodeModulesDir: manual`),
 * offline: SQLite-WASM, the four legs with caller-given vectors, and a snapshot round trip; and a
 * TypeScript app type-checked by `deno check` against the packed declarations.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { installConsumer, lastJson, ROOT, runOk } from './support/consumer.js';

const DENO = join(ROOT, 'node_modules/.bin/deno');
let dir: string;
const denoEnv = () => ({ ...process.env, NO_COLOR: '1', DENO_DIR: join(dir, '.deno'), DENO_NO_UPDATE_CHECK: '1' });

beforeAll(async () => {
  ({ dir } = await installConsumer('deno'));
});

describe('Deno with the packed package', () => {
  it('opens a store, recalls through the vector and lexical legs and round-trips a snapshot', async () => {
    const result = await runOk(DENO, ['run', '--no-remote', '--allow-read', '--deny-net', '--deny-write', 'main.js'], { cwd: dir, env: denoEnv() });
    const out = lastJson<{ legsRun: string[]; ids: string[]; copied: number }>(result.stdout);
    expect(out.legsRun).toEqual(expect.arrayContaining(['vector', 'lexical']));
    expect(out.ids[0]).toBe('adr-007');
    expect(out.copied).toBe(2);
  });

  it('type-checks a TypeScript app, and refuses the call it marks as wrong', async () => {
    const result = await runOk(DENO, ['check', '--no-remote', 'types.ts'], { cwd: dir, env: denoEnv() });
    expect(result.stderr).toContain('Check');
    expect(result.stderr).not.toMatch(/error/i);
  });

  it('installs no ONNX runtime, transformers.js or MCP SDK', async () => {
    const installed = await readdir(join(dir, 'node_modules'));
    for (const heavy of ['onnxruntime-node', 'onnxruntime-web', '@huggingface', '@modelcontextprotocol']) expect(installed).not.toContain(heavy);
  });
});
