/** TransformersEmbedder's contract: options, errors, env hygiene, progress, ordering under concurrency. */
import { env } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import { HybridMindError } from '../src/errors.js';
import { defaultLocalModelPath, findLocalModel } from '../src/embedder/local-model.js';
import { lengthOrder, TransformersEmbedder, type ModelLoadProgress, type TransformersEmbedderOptions } from '../src/embedder/transformers.js';
import { cosine } from './embedder-bert-reference.js';
import { skipWithoutModel } from './support/embedders.js';
import { codeOf } from './support/errors.js';


describe('TransformersEmbedder.create', () => {
  const bad: Array<[string, unknown]> = [
    ['an unknown dtype', { dtype: 'fp16' }],
    ['batchSize 0', { batchSize: 0 }],
    ['a fractional batchSize', { batchSize: 2.5 }],
    ['an empty modelId', { modelId: ' ' }],
    ['a non-boolean allowRemoteModels', { allowRemoteModels: 'no' }],
    ['a non-function onProgress', { onProgress: 'log' }],
    ['an empty localModelPath', { localModelPath: '' }],
  ];
  for (const [what, options] of bad) {
    it(`rejects ${what} with INVALID_ARGUMENT`, async () => {
      expect(await codeOf(TransformersEmbedder.create(options as TransformersEmbedderOptions))).toBe('INVALID_ARGUMENT');
    });
  }

  it('fails with EMBEDDER, without a network request, when the model folder is missing, leaving transformers.js env as it was', async () => {
    const before = { ...env };
    const err = await TransformersEmbedder.create({ localModelPath: '/nonexistent/models', allowRemoteModels: false })
      .catch((e: unknown) => e);
    expect((err as HybridMindError).code).toBe('EMBEDDER');
    expect((err as Error).message).toMatch(/^TransformersEmbedder\.create: could not load "Xenova\/all-MiniLM-L6-v2"/);
    // transformers.js refused the hub and looked only on disk (a request would fail with "fetch failed").
    expect(((err as Error).cause as Error).message).toMatch(/file was not found locally at "\/nonexistent\/models\//);
    for (const key of ['allowRemoteModels', 'allowLocalModels', 'localModelPath', 'useFSCache', 'useBrowserCache'] as const) {
      expect(env[key], key).toBe(before[key]);
    }
  });
});

describe('lengthOrder', () => {
  it('orders indices from shortest to longest text, ties by position', () => {
    expect(lengthOrder(['ccc', 'a', 'bb', 'd', ''])).toEqual([4, 1, 3, 2, 0]);
  });
});

describe('defaultLocalModelPath', () => {
  it('honours HYBRIDMIND_MODEL_DIR, else <cwd>/models/', async () => {
    const saved = process.env.HYBRIDMIND_MODEL_DIR;
    try {
      process.env.HYBRIDMIND_MODEL_DIR = '/srv/models';
      expect(await defaultLocalModelPath()).toBe('/srv/models/');
      delete process.env.HYBRIDMIND_MODEL_DIR;
      expect(await defaultLocalModelPath()).toBe(`${process.cwd()}/models/`);
    } finally {
      if (saved === undefined) delete process.env.HYBRIDMIND_MODEL_DIR;
      else process.env.HYBRIDMIND_MODEL_DIR = saved;
    }
  });
});

const local = await findLocalModel();
describe.skipIf(skipWithoutModel(local !== null && local.dtypes.includes('q8')))(
  `TransformersEmbedder with the provisioned model${local ? '' : ' (skipped: run npm run model:fetch)'}`,
  () => {
    it('reports loading progress per file and logs the load', async () => {
      const events: ModelLoadProgress[] = [];
      const logs: string[] = [];
      const embedder = await TransformersEmbedder.create({
        localModelPath: local!.root, allowRemoteModels: false, dtype: 'q8',
        onProgress: (e) => events.push(e), logger: (level, msg) => logs.push(`${level} ${msg}`),
      });
      await embedder.dispose();
      const done = new Set(events.filter((e) => e.status === 'done').map((e) => e.file));
      for (const file of ['config.json', 'tokenizer.json', 'onnx/model_quantized.onnx']) expect(done, file).toContain(file);
      expect(events.at(-1)?.status).toBe('ready');
      expect(logs.some((l) => l.startsWith('info TransformersEmbedder.create: loaded Xenova/all-MiniLM-L6-v2:q8 (384-d)'))).toBe(true);
    });

    it('rejects bad texts with INVALID_ARGUMENT and keeps concurrent calls apart', async () => {
      const embedder = await TransformersEmbedder.create({ localModelPath: local!.root, allowRemoteModels: false, dtype: 'q8', batchSize: 2 });
      try {
        expect(await codeOf(embedder.embed('text' as unknown as string[]))).toBe('INVALID_ARGUMENT');
        expect(await codeOf(embedder.embed(['ok', null] as unknown as string[]))).toBe('INVALID_ARGUMENT');
        const a = ['alpha beta gamma', 'a', 'a much longer sentence about databases and migrations'];
        const b = ['car engine repair', 'stock market news'];
        const [ra, rb] = await Promise.all([embedder.embed(a), embedder.embed(b)]);
        const [sa, sb] = [await embedder.embed(a), await embedder.embed(b)];
        // q8 activations are quantised per batch, so compare loosely
        ra.forEach((v, i) => expect(cosine(v, sa[i]!)).toBeGreaterThan(0.99));
        rb.forEach((v, i) => expect(cosine(v, sb[i]!)).toBeGreaterThan(0.99));
      } finally {
        await embedder.dispose();
      }
    });
  },
);
