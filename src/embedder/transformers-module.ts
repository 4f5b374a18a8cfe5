/**
 * Where the embedder gets transformers.js from. Kept apart from `transformers.ts` so the public
 * declarations never name the optional peer's types: an app that installs HybridMind without
 * transformers.js still type-checks with `skipLibCheck: false`.
 */
import { HybridMindError, show } from '../errors.js';
import { optionalImport } from '../optional-import.js';

/** The two parts of transformers.js the embedder uses; a bundle that hands them in keeps the rest tree-shaken. */
export type TransformersModule = Pick<typeof import('@huggingface/transformers'), 'pipeline' | 'env'>;
/** transformers.js itself, or a function that loads it (a bundle's own dynamic import, so a store opened without a model never evaluates it). */
export type TransformersSource = TransformersModule | (() => Promise<TransformersModule>);
let provided: TransformersSource | undefined;

/**
 * Hands in transformers.js for entries that bundle it (the prebuilt worker hands in its own
 * dynamic import, so the bundle carries it in a chunk of its own); elsewhere it is an optional
 * peer dependency loaded on first use.
 */
export function provideTransformers(source: TransformersSource): void {
  provided = source;
}

/** The module handed in, or else the optional peer; EMBEDDER when neither loads. */
export async function loadTransformers(method: string): Promise<TransformersModule> {
  if (provided === undefined) return optionalImport<TransformersModule>(method, '@huggingface/transformers', '@huggingface/transformers');
  if (typeof provided !== 'function') return provided;
  try {
    return await provided();
  } catch (cause) {
    throw new HybridMindError('EMBEDDER', method, `could not load transformers.js: ${(cause as Error)?.message ?? show(cause)}`, { cause });
  }
}
