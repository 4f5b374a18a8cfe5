import type { FeatureExtractionPipeline, ProgressInfo, env as transformersEnv } from '@huggingface/transformers';
import { HybridMindError, invalid, show } from '../errors.js';
import { checkIntInRange } from '../util/int-checks.js';
import { silentLogger, type Logger } from '../logger.js';
import { DEFAULT_MODEL_ID } from './model-id.js';
import { loadTransformers } from './transformers-module.js';
import type { Embedder } from './types.js';
import { validateTexts } from './validate.js';

export type TransformersDtype = 'fp32' | 'q8';

/** One step of model loading, as transformers.js reports it (per file: initiate → download → progress → done). */
export interface ModelLoadProgress {
  status: string;
  file?: string | undefined;
  /** Percent of this file, 0–100, while downloading. */
  progress?: number | undefined;
  loaded?: number | undefined;
  total?: number | undefined;
}

/** Options of `TransformersEmbedder.create`. Every field is optional. */
export interface TransformersEmbedderOptions {
  /** Hub id, or a folder name under `localModelPath`. Default `'Xenova/all-MiniLM-L6-v2'` (384-d). */
  modelId?: string | undefined;
  /**
   * `fp32` loads `onnx/model.onnx`, `q8` loads `onnx/model_quantized.onnx` (4× smaller, ~2× faster,
   * cosine ≈ 0.99 to fp32). Default: `fp32` in Node (onnxruntime-node makes it fast enough and it is
   * exact), `q8` elsewhere (browsers, workers: smaller download, WASM is slower). The dtype is part of
   * `id`, so a store never mixes the two; pass it explicitly to share a store across runtimes.
   */
  dtype?: TransformersDtype | undefined;
  /** Folder holding `<modelId>/config.json`, … (e.g. `defaultLocalModelPath()` in Node, `/models/` on the web). */
  localModelPath?: string | undefined;
  /** `false` never touches the network: the model must be under `localModelPath`. Default `true`. */
  allowRemoteModels?: boolean | undefined;
  /** Where downloaded files are cached in Node (transformers.js `cache_dir`). */
  cacheDir?: string | undefined;
  /** Texts per inference call. Default 32. */
  batchSize?: number | undefined;
  /** Model loading progress (transformers.js `progress_callback`). */
  onProgress?: ((event: ModelLoadProgress) => void) | undefined;
  logger?: Logger | undefined;
}

export const DEFAULT_TRANSFORMERS_MODEL = DEFAULT_MODEL_ID;
const DEFAULT_BATCH_SIZE = 32;
const MAX_BATCH_SIZE = 4096;
const POOLING = { pooling: 'mean', normalize: true } as const;

type TransformersEnvironment = typeof transformersEnv;
type EnvKey = 'allowLocalModels' | 'allowRemoteModels' | 'localModelPath' | 'useFSCache' | 'useBrowserCache';
type EnvSnapshot = Partial<Pick<TransformersEnvironment, EnvKey>>;

/** transformers.js keeps its settings in one global `env`: loads take turns so they cannot see each other's. */
let loadQueue: Promise<unknown> = Promise.resolve();

function runtimeDefaultDtype(): TransformersDtype {
  const node = typeof process !== 'undefined' ? process.versions?.node : undefined;
  return typeof node === 'string' ? 'fp32' : 'q8';
}

function toProgress(info: ProgressInfo): ModelLoadProgress {
  const raw = info as unknown as Record<string, unknown>;
  const event: ModelLoadProgress = { status: String(raw.status) };
  if (typeof raw.file === 'string') event.file = raw.file;
  for (const key of ['progress', 'loaded', 'total'] as const) {
    if (typeof raw[key] === 'number') event[key] = raw[key];
  }
  return event;
}

function validateOptions(o: TransformersEmbedderOptions): void {
  const m = 'TransformersEmbedder.create';
  if (o === null || typeof o !== 'object') throw invalid(m, 'options must be an object', o);
  if (o.modelId !== undefined && (typeof o.modelId !== 'string' || o.modelId.trim() === '')) {
    throw invalid(m, 'modelId must be a non-empty string', o.modelId);
  }
  if (o.dtype !== undefined && o.dtype !== 'fp32' && o.dtype !== 'q8') throw invalid(m, "dtype must be 'fp32' or 'q8'", o.dtype);
  for (const key of ['localModelPath', 'cacheDir'] as const) {
    const v = o[key];
    if (v !== undefined && (typeof v !== 'string' || v === '')) throw invalid(m, `${key} must be a non-empty string`, v);
  }
  if (o.allowRemoteModels !== undefined && typeof o.allowRemoteModels !== 'boolean') {
    throw invalid(m, 'allowRemoteModels must be a boolean', o.allowRemoteModels);
  }
  const b = o.batchSize;
  if (b !== undefined) checkIntInRange(m, 'batchSize', b, 1, MAX_BATCH_SIZE);
  for (const key of ['onProgress', 'logger'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'function') throw invalid(m, `${key} must be a function`, o[key]);
  }
}

/** Indices of `texts` from shortest to longest: batches of similar length waste little on padding. */
export function lengthOrder(texts: readonly string[]): number[] {
  return texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length || a - b);
}

/**
 * Sentence embeddings computed on device by transformers.js (ONNX Runtime): feature extraction, mean
 * pooling over the attention mask, L2-normalised, exactly like sentence-transformers.
 *
 * @example
 * // Node, offline, with the folder `npx hybridmind model fetch` provisions:
 * const embedder = await TransformersEmbedder.create({
 *   localModelPath: await defaultLocalModelPath(),
 *   allowRemoteModels: false,
 * });
 * const [v] = await embedder.embed(['car engine repair']); // Float32Array(384)
 */
export class TransformersEmbedder implements Embedder {
  /** `${modelId}:${dtype}`, e.g. `Xenova/all-MiniLM-L6-v2:q8`. */
  readonly id: string;
  readonly dim: number;
  readonly modelId: string;
  readonly dtype: TransformersDtype;
  readonly batchSize: number;
  #extractor: FeatureExtractionPipeline;
  #logger: Logger;
  /** Inference calls take turns: two concurrent runs would only fight over the same cores. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(extractor: FeatureExtractionPipeline, dim: number, modelId: string, dtype: TransformersDtype,
    batchSize: number, logger: Logger) {
    this.#extractor = extractor;
    this.dim = dim;
    this.modelId = modelId;
    this.dtype = dtype;
    this.batchSize = batchSize;
    this.#logger = logger;
    this.id = `${modelId}:${dtype}`;
  }

  /**
   * Loads the model (downloading it first when allowed and not cached) and checks that it runs.
   * Throws INVALID_ARGUMENT for bad options, EMBEDDER when the model cannot be loaded or run.
   *
   * @example
   * const embedder = await TransformersEmbedder.create({ dtype: 'q8', onProgress: (p) => showLoading(p.file, p.progress) });
   */
  static async create(options: TransformersEmbedderOptions = {}): Promise<TransformersEmbedder> {
    const m = 'TransformersEmbedder.create';
    validateOptions(options);
    const modelId = options.modelId ?? DEFAULT_TRANSFORMERS_MODEL;
    const dtype = options.dtype ?? runtimeDefaultDtype();
    const logger = options.logger ?? silentLogger;
    const allowRemote = options.allowRemoteModels ?? true;
    const where = options.localModelPath ?? (allowRemote ? 'the hub' : 'transformers.js’ default local path');
    const started = Date.now();
    const transformers = await loadTransformers(m);
    let extractor: FeatureExtractionPipeline;
    try {
      extractor = await withEnv(transformers.env, options, allowRemote, () =>
        transformers.pipeline('feature-extraction', modelId, {
          dtype,
          local_files_only: !allowRemote,
          ...(options.cacheDir !== undefined ? { cache_dir: options.cacheDir } : {}),
          ...(options.onProgress ? { progress_callback: (p: ProgressInfo) => options.onProgress?.(toProgress(p)) } : {}),
        }),
      ) as FeatureExtractionPipeline;
    } catch (cause) {
      throw new HybridMindError('EMBEDDER', m,
        `could not load ${show(modelId)} (dtype ${dtype}) from ${where}: ${(cause as Error)?.message ?? show(cause)}`, { cause });
    }
    let dim: number;
    try {
      // one probe run: proves the session works and gives the output width whatever the config says
      const probe = await extractor('dimension probe', POOLING);
      dim = probe.dims.at(-1) ?? 0;
      const hidden = (extractor.model.config as unknown as { hidden_size?: unknown }).hidden_size;
      if (typeof hidden === 'number' && hidden !== dim) {
        throw new Error(`config.json says hidden_size ${hidden} but the model outputs ${dim} values`);
      }
      if (dim <= 0) throw new Error(`the model output has shape ${show(probe.dims)}`);
    } catch (cause) {
      await extractor.dispose().catch(() => {});
      throw new HybridMindError('EMBEDDER', m, `${show(modelId)} (dtype ${dtype}) loaded but does not run: ${(cause as Error)?.message ?? show(cause)}`, { cause });
    }
    logger('info', `${m}: loaded ${modelId}:${dtype} (${dim}-d) in ${Date.now() - started} ms`, { modelId, dtype, dim, from: where });
    return new TransformersEmbedder(extractor, dim, modelId, dtype, options.batchSize ?? DEFAULT_BATCH_SIZE, logger);
  }

  /**
   * One L2-normalised vector per text, in input order. Texts longer than the model's limit (256
   * tokens for all-MiniLM-L6-v2) are truncated. Throws INVALID_ARGUMENT unless given an array of
   * strings, EMBEDDER when inference fails.
   *
   * @example
   * const [a, b] = await embedder.embed(['automobile maintenance', 'car engine repair']);
   */
  async embed(texts: string[]): Promise<Float32Array[]> {
    validateTexts('TransformersEmbedder.embed', texts);
    const run = this.#queue.then(() => this.#embedSorted(texts));
    this.#queue = run.catch(() => {});
    return run;
  }

  /**
   * Tokens per text by the model's tokenizer ([CLS] and [SEP] included, no truncation), what a
   * prompt budget measured in this model's tokens needs.
   *
   * @example
   * const [n] = await embedder.countTokens(['ADR-007: SQLite-WASM on OPFS']);
   */
  async countTokens(texts: string[]): Promise<number[]> {
    validateTexts('TransformersEmbedder.countTokens', texts);
    return texts.map((t) => this.#extractor.tokenizer.encode(t).length);
  }

  /** Frees the ONNX session; the embedder cannot be used afterwards. */
  async dispose(): Promise<void> {
    await this.#queue;
    await this.#extractor.dispose();
  }

  async #embedSorted(texts: string[]): Promise<Float32Array[]> {
    const out = new Array<Float32Array>(texts.length);
    const order = lengthOrder(texts);
    for (let start = 0; start < order.length; start += this.batchSize) {
      const indices = order.slice(start, start + this.batchSize);
      let data: ArrayLike<number>;
      let dims: number[];
      try {
        const tensor = await this.#extractor(indices.map((i) => texts[i]!), POOLING);
        data = tensor.data as ArrayLike<number>;
        dims = tensor.dims;
      } catch (cause) {
        throw new HybridMindError('EMBEDDER', 'TransformersEmbedder.embed',
          `inference failed on a batch of ${indices.length} texts: ${(cause as Error)?.message ?? show(cause)}`, { cause });
      }
      if (dims[0] !== indices.length || dims[1] !== this.dim) {
        throw new HybridMindError('DIMENSION_MISMATCH', 'TransformersEmbedder.embed',
          `expected ${indices.length}×${this.dim} values, the model returned shape ${show(dims)}`);
      }
      indices.forEach((textIndex, row) => {
        const vector = new Float32Array(this.dim);
        for (let j = 0, k = row * this.dim; j < this.dim; j++, k++) vector[j] = data[k]!;
        out[textIndex] = vector;
      });
    }
    this.#logger('debug', `TransformersEmbedder.embed: ${texts.length} texts`, { count: texts.length });
    return out;
  }
}

/**
 * Applies the options that transformers.js only reads from its global `env` for one load, then puts
 * the caller's values back, so other pipelines in the same app keep their settings.
 */
async function withEnv<T>(env: TransformersEnvironment, o: TransformersEmbedderOptions, allowRemote: boolean,
  load: () => Promise<T>): Promise<T> {
  const turn = loadQueue.then(async () => {
    const saved: EnvSnapshot = {};
    const set = <K extends EnvKey>(key: K, value: TransformersEnvironment[K]) => {
      if (!(key in saved)) (saved as Record<string, unknown>)[key] = env[key];
      env[key] = value;
    };
    if (o.localModelPath !== undefined) {
      set('allowLocalModels', true);
      set('localModelPath', /[\\/]$/.test(o.localModelPath) ? o.localModelPath : `${o.localModelPath}/`);
    }
    if (!allowRemote) {
      // local_files_only alone is not enough: transformers.js 4.3 still fetches config.json remotely.
      // Nothing will be downloaded, and a stale cached copy must not shadow the local folder.
      set('allowRemoteModels', false);
      set('allowLocalModels', true);
      set('useFSCache', false);
      set('useBrowserCache', false);
    }
    try {
      return await load();
    } finally {
      Object.assign(env, saved);
    }
  });
  loadQueue = turn.catch(() => {});
  return turn;
}
