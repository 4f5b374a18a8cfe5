import { readFile } from 'node:fs/promises';
import os from 'node:os';

const PACKAGES = ['@sqlite.org/sqlite-wasm', 'minisearch', 'graphology', '@huggingface/transformers', 'onnxruntime-node', '@orama/orama', 'hnswlib-wasm', 'better-sqlite3'];

async function versionOf(pkg: string): Promise<string> {
  try {
    return (JSON.parse(await readFile(new URL(`../../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

/** The machine as a report's first line names it. */
export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  /** The last-level cache; absent where Linux's sysfs does not say (and in results written before it was read). */
  l3MiB?: number;
  platform: string;
  node: string;
  versions: Record<string, string>;
}

/** A cache size as Linux's sysfs writes it ("491520K", "32M") in MiB, or undefined. */
export function cacheMiB(size: string): number | undefined {
  const match = /^(\d+)([KMG])$/.exec(size.trim());
  if (!match) return undefined;
  return (Number(match[1]) * { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30 }[match[2] as 'K' | 'M' | 'G']) / 2 ** 20;
}

/**
 * The L3 size Linux gives for the first CPU, or undefined. Reported because the working sets at
 * 100k (41 MB of int8 codes, 154 MB of f32 vectors) are of a size a large L3 holds once warm,
 * which is where the scans' speed then comes from.
 */
async function l3MiB(): Promise<number | undefined> {
  try {
    return cacheMiB(await readFile('/sys/devices/system/cpu/cpu0/cache/index3/size', 'utf8'));
  } catch {
    return undefined;
  }
}

export async function machineInfo(): Promise<Machine> {
  const l3 = await l3MiB();
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    ...(l3 === undefined ? {} : { l3MiB: l3 }),
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
    versions: Object.fromEntries(await Promise.all(PACKAGES.map(async (p) => [p, await versionOf(p)] as const))),
  };
}
