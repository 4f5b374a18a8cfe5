import type { Embedder } from '../src/index.js';

/** The example's dense leg: none yet, so it runs on the lexical, graph and time legs. */
export async function exampleEmbedder(): Promise<Embedder | null> {
  return null;
}
