import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { expect, inject } from 'vitest';
import { installConsumer, lastJson, runOk } from './consumer.js';

/**
 * The Node.js LTS line that Node users run today (Node 20, this machine's, reached its end of
 * life in April 2026): the `node` and `mcp` fixtures run on it too, with the better-sqlite3 major npm
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

/** A runtime the Node fixtures run on, and the better-sqlite3 major npm installs on it. */
export interface NodeTarget {
  label: string;
  /** Added to a fixture's name for the fixture whose package.json pins this runtime's better-sqlite3; '' for the fixture itself. */
  suffix: string;
  betterSqlite3: RegExp;
  runtime: () => Promise<NodeRuntime>;
}

export const NODE_TARGETS: NodeTarget[] = [
  { label: `this machine's Node (${process.version})`, suffix: '', betterSqlite3: /^12\./, runtime: async () => HOST_NODE },
  { label: `Node ${NODE_LTS} from npm`, suffix: '-lts', betterSqlite3: /^13\./, runtime: () => installNode(NODE_LTS) },
];

/** Fixture `name` installed for `target`: its own package.json on this machine's Node, `name` + suffix's over `name`'s files on another. */
export async function installOn(name: string, target: NodeTarget): Promise<{ dir: string; node: NodeRuntime }> {
  const node = await target.runtime();
  const { dir } = await installConsumer(`${name}${target.suffix}`, { ...(target.suffix === '' ? {} : { base: name }), env: node.env });
  return { dir, node };
}

/** Checks that an app in `dir` runs on `node`'s Node with the better-sqlite3 major `target` expects. */
export async function expectRunsOn(dir: string, node: NodeRuntime, target: NodeTarget): Promise<void> {
  const probe = await runOk('node', ['-e', "console.log(JSON.stringify({ node: process.version, betterSqlite3: require('better-sqlite3/package.json').version }))"], { cwd: dir, env: node.env });
  const report = lastJson<{ node: string; betterSqlite3: string }>(probe.stdout);
  expect(report.node).toBe(node.version);
  expect(report.betterSqlite3).toMatch(target.betterSqlite3);
}
