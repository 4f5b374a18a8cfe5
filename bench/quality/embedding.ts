import type { Embedder } from '../../src/index.js';
import { PARAPHRASES } from './synthetic.js';

const SENTENCES = PARAPHRASES.flat();

export interface EmbeddingThroughput {
  embedderId: string;
  texts: number;
  batchedPerSec: number;
  oneByOnePerSec: number;
  ratio: number;
}

/** The same sentences through the embedder in one call (it batches inside) and one call per text. */
export async function measureEmbedding(embedder: Embedder, count = 256): Promise<EmbeddingThroughput> {
  const texts = Array.from({ length: count }, (_, i) => `${SENTENCES[i % SENTENCES.length]} (note ${i})`);
  await embedder.embed(texts.slice(0, 8));
  let t0 = performance.now();
  await embedder.embed(texts);
  const batched = performance.now() - t0;
  t0 = performance.now();
  for (const t of texts) await embedder.embed([t]);
  const single = performance.now() - t0;
  return { embedderId: embedder.id, texts: count, batchedPerSec: count / (batched / 1000), oneByOnePerSec: count / (single / 1000), ratio: single / batched };
}
