/**
 * HybridMind on Cloudflare Workers: one Durable Object per memory, its SQLite the store.
 */
import kernel from 'hybridmind/kernel.wasm';
import {
  importSnapshotInto, openDurableMemory, DurableObjectDriver,
  type DurableObjectStorageLike, type Embedder, type HybridMemory, type MemoryInput, type RecallOptions,
} from 'hybridmind/edge';
import { embedderFrom, type EmbedderEnv } from './embedder.js';
import { errorResponse, HttpError, json, readBytes, readJsonObject, toVector } from './http.js';

interface DurableObjectStateLike {
  readonly storage: DurableObjectStorageLike;
  blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
}

interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

export interface Env extends EmbedderEnv {
  MEMORY: DurableObjectNamespaceLike;
  /** Largest accepted import, bytes. Default 64 MiB. */
  MAX_IMPORT_BYTES?: string;
}

const JSON_LIMIT = 8 * 1024 * 1024;

/** Verb → HTTP method; anything else under /m/:name/ is 404, a wrong method 405. */
const ROUTES: Record<string, 'GET' | 'POST'> = {
  store: 'POST', storeMany: 'POST', relate: 'POST', recall: 'POST', forget: 'POST', update: 'POST',
  stats: 'GET', export: 'GET', import: 'POST',
};
const NAME = /^[A-Za-z0-9._~-]{1,64}$/;

/** `/m/:name/:verb` → the memory's name and the verb, checked before any Durable Object is woken. */
function route(request: Request): { name: string; verb: string } {
  const parts = new URL(request.url).pathname.split('/').filter(Boolean);
  if (parts.length !== 3 || parts[0] !== 'm') throw new HttpError(404, 'ROUTE_NOT_FOUND', `no route ${new URL(request.url).pathname}; use /m/:name/:verb`);
  const [, rawName, verb] = parts as [string, string, string];
  const name = decodeURIComponent(rawName);
  if (!NAME.test(name)) throw new HttpError(400, 'INVALID_NAME', `a memory name is 1–64 letters, digits or . _ ~ -, received ${JSON.stringify(name)}`);
  const method = ROUTES[verb];
  if (!method) throw new HttpError(404, 'ROUTE_NOT_FOUND', `unknown verb ${JSON.stringify(verb)}; known: ${Object.keys(ROUTES).join(', ')}`);
  if (request.method !== method) throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${verb} takes ${method}, received ${request.method}`, { allow: method });
  return { name, verb };
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    try {
      if (new URL(request.url).pathname === '/') return json({ service: 'hybridmind', routes: Object.entries(ROUTES).map(([verb, method]) => `${method} /m/:name/${verb}`) });
      const { name } = route(request);
      return await env.MEMORY.get(env.MEMORY.idFromName(name)).fetch(request);
    } catch (error) {
      return errorResponse(error);
    }
  },
};

/** One memory. Its `HybridMemory` opens on the first request, from the indexes it saved in SQLite or by rebuilding them. */
export class MemoryObject {
  readonly #state: DurableObjectStateLike;
  readonly #env: Env;
  #embedder: Promise<Embedder | null> | null = null;
  #memory: Promise<HybridMemory> | null = null;

  constructor(state: DurableObjectStateLike, env: Env) {
    this.#state = state;
    this.#env = env;
  }

  #open(): Promise<HybridMemory> {
    this.#embedder ??= embedderFrom(this.#env).catch((error: unknown) => {
      this.#embedder = null;
      throw error;
    });
    this.#memory ??= this.#embedder.then((embedder) => openDurableMemory(this.#state.storage, { embedder, vectorKernel: kernel })).catch((error: unknown) => {
      this.#memory = null;
      throw error;
    });
    return this.#memory;
  }

  async fetch(request: Request): Promise<Response> {
    try {
      const { name, verb } = route(request);
      if (verb === 'import') return await this.#import(request);
      const mem = await this.#open();
      if (verb === 'stats') return json(await mem.stats());
      if (verb === 'export') {
        return new Response((await mem.exportSnapshot()) as Uint8Array<ArrayBuffer>, {
          headers: { 'content-type': 'application/zip', 'content-disposition': `attachment; filename="${name}.mind.zip"` },
        });
      }
      const body = await readJsonObject(request, JSON_LIMIT);
      const wait = new URL(request.url).searchParams.get('wait') === 'ready';
      switch (verb) {
        case 'store': {
          const id = await mem.store(memoryInput(body));
          if (wait) await mem.ready();
          return json({ id }, 201);
        }
        case 'storeMany': {
          if (!Array.isArray(body['memories'])) throw new HttpError(400, 'INVALID_ARGUMENT', 'storeMany takes { memories: [...] }');
          const ids = await mem.storeMany(body['memories'].map(memoryInput));
          if (wait) await mem.ready();
          return json({ ids }, 201);
        }
        case 'relate': {
          const { from, to, type, ...options } = body;
          return json({ id: await mem.relate(from as string, to as string, type as string, options) }, 201);
        }
        case 'recall': {
          const { query, queryEmbedding, ...options } = body;
          const embedding = toVector('queryEmbedding', queryEmbedding);
          return json(await mem.recallReport(query as string, { ...options, ...(embedding ? { queryEmbedding: embedding } : {}) } as RecallOptions));
        }
        case 'forget':
          await mem.forget(body['id'] as string);
          return json({ id: body['id'], forgotten: true });
        case 'update': {
          const { id, patch } = body;
          const p = (patch ?? {}) as Record<string, unknown>;
          const embedding = toVector('patch.embedding', p['embedding']);
          return json(await mem.update(id as string, { ...p, ...(embedding ? { embedding } : {}) }));
        }
      }
      throw new HttpError(404, 'ROUTE_NOT_FOUND', `unknown verb ${verb}`);
    } catch (error) {
      return errorResponse(error);
    }
  }

  /**
   * No other request runs while the content is swapped. Errors are answered inside: a callback
   * that throws out of blockConcurrencyWhile resets the whole object. On failure the transaction
   * has rolled back and the next request reopens the old content.
   */
  async #import(request: Request): Promise<Response> {
    const bytes = await readBytes(request, Number(this.#env.MAX_IMPORT_BYTES ?? 64 * 1024 * 1024));
    return this.#state.blockConcurrencyWhile(async () => {
      try {
        const previous = this.#memory;
        this.#memory = null;
        await (await previous?.catch(() => null))?.close();
        const embedder = await (this.#embedder ?? embedderFrom(this.#env));
        const manifest = await importSnapshotInto(new DurableObjectDriver(this.#state.storage), bytes, { embedder });
        await this.#open();
        return json({ imported: manifest.counts, dim: manifest.dim, embedderId: manifest.embedderId, createdAt: manifest.createdAt });
      } catch (error) {
        return errorResponse(error);
      }
    });
  }
}

/** A memory as JSON: the same fields as `MemoryInput`, the vector as an array of numbers. */
function memoryInput(value: unknown): MemoryInput {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new HttpError(400, 'INVALID_ARGUMENT', 'a memory must be a JSON object with at least "text"');
  const { embedding, ...rest } = value as Record<string, unknown>;
  const vector = toVector('embedding', embedding);
  return { ...rest, ...(vector ? { embedding: vector } : {}) } as MemoryInput;
}
