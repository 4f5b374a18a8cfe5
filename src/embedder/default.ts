import type { Logger } from '../logger.js';
import type { Embedder } from './types.js';

let shared: Promise<Embedder | null> | undefined;

const inNode = (): boolean => typeof process !== 'undefined' && typeof process.versions?.node === 'string';

/**
 * The embedder `HybridMemory.open()` uses when none is given: all-MiniLM-L6-v2 through
 * transformers.js, from the folder `npm run model:fetch` provisions when Node finds one, else from
 * the Hugging Face hub (cached by transformers.js). Loaded once per JS realm, since every store
 * would otherwise hold its own 90 MB session. Resolves to null, with a warning, when the model
 * cannot be loaded: the store then runs without a dense leg rather than failing to open.
 */
export function defaultEmbedder(logger: Logger): Promise<Embedder | null> {
  shared ??= (async () => {
    try {
      const { TransformersEmbedder } = await import('./transformers.js');
      if (inNode()) {
        const { findLocalModel } = await import('./local-model.js');
        const local = await findLocalModel();
        if (local) return await TransformersEmbedder.create({ localModelPath: local.root, allowRemoteModels: false, logger });
      }
      return await TransformersEmbedder.create({ logger });
    } catch (error) {
      shared = undefined;
      logger('warn', 'HybridMemory.open: the default embedder could not be loaded; the store has no dense leg (pass `embedder` to choose one, or null to silence this)', {
        error: error instanceof Error ? error.message : String(error),
      });
      return null;
    }
  })();
  return shared;
}
