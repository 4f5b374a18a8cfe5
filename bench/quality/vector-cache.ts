import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Embedder } from '../../src/index.js';

const CACHE = new URL('../.cache/', import.meta.url);

/**
 * Embeds texts once per model and keeps the raw float32 vectors on disk (gitignored
 * `bench/.cache/`), keyed by the model id and a hash of every text in order: encoding 5,000
 * abstracts takes minutes on two cores, and any change to a text or the model makes a new key.
 */
export async function cachedEmbeddings(texts: readonly string[], embedder: Embedder, log: (s: string) => void): Promise<Float32Array[]> {
  await mkdir(CACHE, { recursive: true });
  const hash = createHash('sha256').update(embedder.id);
  for (const t of texts) hash.update('\u0000').update(t);
  const file = join(CACHE.pathname, `${embedder.id.replace(/\W+/g, '_')}-${texts.length}-${hash.digest('hex').slice(0, 16)}.f32`);
  const split = (all: Float32Array) => texts.map((_, i) => all.slice(i * embedder.dim, (i + 1) * embedder.dim));
  try {
    const bytes = await readFile(file);
    const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    if (all.length === texts.length * embedder.dim) return split(all);
  } catch {
    // Not cached yet: encode below.
  }
  const t0 = performance.now();
  const flat = new Float32Array(texts.length * embedder.dim);
  for (let i = 0; i < texts.length; i += 256) {
    (await embedder.embed(texts.slice(i, i + 256))).forEach((v, j) => flat.set(v, (i + j) * embedder.dim));
    if (texts.length > 256) log(`    embedded ${Math.min(texts.length, i + 256)}/${texts.length} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  await writeFile(file, new Uint8Array(flat.buffer));
  return split(flat);
}
