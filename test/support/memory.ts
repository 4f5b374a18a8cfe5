import { HybridMemory, type Logger, type OpenOptions } from '../../src/index.js';
import { HashEmbedder } from './hash-embedder.js';

export const NOW = Date.parse('2026-11-30T12:00:00Z');
export const DAY = 86_400_000;

/** A store on real SQLite-WASM with the deterministic test embedder and a pinned clock. */
export function openMemory(options: OpenOptions = {}): Promise<HybridMemory> {
  return HybridMemory.open({ embedder: new HashEmbedder(), now: () => NOW, ...options });
}

export const ids = (hits: Array<{ id: string }>): string[] => hits.map((h) => h.id);

/** A logger that keeps the messages, for tests that check what the store said it did. */
export function recorder(): { logger: Logger; messages: string[] } {
  const messages: string[] = [];
  return { messages, logger: (_level, message) => messages.push(message) };
}
