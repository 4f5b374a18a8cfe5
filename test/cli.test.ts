/**
 * The `hybridmind` command as users run it (`node cli/hybridmind.mjs`, what `npx hybridmind` starts),
 * against the real cache the suite's setup provisioned and against an empty one.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = resolve(import.meta.dirname, '../cli/hybridmind.mjs');
let scratch: string;

const hybridmind = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const { HYBRIDMIND_CACHE_DIR: _c, HYBRIDMIND_MODEL_SOURCE: _s, ...base } = process.env;
  return spawnSync('node', [CLI, ...args], { env: { ...base, ...env }, encoding: 'utf8', timeout: 120_000 });
};

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'hybridmind-cli-'));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('hybridmind model', () => {
  it('fetch reuses the verified cache and links it to --out', async () => {
    const out = join(scratch, 'models');
    const run = hybridmind(['model', 'fetch', '--out', out]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('cache hit');
    const path = hybridmind(['model', 'path']);
    expect(path.status).toBe(0);
    const cached = path.stdout.trim();
    const linked = join(out, 'Xenova/all-MiniLM-L6-v2');
    expect((await readdir(join(linked, 'onnx'))).sort()).toEqual(['model.onnx', 'model_quantized.onnx']);
    expect((await stat(join(linked, 'onnx/model.onnx'))).size).toBe((await stat(join(cached, 'onnx/model.onnx'))).size);
  });

  it('path exits 1 and names the fetch command when the cache is empty', () => {
    const run = hybridmind(['model', 'path'], { HYBRIDMIND_CACHE_DIR: join(scratch, 'empty') });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npx hybridmind model fetch');
  });

  it('refuses unknown commands, arguments and sources with exit code 2, naming what it received, then the usage', () => {
    const refusals: Array<[string[], string]> = [
      [['model', 'fetch', '--source', 'ftp'], '--source must be auto, hub or pypi, received "ftp"'],
      [['model', 'fetch', '--bogus'], 'unknown argument "--bogus"'],
      [['model', 'fetch', '--out'], '--out needs a value'],
      [['model', 'path', '--bogus'], 'model path takes no arguments, received "--bogus"'],
      [['nonsense'], 'unknown command "nonsense"'],
      [['model', 'show'], 'unknown command "model show"'],
    ];
    for (const [args, message] of refusals) {
      const run = hybridmind(args);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(new RegExp(`^hybridmind: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\nusage:`));
      expect(run.stdout).toBe('');
    }
    const help = hybridmind(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage:/);
  });
});
