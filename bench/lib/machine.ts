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

export async function machineInfo() {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
    versions: Object.fromEntries(await Promise.all(PACKAGES.map(async (p) => [p, await versionOf(p)] as const))),
  };
}
