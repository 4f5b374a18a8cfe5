import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Folder holding hybridmind.tgz; fixtures are installed beside it, so `file:../hybridmind.tgz` finds it. */
    consumersDir: string;
  }
}

const ROOT = resolve(import.meta.dirname, '../../..');

/**
 * A `node_modules` folder in `dir` or above it, or null. Node resolves a package from any
 * `node_modules` above the file that imports it, so one above the fixtures stands in for what they
 * install or leave out: a stray `/tmp/node_modules` (a link to the project's) once let
 * `hybridmind/mcp` load without the MCP SDK, and a Postgres consumer load the default model, in a CI run.
 */
function modulesFrom(dir: string): string | null {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'node_modules'))) return join(at, 'node_modules');
    if (dirname(at) === at) return null;
  }
}

/** Packs the package once per run (`npm pack` runs prepack, which builds dist/) for every fixture to install. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const above = modulesFrom(tmpdir());
  if (above !== null) throw new Error(`${above} is above the consumer fixtures' folder (${tmpdir()}): Node would resolve packages from it that an app installs on its own; remove it, or set TMPDIR to a folder with none above it`);
  const dir = await mkdtemp(join(tmpdir(), 'hybridmind-consumers-'));
  execFileSync('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const [tgz] = (await readdir(dir)).filter((f) => f.endsWith('.tgz'));
  if (!tgz) throw new Error(`npm pack left no tarball in ${dir}`);
  await rename(join(dir, tgz), join(dir, 'hybridmind.tgz'));
  project.provide('consumersDir', dir);
  return () => rm(dir, { recursive: true, force: true });
}
