/** The worker hands transformers.js in as a loader (its own chunk), so a store without a model never evaluates it. */
import { describe, expect, it } from 'vitest';
import { HybridMindError } from '../src/errors.js';
import { findLocalModel } from '../src/embedder/local-model.js';
import { TransformersEmbedder } from '../src/embedder/transformers.js';
import { provideTransformers, type TransformersModule } from '../src/embedder/transformers-module.js';
import { skipWithoutModel } from './support/embedders.js';

const local = await findLocalModel();
describe.skipIf(skipWithoutModel(local !== null && local.dtypes.includes('q8')))(
  `provideTransformers with a loader${local ? '' : ' (skipped: run npm run model:fetch)'}`,
  () => {
    it('calls the loader when a model is created, not before, and embeds through what it loaded', async () => {
      let loads = 0;
      provideTransformers(async () => {
        loads++;
        return (await import('@huggingface/transformers')) as TransformersModule;
      });
      expect(loads).toBe(0);
      const embedder = await TransformersEmbedder.create({ localModelPath: local!.root, allowRemoteModels: false, dtype: 'q8' });
      try {
        expect(loads).toBe(1);
        const [vector] = await embedder.embed(['which ADR covers storage?']);
        expect(vector).toHaveLength(384);
        expect(Math.hypot(...vector!)).toBeCloseTo(1, 5);
      } finally {
        await embedder.dispose();
      }
    });

    it('reports a loader that fails as EMBEDDER, with its error as the cause', async () => {
      const failure = new Error('chunk failed to load');
      provideTransformers(async () => {
        throw failure;
      });
      const err = await TransformersEmbedder.create({ localModelPath: local!.root, allowRemoteModels: false, dtype: 'q8' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HybridMindError);
      expect((err as HybridMindError).code).toBe('EMBEDDER');
      expect((err as Error).message).toBe('TransformersEmbedder.create: could not load transformers.js: chunk failed to load');
      expect((err as Error).cause).toBe(failure);
    });
  },
);
