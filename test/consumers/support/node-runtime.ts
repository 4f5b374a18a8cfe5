import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { inject } from 'vitest';
import { runOk } from './consumer.js';

/**
 * The Node.js LTS line that Node users run today (Node 20, this machine's, reached its end of
 * life in April 2026): the `node` fixture runs on it too, with the better-sqlite3 major that npm
 * installs there (13.x, which needs Node ≥ 22).
 */
export const NODE_LTS = '26.12.1';

export interface NodeRuntime {
  /** What `node --version` prints. */
  version: string;
  /** `process.env` with that Node's folder first on PATH: `node`, `npm` and `npx` run on it. */
  env: NodeJS.ProcessEnv;
}

/** The Node this suite runs on. */
export const HOST_NODE: NodeRuntime = { version: process.version, env: process.env };

/**
 * Node `version` from npm: the official binaries as npm's `node-<os>-<arch>` packages (what the
 * `node` package installs), the one source of a runtime this machine's registry-only network has.
 * Installed next to the fixtures, so nothing outside the run changes.
 */
export async function installNode(version: string): Promise<NodeRuntime> {
  const platform = { linux: 'linux', darwin: 'darwin' }[process.platform as string];
  if (platform === undefined) throw new Error(`no npm package of Node.js binaries for ${process.platform}-${process.arch} is known to this suite`);
  const name = `node-${platform}-${process.arch}`;
  const prefix = join(inject('consumersDir'), `node-${version}`);
  await runOk('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--prefix', prefix, `${name}@${version}`], { cwd: inject('consumersDir'), timeoutMs: 480_000 });
  const bin = join(prefix, 'node_modules', name, 'bin');
  await access(join(bin, 'node'));
  return { version: `v${version}`, env: { ...process.env, PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}` } };
}
