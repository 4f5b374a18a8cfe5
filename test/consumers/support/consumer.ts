import { execFileSync, spawn } from 'node:child_process';
import { cp, lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect, inject } from 'vitest';

export const ROOT = resolve(import.meta.dirname, '../../..');
const FIXTURES = join(ROOT, 'test/consumers');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end; rejects only when it cannot start. Past `timeoutMs` its whole process
 * group is killed: `npx` runs the command it names as a grandchild, which, killed alone, kept the
 * output pipes open, so the run never ended and a hang showed as the test's own timeout, with no
 * output to read.
 */
export function run(cmd: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((done, fail) => {
    const timeoutMs = options.timeoutMs ?? 240_000;
    const child = spawn(cmd, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${timeoutMs / 1000} s with its process group, whose threads were then:\n${threadsOf(child.pid!)}]`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (error) => {
      clearTimeout(timer);
      fail(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** Every thread of the session `sid` (a detached child leads its own), with what each waits on: which process of a hung command is stuck, and where. */
function threadsOf(sid: number): string {
  try {
    return execFileSync('ps', ['-L', '--sid', String(sid), '-o', 'pid,tid,stat,wchan:32,comm,args'], { encoding: 'utf8' });
  } catch (error) {
    return `(ps failed: ${(error as Error).message})`;
  }
}

/** Like `run`, but a non-zero exit is an error carrying the output. */
export async function runOk(cmd: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<RunResult> {
  const result = await run(cmd, args, options);
  if (result.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** What Vite prints when an app's build trips over this package's files. */
const PACKAGE_WARNINGS = /node_modules\/hybridmind\/|externalized for browser compatibility|doesn't exist at build time|INEFFECTIVE_DYNAMIC_IMPORT/;

/**
 * `vite build` of a fixture, which must print no warning about this package: its prebuilt worker,
 * and the Node-only helpers its main entry reaches, once made app builds warn of Node built-ins
 * "externalized for browser compatibility" and of a URL that "doesn't exist at build time", none of
 * which the app could do anything about.
 */
export async function viteBuild(dir: string): Promise<void> {
  const { stdout, stderr } = await runOk('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: dir });
  expect(`${stdout}\n${stderr}`).not.toMatch(PACKAGE_WARNINGS);
}

/** Bytes of every file under `dir`, symlinks counted as links (what `du --apparent-size` would say). */
export async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await treeBytes(path);
    else total += (await lstat(path)).size;
  }
  return total;
}

/**
 * Copies fixture `name` next to the packed tarball and installs it with npm, as its users would
 * (`file:../hybridmind.tgz` stands for `hybridmind` from the registry). Records the size of its
 * node_modules in test-results/consumers/<name>.json for the README's table. `base` is a fixture
 * copied first, whose files `name`'s replace (its own package.json, say); `env` is what npm runs with.
 */
export async function installConsumer(name: string, { base, env }: { base?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ dir: string; nodeModulesBytes: number }> {
  const dir = join(inject('consumersDir'), name);
  if (base !== undefined) await cp(join(FIXTURES, base), dir, { recursive: true });
  await cp(join(FIXTURES, name), dir, { recursive: true });
  await runOk('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, timeoutMs: 480_000, ...(env ? { env } : {}) });
  const nodeModulesBytes = await treeBytes(join(dir, 'node_modules'));
  const results = join(ROOT, 'test-results/consumers');
  await mkdir(results, { recursive: true });
  await writeFile(join(results, `${name}.json`), `${JSON.stringify({ fixture: name, nodeModulesBytes, nodeModulesMB: +(nodeModulesBytes / 1e6).toFixed(1) })}\n`);
  return { dir, nodeModulesBytes };
}

/** The last line of stdout that parses as JSON: what a fixture script reports. */
export function lastJson<T>(stdout: string): T {
  const line = stdout.trim().split('\n').reverse().find((l) => l.startsWith('{'));
  if (!line) throw new Error(`no JSON line in:\n${stdout}`);
  return JSON.parse(line) as T;
}
