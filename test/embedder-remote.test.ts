/**
 * RemoteEmbedder against a real node:http server on 127.0.0.1 that speaks both APIs. The server
 * answers with the provisioned model's vectors (TransformersEmbedder, fp32) so the round trip can be
 * compared with local embeddings; without the model (outside CI) it answers with deterministic stand-in
 * vectors and only the comparison is skipped.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HybridMindError } from '../src/errors.js';
import { findLocalModel } from '../src/embedder/local-model.js';
import { RemoteEmbedder, type RemoteEmbedderOptions } from '../src/embedder/remote.js';
import { TransformersEmbedder } from '../src/embedder/transformers.js';
import { cosine } from './embedder-bert-reference.js';
import { skipWithoutModel } from './support/embedders.js';
import { codeOf } from './support/errors.js';

const TEXTS = [
  'automobile maintenance', 'car engine repair', 'stock market news', 'How do I reset my password?',
  'The meeting was moved to Thursday.', 'Alice prefers tea over coffee.', 'x', '',
  'We migrated the database to PostgreSQL.', 'Vaccines train the immune system.',
];

interface Seen { path: string; texts: string[]; headers: IncomingHttpHeaders; body: Record<string, unknown> }
/** Per-test server behaviour: `reply` may override the answer of request number `n` (0-based). */
type Reply = (n: number, texts: string[]) => { status?: number; body?: unknown; raw?: string; stall?: boolean; headers?: Record<string, string> } | null;

const local = await findLocalModel();
const hasModel = local !== null && local.dtypes.includes('fp32');
let model: TransformersEmbedder | null = null;
let server: Server;
let base: string;
let seen: Seen[] = [];
let reply: Reply = () => null;

/** Stand-in when the model is absent: deterministic, text-dependent, 384-d. */
function standIn(text: string): number[] {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619);
  return Array.from({ length: 384 }, (_, i) => Math.sin(h + i * 0.37));
}

async function vectorsFor(texts: string[]): Promise<number[][]> {
  return model ? (await model.embed(texts)).map((v) => Array.from(v)) : texts.map(standIn);
}

async function handle(path: string, body: Record<string, unknown>): Promise<{ status: number; body?: unknown; raw?: string; stall?: boolean; headers?: Record<string, string> }> {
  const texts = (path === '/embed' ? body.inputs : body.input) as string[];
  const custom = reply(seen.length - 1, texts);
  if (custom) return { status: custom.status ?? 200, ...custom };
  const vectors = await vectorsFor(texts);
  if (path === '/embed') return { status: 200, body: vectors.map((v) => v.map((x) => x * 3)) };
  // answer out of order: the client must place vectors by `index`
  const data = vectors.map((embedding, index) => ({ object: 'embedding', embedding, index })).reverse();
  return { status: 200, body: { object: 'list', model: body.model, data } };
}

beforeAll(async () => {
  if (hasModel) model = await TransformersEmbedder.create({ localModelPath: local!.root, allowRemoteModels: false, dtype: 'fp32' });
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', async () => {
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      const texts = ((req.url === '/embed' ? body.inputs : body.input) ?? []) as string[];
      seen.push({ path: req.url ?? '', texts, headers: req.headers, body });
      if (req.method !== 'POST' || (req.url !== '/embed' && req.url !== '/v1/embeddings')) {
        res.writeHead(404).end('not found');
        return;
      }
      const answer = await handle(req.url, body);
      if (answer.stall) return; // never answers; the client's timeout must fire
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.raw ?? JSON.stringify(answer.body ?? { error: 'injected' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await model?.dispose();
});

beforeEach(() => {
  seen = [];
  reply = () => null;
});

const openai = (extra: Partial<RemoteEmbedderOptions> = {}) =>
  RemoteEmbedder.create({ url: base, model: 'all-MiniLM-L6-v2', dim: 384, retryDelayMs: 1, ...extra });
const tei = (extra: Partial<RemoteEmbedderOptions> = {}) =>
  RemoteEmbedder.create({ url: base, api: 'tei', dim: 384, retryDelayMs: 1, ...extra });


if (!hasModel && process.env.CI) {
  it('has the provisioned model under CI', () => {
    throw new Error('no provisioned model (fp32): run `npm run model:fetch` before the tests');
  });
}

describe.skipIf(skipWithoutModel(hasModel))(`RemoteEmbedder returns the real model’s vectors${hasModel ? '' : ' (skipped: no model; run npm run model:fetch)'}`, () => {
  for (const api of ['openai', 'tei'] as const) {
    it(`${api}: equals the local TransformersEmbedder (cosine >= 0.9999), unit length`, async () => {
      const remote = await (api === 'openai' ? openai() : tei());
      const [got, want] = await Promise.all([remote.embed(TEXTS), model!.embed(TEXTS)]);
      for (const [i, v] of got.entries()) {
        expect(cosine(v, want[i]!), TEXTS[i]).toBeGreaterThanOrEqual(0.9999);
        expect(Math.hypot(...v)).toBeCloseTo(1, 5);
      }
    });
  }
});

describe('RemoteEmbedder requests', () => {
  it('sends the documented bodies and headers to each API', async () => {
    await (await openai({ headers: { authorization: 'Bearer t0k' } })).embed(['a', 'b']);
    await (await tei()).embed(['c']);
    expect(seen.map((s) => s.path)).toEqual(['/v1/embeddings', '/embed']);
    expect(seen[0]!.body).toEqual({ model: 'all-MiniLM-L6-v2', input: ['a', 'b'] });
    expect(seen[0]!.headers.authorization).toBe('Bearer t0k');
    expect(seen[1]!.body).toEqual({ inputs: ['c'], truncate: true });
  });

  it('accepts base URLs ending in /v1 or /embed and names itself after the model', async () => {
    const a = await RemoteEmbedder.create({ url: `${base}/v1/`, model: 'm', dim: 384 });
    const b = await RemoteEmbedder.create({ url: `${base}/embed`, api: 'tei', dim: 384, id: 'minilm' });
    expect([a.endpoint, b.endpoint]).toEqual([`${base}/v1/embeddings`, `${base}/embed`]);
    expect([a.id, b.id]).toEqual(['openai:m', 'minilm']);
  });

  it('discovers the dimension with one probe request when dim is omitted', async () => {
    const remote = await RemoteEmbedder.create({ url: base, api: 'tei' });
    expect(remote.dim).toBe(384);
    expect(seen).toHaveLength(1);
  });

  it('splits texts into batches of batchSize and keeps their order', async () => {
    const remote = await openai({ batchSize: 4 });
    const vectors = await remote.embed(TEXTS);
    expect(seen.map((s) => s.texts.length)).toEqual([4, 4, 2]);
    expect(seen.flatMap((s) => s.texts)).toEqual(TEXTS);
    const expected = await vectorsFor(TEXTS);
    vectors.forEach((v, i) => expect(cosine(v, expected[i]!)).toBeGreaterThan(0.9999));
    expect(await remote.embed([])).toEqual([]);
    expect(seen).toHaveLength(3);
  });
});

describe('RemoteEmbedder failures', () => {
  it('retries 503 and 429 with backoff, then succeeds', async () => {
    reply = (n) => (n === 0 ? { status: 503 } : n === 1 ? { status: 429, headers: { 'retry-after': '0' } } : null);
    const warnings: string[] = [];
    const remote = await openai({ retries: 3, logger: (level, msg) => level === 'warn' && warnings.push(msg) });
    expect(await remote.embed(['a'])).toHaveLength(1);
    expect(seen).toHaveLength(3);
    expect(warnings).toHaveLength(2);
  });

  it('gives up with EMBEDDER after the last retry', async () => {
    reply = () => ({ status: 502 });
    const remote = await tei({ retries: 2 });
    expect(await codeOf(remote.embed(['a']))).toBe('EMBEDDER');
    expect(seen).toHaveLength(3);
  });

  it('does not retry other 4xx answers', async () => {
    for (const status of [400, 401, 413]) {
      seen = [];
      reply = () => ({ status, body: { error: 'nope' } });
      expect(await codeOf((await openai({ retries: 3 })).embed(['a']))).toBe('EMBEDDER');
      expect(seen).toHaveLength(1);
    }
  });

  it('times out a stalled server within the bound, retrying once', async () => {
    reply = () => ({ stall: true });
    const remote = await openai({ timeoutMs: 150, retries: 1 });
    const err = await remote.embed(['a']).catch((e: unknown) => e);
    expect((err as HybridMindError).code).toBe('EMBEDDER');
    expect((err as Error).message).toMatch(/within 150 ms/);
    // Two requests, each given up after 150 ms: the server never answers, so without the timeout this would hang.
    expect(seen).toHaveLength(2);
    server.closeAllConnections();
  });

  it('retries refused connections and reports them as EMBEDDER', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const remote = await RemoteEmbedder.create({ url: `http://127.0.0.1:${port}`, api: 'tei', dim: 3, retries: 1, retryDelayMs: 1 });
    const err = await remote.embed(['a']).catch((e: unknown) => e);
    expect((err as HybridMindError).code).toBe('EMBEDDER');
    expect((err as Error).message).toMatch(/2 attempt/);
  });

  const shapes: Array<[string, 'openai' | 'tei', (texts: string[]) => unknown, string]> = [
    ['vectors of another dimension', 'tei', (t) => t.map(() => [1, 2, 3]), 'DIMENSION_MISMATCH'],
    ['NaN (JSON null) in a vector', 'tei', (t) => t.map(() => [null, ...standIn('a').slice(1)]), 'EMBEDDER'],
    ['fewer vectors than texts', 'tei', () => [standIn('a')], 'EMBEDDER'],
    ['an object instead of an array', 'tei', () => ({ embeddings: [] }), 'EMBEDDER'],
    ['an all-zero vector', 'tei', (t) => t.map(() => new Array(384).fill(0)), 'EMBEDDER'],
    ['no data field', 'openai', () => ({ embeddings: [] }), 'EMBEDDER'],
    ['duplicate indices', 'openai', (t) => ({ data: t.map(() => ({ embedding: standIn('a'), index: 0 })) }), 'EMBEDDER'],
    ['a base64 string embedding', 'openai', (t) => ({ data: t.map((_, index) => ({ embedding: 'AAAA', index })) }), 'EMBEDDER'],
  ];
  for (const [what, api, body, code] of shapes) {
    it(`rejects ${what} (${api}) with ${code}, without retrying`, async () => {
      reply = (_n, texts) => ({ body: body(texts) });
      const remote = await (api === 'openai' ? openai() : tei());
      expect(await codeOf(remote.embed(['a', 'b']))).toBe(code);
      expect(seen).toHaveLength(1);
    });
  }

  it('rejects a non-JSON answer with EMBEDDER', async () => {
    reply = () => ({ raw: '<html>oops</html>' });
    expect(await codeOf((await tei()).embed(['a']))).toBe('EMBEDDER');
  });
});

describe('RemoteEmbedder arguments', () => {
  const bad: Array<[string, unknown]> = [
    ['a missing url', { model: 'm' }],
    ['a non-http url', { url: 'ftp://x', model: 'm' }],
    ['an unknown api', { url: 'http://127.0.0.1:1', api: 'grpc' }],
    ['openai without a model', { url: 'http://127.0.0.1:1' }],
    ['batchSize 0', { url: 'http://127.0.0.1:1', model: 'm', batchSize: 0 }],
    ['a negative retries', { url: 'http://127.0.0.1:1', model: 'm', retries: -1 }],
    ['a fractional dim', { url: 'http://127.0.0.1:1', model: 'm', dim: 3.5 }],
    ['non-string headers', { url: 'http://127.0.0.1:1', model: 'm', headers: { a: 1 } }],
  ];
  for (const [what, options] of bad) {
    it(`create rejects ${what} with INVALID_ARGUMENT`, async () => {
      expect(await codeOf(RemoteEmbedder.create(options as RemoteEmbedderOptions))).toBe('INVALID_ARGUMENT');
    });
  }

  it('embed rejects anything but an array of strings with INVALID_ARGUMENT', async () => {
    const remote = await tei();
    expect(await codeOf(remote.embed('a' as unknown as string[]))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(remote.embed(['a', 2] as unknown as string[]))).toBe('INVALID_ARGUMENT');
    expect(seen).toHaveLength(0);
  });
});
