import { HybridMindError, messageOf } from '../errors.js';
import type { Logger } from '../logger.js';
import { FETCH_COMMAND } from './model-id.js';
import type { Embedder } from './types.js';

let shared: Promise<Embedder> | undefined;

const inNode = (): boolean => typeof process !== 'undefined' && typeof process.versions?.node === 'string';

/** Node: the folder `npx hybridmind model fetch` fills, offline. Elsewhere: the hub, cached by transformers.js. */
async function load(logger: Logger): Promise<Embedder> {
  const { TransformersEmbedder } = await import('./transformers.js');
  if (!inNode()) return TransformersEmbedder.create({ logger });
  const { findLocalModel, localModelRoots } = await import('./local-model.js');
  const local = await findLocalModel();
  if (!local) {
    throw new HybridMindError('EMBEDDER', 'HybridMemory.open',
      `all-MiniLM-L6-v2 is not provisioned (looked in ${(await localModelRoots()).join(', ')}); run \`${FETCH_COMMAND}\``);
  }
  return TransformersEmbedder.create({ localModelPath: local.root, allowRemoteModels: false, logger });
}

/**
 * The embedder `HybridMemory.open()` uses when none is given: all-MiniLM-L6-v2 through
 * transformers.js (an optional peer dependency), in Node from the user cache that
 * `npx hybridmind model fetch` fills. Loaded once per JS realm, since every store would otherwise
 * hold its own 90 MB session. When it cannot be loaded: with `required` the coded error is thrown
 * (EMBEDDER, or MISSING_DEPENDENCY naming the package); otherwise a warning names the fix and the
 * store runs without a dense leg rather than failing to open.
 */
export async function defaultEmbedder(logger: Logger, required: boolean): Promise<Embedder | null> {
  shared ??= load(logger);
  try {
    return await shared;
  } catch (error) {
    shared = undefined;
    if (required) throw error;
    const reason = messageOf(error);
    logger('warn', `HybridMemory.open: the default embedder could not be loaded, so this store has no dense leg (${reason}). ` +
      `Run \`${FETCH_COMMAND}\` (and \`npm install @huggingface/transformers\` if it is missing), pass \`embedder\` to choose one, ` +
      "`embedder: 'required'` to fail instead, or `embedder: null` to silence this.", { code: error instanceof HybridMindError ? error.code : undefined });
    return null;
  }
}
