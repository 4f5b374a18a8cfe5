// File helpers for cli/model-fetch.mjs: hashing, the manifest that proves a model folder is complete, and
// installing a verified folder somewhere else by hard link (copy across file systems).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, link, mkdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Every file a provisioned folder must hold; model.safetensors feeds the test's reference forward pass. */
export const REQUIRED_FILES = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'onnx/model.onnx',
  'onnx/model_quantized.onnx',
  'model.safetensors',
];
export const MANIFEST = 'manifest.json';
export const MANIFEST_FORMAT = 1;

export async function sha256File(path) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  return hash.digest('hex');
}

export async function exists(path) {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Hashes the folder's files and writes manifest.json; `extra` lands in the manifest as is. */
export async function writeManifest(dir, extra) {
  const files = {};
  for (const name of REQUIRED_FILES) {
    const path = join(dir, name);
    files[name] = { bytes: (await stat(path)).size, sha256: await sha256File(path) };
  }
  const manifest = { format: MANIFEST_FORMAT, ...extra, createdAt: new Date().toISOString(), files };
  await writeFile(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * Returns the folder's manifest when every required file is present with the recorded size and
 * sha256 (and `accept(manifest)` agrees), else a string saying why not.
 */
export async function verifyFolder(dir, accept = () => true) {
  let manifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8'));
  } catch {
    return 'no readable manifest.json';
  }
  if (manifest.format !== MANIFEST_FORMAT) return `manifest format ${manifest.format}, expected ${MANIFEST_FORMAT}`;
  const verdict = accept(manifest);
  if (verdict !== true) return verdict;
  for (const name of REQUIRED_FILES) {
    const want = manifest.files?.[name];
    if (!want) return `manifest lacks ${name}`;
    const path = join(dir, name);
    let size;
    try {
      size = (await stat(path)).size;
    } catch {
      return `${name} is missing`;
    }
    if (size !== want.bytes) return `${name} has ${size} bytes, manifest says ${want.bytes}`;
    if ((await sha256File(path)) !== want.sha256) return `${name} does not match its sha256`;
  }
  return manifest;
}

/** Places a verified folder's files at `to`, sharing storage where possible; the manifest goes last. */
export async function installFolder(from, to) {
  for (const name of [...REQUIRED_FILES, MANIFEST]) {
    const src = join(from, name);
    const dst = join(to, name);
    await mkdir(dirname(dst), { recursive: true });
    const [a, b] = await Promise.all([stat(src), stat(dst).catch(() => null)]);
    if (b && a.ino === b.ino && a.dev === b.dev) continue;
    if (b) await unlink(dst);
    try {
      await link(src, dst);
    } catch {
      await copyFile(src, dst);
    }
  }
}

export async function removeQuietly(path) {
  await rm(path, { recursive: true, force: true }).catch(() => {});
}
