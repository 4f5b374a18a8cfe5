import { HybridMindError, invalid, show } from '../errors.js';
import { checkIntInRange } from '../util/int-checks.js';
import { silentLogger, type Logger } from '../logger.js';
import type { Embedder } from './types.js';
import { validateTexts } from './validate.js';
import { normalizeInPlace } from '../util/vector.js';

/**
 * `openai`: `POST {url}/v1/embeddings` with `{ model, input }` → `{ data: [{ embedding, index }] }`
 * (OpenAI, vLLM, Ollama, LM Studio, llama.cpp …). `tei`: Hugging Face Text Embeddings Inference,
 * `POST {url}/embed` with `{ inputs, truncate: true }` → `number[][]`.
 */
export type RemoteApi = 'openai' | 'tei';

/** Options of `RemoteEmbedder.create`; only `url` (and `model` for `openai`) are required. */
export interface RemoteEmbedderOptions {
  /** Server base URL, e.g. `http://127.0.0.1:8080`; a URL already ending in `/v1`, `/v1/embeddings` or `/embed` is used as is. */
  url: string;
  /** Default `'openai'`. */
  api?: RemoteApi | undefined;
  /** Model name sent to `openai` servers (required there); TEI serves one model and ignores it. */
  model?: string | undefined;
  /** What a store records as the embedder id. Default `openai:<model>` or `tei:<model or url>`. */
  id?: string | undefined;
  /** Vector length; when omitted, one probe request discovers it. Answers of another length are rejected. */
  dim?: number | undefined;
  /** Extra request headers, e.g. `{ Authorization: 'Bearer …' }`. */
  headers?: Record<string, string> | undefined;
  /** Texts per request. Default 32 (TEI's default `max_client_batch_size`). */
  batchSize?: number | undefined;
  /** Per attempt, including reading the answer. Default 30 000 ms. */
  timeoutMs?: number | undefined;
  /** Extra attempts after network errors, timeouts, 429 and 5xx (never after other 4xx). Default 3. */
  retries?: number | undefined;
  /** First backoff; doubled each retry, plus up to 25 % jitter; a 429's Retry-After wins when longer. Default 250 ms. */
  retryDelayMs?: number | undefined;
  /** L2-normalise returned vectors (the dense leg ranks by inner product). Default true. */
  normalize?: boolean | undefined;
  /** Defaults to the global `fetch` (Node 18+, browsers, Deno, workerd). */
  fetch?: typeof fetch | undefined;
  logger?: Logger | undefined;
}

const DEFAULTS = { api: 'openai' as RemoteApi, batchSize: 32, timeoutMs: 30_000, retries: 3, retryDelayMs: 250 };
const MAX_RETRY_AFTER_MS = 30_000;

function endpointFor(url: string, api: RemoteApi): string {
  const base = url.replace(/\/+$/, '');
  if (api === 'tei') return /\/embed$/.test(base) ? base : `${base}/embed`;
  if (/\/v1\/embeddings$/.test(base)) return base;
  return /\/v1$/.test(base) ? `${base}/embeddings` : `${base}/v1/embeddings`;
}

function validateOptions(o: RemoteEmbedderOptions): void {
  const m = 'RemoteEmbedder.create';
  if (o === null || typeof o !== 'object') throw invalid(m, 'options must be an object', o);
  let parsed: URL | null = null;
  try {
    parsed = typeof o.url === 'string' ? new URL(o.url) : null;
  } catch {
    parsed = null;
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol)) throw invalid(m, 'url must be an http(s) URL', o.url);
  if (o.api !== undefined && o.api !== 'openai' && o.api !== 'tei') throw invalid(m, "api must be 'openai' or 'tei'", o.api);
  if ((o.api ?? 'openai') === 'openai' && (typeof o.model !== 'string' || o.model === '')) {
    throw invalid(m, "model is required for api 'openai'", o.model);
  }
  if (o.model !== undefined && typeof o.model !== 'string') throw invalid(m, 'model must be a string', o.model);
  if (o.id !== undefined && (typeof o.id !== 'string' || o.id === '')) throw invalid(m, 'id must be a non-empty string', o.id);
  for (const key of ['dim', 'batchSize', 'timeoutMs'] as const) if (o[key] !== undefined) checkIntInRange(m, key, o[key], 1);
  for (const key of ['retries', 'retryDelayMs'] as const) if (o[key] !== undefined) checkIntInRange(m, key, o[key], 0);
  if (o.headers !== undefined && (o.headers === null || typeof o.headers !== 'object' ||
    Object.values(o.headers).some((h) => typeof h !== 'string'))) {
    throw invalid(m, 'headers must be an object of strings', o.headers);
  }
  if (o.normalize !== undefined && typeof o.normalize !== 'boolean') throw invalid(m, 'normalize must be a boolean', o.normalize);
  for (const key of ['fetch', 'logger'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'function') throw invalid(m, `${key} must be a function`, o[key]);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A failure worth another attempt (network, timeout, 429, 5xx). */
class Retryable extends Error {
  constructor(message: string, readonly retryAfterMs: number | null = null, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Embeddings from a server: OpenAI-compatible `/v1/embeddings` or Hugging Face TEI `/embed`. Batches,
 * times out, retries transient failures with exponential backoff, checks every answer (count,
 * dimension, finite numbers) and L2-normalises it.
 *
 * @example
 * const embedder = await RemoteEmbedder.create({
 *   url: 'http://127.0.0.1:8080', api: 'tei', model: 'sentence-transformers/all-MiniLM-L6-v2',
 * });
 * const [v] = await embedder.embed(['car engine repair']);
 */
export class RemoteEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  readonly api: RemoteApi;
  readonly endpoint: string;
  readonly #options: Required<Omit<RemoteEmbedderOptions, 'dim' | 'id' | 'model' | 'url' | 'api'>> & { model?: string | undefined };

  private constructor(options: RemoteEmbedderOptions, dim: number) {
    this.api = options.api ?? DEFAULTS.api;
    this.endpoint = endpointFor(options.url, this.api);
    this.dim = dim;
    this.id = options.id ?? `${this.api}:${options.model ?? this.endpoint}`;
    this.#options = {
      headers: options.headers ?? {},
      batchSize: options.batchSize ?? DEFAULTS.batchSize,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      retries: options.retries ?? DEFAULTS.retries,
      retryDelayMs: options.retryDelayMs ?? DEFAULTS.retryDelayMs,
      normalize: options.normalize ?? true,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      logger: options.logger ?? silentLogger,
      ...(options.model !== undefined ? { model: options.model } : {}),
    };
  }

  /**
   * Validates the options and, without `dim`, asks the server once for a probe's vector length.
   * Throws INVALID_ARGUMENT for bad options, EMBEDDER when the probe fails.
   *
   * @example
   * const embedder = await RemoteEmbedder.create({ url: 'https://api.openai.com/v1', model: 'text-embedding-3-small',
   *   headers: { Authorization: `Bearer ${key}` }, dim: 1536 });
   */
  static async create(options: RemoteEmbedderOptions): Promise<RemoteEmbedder> {
    validateOptions(options);
    if (options.dim !== undefined) return new RemoteEmbedder(options, options.dim);
    const probe = new RemoteEmbedder(options, 0);
    const [vector] = await probe.#request(['dimension probe'], 'RemoteEmbedder.create');
    return new RemoteEmbedder(options, vector!.length);
  }

  /**
   * One vector per text, in input order, `batchSize` texts per request. Throws INVALID_ARGUMENT unless
   * given an array of strings, DIMENSION_MISMATCH for vectors of another length, EMBEDDER for every
   * other failure (HTTP errors, timeouts after the retries, malformed answers, NaN).
   *
   * @example
   * const vectors = await embedder.embed(['first text', 'second text']);
   */
  async embed(texts: string[]): Promise<Float32Array[]> {
    validateTexts('RemoteEmbedder.embed', texts);
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.#options.batchSize) {
      out.push(...(await this.#request(texts.slice(start, start + this.#options.batchSize), 'RemoteEmbedder.embed')));
    }
    return out;
  }

  async #request(texts: string[], method: string): Promise<Float32Array[]> {
    const o = this.#options;
    const body = JSON.stringify(this.api === 'tei' ? { inputs: texts, truncate: true } : { model: o.model, input: texts });
    for (let attempt = 0; ; attempt++) {
      let failure: Retryable;
      try {
        return this.#parse(await this.#post(body), texts.length, method);
      } catch (err) {
        if (!(err instanceof Retryable)) throw err;
        failure = err;
      }
      if (attempt >= o.retries) {
        throw new HybridMindError('EMBEDDER', method,
          `${this.endpoint} failed after ${attempt + 1} attempt(s): ${failure.message}`, { cause: failure.cause ?? failure });
      }
      const backoff = o.retryDelayMs * 2 ** attempt * (1 + Math.random() * 0.25);
      const wait = Math.max(backoff, Math.min(failure.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
      o.logger('warn', `${method}: ${failure.message}; retrying in ${Math.round(wait)} ms`, { attempt: attempt + 1, endpoint: this.endpoint });
      await sleep(wait);
    }
  }

  /** One attempt: returns the parsed JSON of a 2xx answer; throws Retryable or a final EMBEDDER error. */
  async #post(body: string): Promise<unknown> {
    const o = this.#options;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), o.timeoutMs);
    let status = 0;
    let text: string;
    let retryAfter: string | null = null;
    try {
      const res = await o.fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...o.headers },
        body,
        signal: controller.signal,
      });
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      text = await res.text();
    } catch (cause) {
      if (controller.signal.aborted) throw new Retryable(`no complete answer within ${o.timeoutMs} ms`, null, { cause });
      throw new Retryable(`network error: ${(cause as Error)?.message ?? show(cause)}`, null, { cause });
    } finally {
      clearTimeout(timer);
    }
    if (status === 429 || status >= 500) {
      const seconds = retryAfter !== null ? Number(retryAfter) : NaN;
      throw new Retryable(`HTTP ${status} ${show(text)}`, Number.isFinite(seconds) ? seconds * 1000 : null);
    }
    if (status < 200 || status >= 300) {
      throw new HybridMindError('EMBEDDER', 'RemoteEmbedder.embed', `${this.endpoint} answered HTTP ${status} ${show(text)}`);
    }
    try {
      return JSON.parse(text);
    } catch (cause) {
      throw new HybridMindError('EMBEDDER', 'RemoteEmbedder.embed', `${this.endpoint} answered non-JSON ${show(text)}`, { cause });
    }
  }

  #parse(json: unknown, count: number, method: string): Float32Array[] {
    const bad = (what: string, value: unknown) =>
      new HybridMindError('EMBEDDER', method, `${this.endpoint}: ${what}, received ${show(value)}`);
    let rows: unknown[];
    if (this.api === 'tei') {
      if (!Array.isArray(json)) throw bad('expected an array of vectors', json);
      rows = json;
    } else {
      const data = (json as { data?: unknown } | null)?.data;
      if (!Array.isArray(data)) throw bad('expected { data: [{ embedding, index }] }', json);
      rows = new Array<unknown>(data.length);
      for (const [position, item] of data.entries()) {
        const index = (item as { index?: unknown } | null)?.index ?? position;
        if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= data.length || rows[index as number] !== undefined) {
          throw bad(`data[${position}].index must be a distinct integer in 0..${data.length - 1}`, index);
        }
        rows[index as number] = (item as { embedding?: unknown }).embedding;
      }
    }
    if (rows.length !== count) throw bad(`expected ${count} vectors for ${count} texts`, `${rows.length} vectors`);
    return rows.map((row, i) => this.#vector(row, i, method, bad));
  }

  #vector(row: unknown, i: number, method: string, bad: (what: string, value: unknown) => HybridMindError): Float32Array {
    if (!Array.isArray(row)) throw bad(`vector ${i} must be an array of numbers`, row);
    if (this.dim !== 0 && row.length !== this.dim) {
      throw new HybridMindError('DIMENSION_MISMATCH', method,
        `${this.endpoint}: vector ${i} has ${row.length} values, expected ${this.dim}`);
    }
    if (row.length === 0) throw bad(`vector ${i} is empty`, row);
    const vector = new Float32Array(row.length);
    for (let j = 0; j < row.length; j++) {
      const x = row[j];
      if (typeof x !== 'number' || !Number.isFinite(x)) throw bad(`vector ${i} has a non-finite value at ${j}`, x);
      vector[j] = x;
    }
    if (this.#options.normalize && !normalizeInPlace(vector)) throw bad(`vector ${i} is all zeros and cannot be normalised`, row);
    return vector;
  }
}
