import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Folder holding hybridmind.tgz; fixtures are installed beside it, so `file:../hybridmind.tgz` finds it. */
    consumersDir: string;
  }
}

const ROOT = resolve(import.meta.dirname, '../../..');

/** Packs the package once per run (`npm pack` runs prepack, which builds dist/) for every fixture to install. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'hybridmind-consumers-'));
  execFileSync('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const [tgz] = (await readdir(dir)).filter((f) => f.endsWith('.tgz'));
  if (!tgz) throw new Error(`npm pack left no tarball in ${dir}`);
  await rename(join(dir, tgz), join(dir, 'hybridmind.tgz'));
  project.provide('consumersDir', dir);
  return () => rm(dir, { recursive: true, force: true });
}
