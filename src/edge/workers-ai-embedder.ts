import { HybridMindError, invalid, show, messageOf } from '../errors.js';
import { checkIntInRange } from '../util/int-checks.js';
import type { Embedder } from '../embedder/types.js';

/** The part of a Workers AI binding (`env.AI`) the embedder uses. */
export interface WorkersAiBinding {
  run(model: string, inputs: { text: string[] }): Promise<unknown>;
}

/** Options of `new WorkersAiEmbedder`; only `ai` is required. */
export interface WorkersAiEmbedderOptions {
  /** The `[ai]` binding, e.g. `env.AI`. */
  ai: WorkersAiBinding;
  /** A Workers AI text-embedding model. Default `@cf/baai/bge-small-en-v1.5` (384-d). */
  model?: string | undefined;
  /** Vector length; known for the `@cf/baai/bge-*` models, required for others. */
  dim?: number | undefined;
  /** Texts per `run` call. Default 100, the batch Workers AI accepts for bge models. */
  batchSize?: number | undefined;
}

const KNOWN_DIMS: Record<string, number> = {
  '@cf/baai/bge-small-en-v1.5': 384,
  '@cf/baai/bge-base-en-v1.5': 768,
  '@cf/baai/bge-large-en-v1.5': 1024,
  '@cf/baai/bge-m3': 1024,
};

const DEFAULTS = { model: '@cf/baai/bge-small-en-v1.5', batchSize: 100 };

/**
 * Embeddings from Workers AI through the Worker's `ai` binding: no key, no extra network hop.
 * The store records `workers-ai:<model>` as its embedder id.
 *
 * @example
 * const embedder = new WorkersAiEmbedder({ ai: env.AI });   // bge-small-en-v1.5, 384-d
 */
export class WorkersAiEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  readonly model: string;
  readonly #ai: WorkersAiBinding;
  readonly #batchSize: number;

  constructor(options: WorkersAiEmbedderOptions) {
    const m = 'WorkersAiEmbedder';
    if (!options || typeof options.ai?.run !== 'function') throw invalid(m, 'options.ai must be the Workers AI binding (env.AI)', options?.ai);
    const model = options.model ?? DEFAULTS.model;
    if (typeof model !== 'string' || model === '') throw invalid(m, 'options.model must be a model name', model);
    const dim = options.dim ?? KNOWN_DIMS[model];
    if (dim === undefined || !Number.isInteger(dim) || dim < 1) throw invalid(m, `options.dim must be a positive integer (it is not known for ${model})`, options.dim);
    const batchSize = options.batchSize ?? DEFAULTS.batchSize;
    checkIntInRange(m, 'options.batchSize', batchSize, 1);
    this.#ai = options.ai;
    this.model = model;
    this.dim = dim;
    this.id = `workers-ai:${model}`;
    this.#batchSize = batchSize;
  }

  /** One vector per text, in order; EMBEDDER when the binding fails or answers in another shape. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    const method = 'WorkersAiEmbedder.embed';
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) throw invalid(method, 'texts must be an array of strings', texts);
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      const batch = texts.slice(start, start + this.#batchSize);
      let answer: unknown;
      try {
        answer = await this.#ai.run(this.model, { text: batch });
      } catch (cause) {
        throw new HybridMindError('EMBEDDER', method, `${this.model} failed: ${messageOf(cause)}`, { cause });
      }
      const data = (answer as { data?: unknown } | null)?.data;
      if (!Array.isArray(data) || data.length !== batch.length) {
        throw new HybridMindError('EMBEDDER', method, `${this.model} answered without ${batch.length} vectors in "data", received ${show(answer)}`);
      }
      for (const row of data) {
        if (!Array.isArray(row) || row.length !== this.dim) {
          throw new HybridMindError('DIMENSION_MISMATCH', method, `${this.model} returned a vector of length ${Array.isArray(row) ? row.length : show(row)}, expected ${this.dim}`);
        }
        out.push(Float32Array.from(row as number[]));
      }
    }
    return out;
  }
}
