/**
 * Runs test/deno/memory_test.ts in the real Deno 2 binary (npm package `deno`), offline: no
 * remote modules, npm packages from node_modules, network and environment denied, a dead proxy
 * and registry in case anything tried, and a fresh DENO_DIR.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const DENO = join(ROOT, 'node_modules/.bin/deno');

function run(args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(DENO, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

it('passes test/deno/memory_test.ts under the real Deno 2 binary, offline', async () => {
  const scratch = await mkdtemp(join(tmpdir(), 'hybridmind-deno-'));
  try {
    const { code, output } = await run(
      ['test', '--config', 'test/deno/deno.json', '--no-check', '--no-remote', '--allow-read', `--allow-write=${scratch}`, '--deny-net', '--deny-env', 'test/deno/memory_test.ts'],
      { NO_COLOR: '1', DENO_DIR: join(scratch, 'deno-dir'), TMPDIR: scratch, HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9', NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/', DENO_NO_UPDATE_CHECK: '1' },
      120_000,
    );
    expect(code, output).toBe(0);
    expect(output).toMatch(/ok \| 7 passed \| 0 failed/);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}, 150_000);
