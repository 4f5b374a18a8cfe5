import type { Embedder } from '../../src/embedder/types.js';

/**
 * A small deterministic embedder for tests that must not depend on the real model: feature
 * hashing of lower-cased words and character trigrams, L2-normalised. Texts that share words
 * or spellings get similar vectors; texts that share none are nearly orthogonal — which is what
 * the multi-hop tests need (a vector leg that cannot bridge a chain).
 */
export class HashEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  calls = 0;

  constructor(dim = 384) {
    this.dim = dim;
    this.id = `test-hash-${dim}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    return texts.map((t) => hashVector(t, this.dim));
  }
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function hashVector(text: string, dim: number): Float32Array {
  const v = new Float32Array(dim);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    const w = word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word;
    const h = fnv1a(`w:${w}`);
    v[h % dim]! += h & 1 ? 1 : -1;
    const padded = `^${w}$`;
    for (let i = 0; i + 3 <= padded.length; i++) {
      const g = fnv1a(`g:${padded.slice(i, i + 3)}`);
      v[g % dim]! += (g & 1 ? 1 : -1) * 0.3;
    }
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  if (norm === 0) v[0] = 1;
  else for (let i = 0; i < dim; i++) v[i]! /= Math.sqrt(norm);
  return v;
}

/**
 * The hash embedder answering after `delayMs`, like a model busy on another batch: long enough
 * for writes to land while a batch is at the embedder.
 */
export class SlowHashEmbedder extends HashEmbedder {
  /** Calls begun, including those still waiting. */
  started = 0;

  constructor(readonly delayMs: number, dim = 384) {
    super(dim);
  }

  override async embed(texts: string[]): Promise<Float32Array[]> {
    this.started++;
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return super.embed(texts);
  }
}
