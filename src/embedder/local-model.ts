/**
 * Node-only helpers that find the model folder `npx hybridmind model fetch` provisions. Kept apart from
 * `transformers.ts`, and loading `node:` modules only when called (`nodeBuiltin`), so browser bundles never pull them in.
 */

import { HybridMindError, messageOf } from '../errors.js';
import { nodeBuiltin } from '../util/node-builtin.js';
import { DEFAULT_MODEL_ID, FETCH_COMMAND } from './model-id.js';

export { DEFAULT_MODEL_ID };

/** What `findLocalModel` saw in a provisioned folder. */
export interface LocalModel {
  /** The folder to pass as `localModelPath` (it holds `<modelId>/`), with a trailing slash. */
  root: string;
  modelId: string;
  /** `<root>/<modelId>`. */
  dir: string;
  /** Which dtypes have their ONNX file: `fp32` is `onnx/model.onnx`, `q8` is `onnx/model_quantized.onnx`. */
  dtypes: Array<'fp32' | 'q8'>;
  /** The original checkpoint (`model.safetensors`) when the folder keeps it, for reference checks. */
  safetensorsPath: string | null;
  /** `manifest.json` written by `hybridmind model fetch` (source, sha256 per file), or null when absent (a damaged one is CORRUPT). */
  manifest: LocalModelManifest | null;
}

export interface LocalModelManifest {
  source: string;
  model?: string | undefined;
  files: Record<string, { bytes: number; sha256: string }>;
  [key: string]: unknown;
}

/**
 * The folders a provisioned model is looked for in, in order: `$HYBRIDMIND_MODEL_DIR` when set, else
 * `<cwd>/models/`, then the user cache `npx hybridmind model fetch` fills
 * (`$HYBRIDMIND_CACHE_DIR`, else `${XDG_CACHE_HOME:-~/.cache}/hybridmind`, plus `/models/`).
 * Each ends with a path separator and is what `localModelPath` takes.
 */
export async function localModelRoots(): Promise<string[]> {
  const { homedir } = await nodeBuiltin<typeof import('node:os')>('node:os');
  const { join, resolve, sep } = await nodeBuiltin<typeof import('node:path')>('node:path');
  const env = (name: string) => {
    const v = process.env[name];
    return v !== undefined && v.trim() !== '' ? v : undefined;
  };
  const slash = (p: string) => (p.endsWith(sep) ? p : p + sep);
  const explicit = env('HYBRIDMIND_MODEL_DIR');
  if (explicit) return [slash(resolve(explicit))];
  const cache = env('HYBRIDMIND_CACHE_DIR') ?? join(env('XDG_CACHE_HOME') ?? join(homedir(), '.cache'), 'hybridmind');
  return [slash(resolve(process.cwd(), 'models')), slash(resolve(cache, 'models'))];
}

/**
 * The first of `localModelRoots()` that holds the default model, else the user cache (where
 * `npx hybridmind model fetch` puts it). Pass it as `localModelPath` to `TransformersEmbedder.create`.
 *
 * @example
 * const embedder = await TransformersEmbedder.create({
 *   localModelPath: await defaultLocalModelPath(),
 *   allowRemoteModels: false,
 * });
 */
export async function defaultLocalModelPath(): Promise<string> {
  const roots = await localModelRoots();
  for (const root of roots) {
    if (await findLocalModel({ root })) return root;
  }
  return roots.at(-1)!;
}

/**
 * Looks for a provisioned model under `root` (default: each of `localModelRoots()`); null when its
 * config, tokenizer or every ONNX file is missing. Does not hash files: `hybridmind model fetch` verified them.
 *
 * @example
 * const local = await findLocalModel();
 * if (!local) throw new Error('run `npx hybridmind model fetch` first');
 */
export async function findLocalModel(
  options: { root?: string | undefined; modelId?: string | undefined } = {},
): Promise<LocalModel | null> {
  const { readFile, stat } = await nodeBuiltin<typeof import('node:fs/promises')>('node:fs/promises');
  const { join, resolve, sep } = await nodeBuiltin<typeof import('node:path')>('node:path');
  const modelId = options.modelId ?? DEFAULT_MODEL_ID;
  if (options.root === undefined) {
    for (const candidate of await localModelRoots()) {
      const found = await findLocalModel({ root: candidate, modelId });
      if (found) return found;
    }
    return null;
  }
  let root = resolve(options.root);
  if (!root.endsWith(sep)) root += sep;
  const dir = join(root, modelId);
  const isFile = async (path: string) => {
    try {
      return (await stat(path)).isFile();
    } catch {
      return false;
    }
  };
  for (const required of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) {
    if (!(await isFile(join(dir, required)))) return null;
  }
  const dtypes: Array<'fp32' | 'q8'> = [];
  if (await isFile(join(dir, 'onnx', 'model.onnx'))) dtypes.push('fp32');
  if (await isFile(join(dir, 'onnx', 'model_quantized.onnx'))) dtypes.push('q8');
  if (dtypes.length === 0) return null;
  const safetensors = join(dir, 'model.safetensors');
  const manifestPath = join(dir, 'manifest.json');
  let manifest: LocalModelManifest | null = null;
  if (await isFile(manifestPath)) {
    // A manifest that is there but unreadable says the folder was damaged: not the same as none.
    try {
      manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as LocalModelManifest;
    } catch (cause) {
      throw new HybridMindError('CORRUPT', 'findLocalModel', `${manifestPath} is not readable JSON (${messageOf(cause)}); run \`${FETCH_COMMAND}\` again`, { cause });
    }
    if (manifest === null || typeof manifest !== 'object' || typeof manifest.files !== 'object' || manifest.files === null) {
      throw new HybridMindError('CORRUPT', 'findLocalModel', `${manifestPath} has no files list; run \`${FETCH_COMMAND}\` again`);
    }
  }
  return {
    root,
    modelId,
    dir,
    dtypes,
    safetensorsPath: (await isFile(safetensors)) ? safetensors : null,
    manifest,
  };
}
