import { HybridMemory, type OpenOptions } from '../../src/index.js';
import { HashEmbedder } from './hash-embedder.js';

export const NOW = Date.parse('2026-11-30T12:00:00Z');
export const DAY = 86_400_000;

/** A store on real SQLite-WASM with the deterministic test embedder and a pinned clock. */
export function openMemory(options: OpenOptions = {}): Promise<HybridMemory> {
  return HybridMemory.open({ embedder: new HashEmbedder(), now: () => NOW, ...options });
}

export const ids = (hits: Array<{ id: string }>): string[] => hits.map((h) => h.id);
