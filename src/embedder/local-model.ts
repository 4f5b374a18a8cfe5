/**
 * Node-only helpers that find the model folder `npm run model:fetch` provisions. Kept apart from
 * `transformers.ts`, and importing `node:` modules dynamically, so browser bundles never pull them in.
 */

export const DEFAULT_MODEL_ID = 'Xenova/all-MiniLM-L6-v2';

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
  /** `manifest.json` written by model:fetch (source, sha256 per file), or null when absent. */
  manifest: LocalModelManifest | null;
}

export interface LocalModelManifest {
  source: string;
  model?: string;
  files: Record<string, { bytes: number; sha256: string }>;
  [key: string]: unknown;
}

/**
 * The folder model:fetch fills: `$HYBRIDMIND_MODEL_DIR` when set, else `<cwd>/models/`.
 * Pass it as `localModelPath` to `TransformersEmbedder.create`.
 *
 * @example
 * const embedder = await TransformersEmbedder.create({
 *   localModelPath: await defaultLocalModelPath(),
 *   allowRemoteModels: false,
 * });
 */
export async function defaultLocalModelPath(): Promise<string> {
  const { resolve, sep } = await import('node:path');
  const fromEnv = process.env.HYBRIDMIND_MODEL_DIR;
  const root = resolve(fromEnv && fromEnv.trim() !== '' ? fromEnv : resolve(process.cwd(), 'models'));
  return root.endsWith(sep) ? root : root + sep;
}

/**
 * Looks for a provisioned model under `root` (default `defaultLocalModelPath()`); null when its
 * config, tokenizer or every ONNX file is missing. Does not hash files: model:fetch verified them.
 *
 * @example
 * const local = await findLocalModel();
 * if (!local) throw new Error('run `npm run model:fetch` first');
 */
export async function findLocalModel(
  options: { root?: string; modelId?: string } = {},
): Promise<LocalModel | null> {
  const { readFile, stat } = await import('node:fs/promises');
  const { join, resolve, sep } = await import('node:path');
  const modelId = options.modelId ?? DEFAULT_MODEL_ID;
  let root = options.root !== undefined ? resolve(options.root) : await defaultLocalModelPath();
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
  let manifest: LocalModelManifest | null = null;
  try {
    manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as LocalModelManifest;
  } catch {
    manifest = null;
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
