import { TransformersEmbedder, type Embedder } from '../../src/index.js';
import { findLocalModel } from '../../src/node.js';
import { HashEmbedder } from './hash-embedder.js';

let real: Promise<Embedder | null> | undefined;

/**
 * all-MiniLM-L6-v2 from the folder `npm run model:fetch` provisions, loaded through the same
 * `TransformersEmbedder` users run. Null when the model is missing, which fails under CI.
 */
export function realEmbedder(): Promise<Embedder | null> {
  real ??= (async () => {
    const local = await findLocalModel();
    if (!local) {
      if (process.env.CI) throw new Error('the model is not provisioned: run `npm run model:fetch`');
      return null;
    }
    return TransformersEmbedder.create({ localModelPath: local.root, allowRemoteModels: false, dtype: 'fp32' });
  })();
  return real;
}

export const modelAvailable = (await findLocalModel()) !== null || Boolean(process.env.CI);

/**
 * For `describe.skipIf` / `it.skipIf` on tests that need something the model provisioning makes:
 * skipped, and reported as skipped, where it is missing; never under CI, where those tests run and
 * fail loudly instead.
 */
export const skipWithoutModel = (ready: boolean): boolean => !ready && !process.env.CI;

/** The embedders the core behaviour tests run with: the deterministic one and the real model, with whether to skip each. */
export const EMBEDDERS: Array<[name: string, make: () => Promise<Embedder>, skip: boolean]> = [
  ['hash embedder', async () => new HashEmbedder(), false],
  ['all-MiniLM-L6-v2', async () => (await realEmbedder())!, !modelAvailable],
];
