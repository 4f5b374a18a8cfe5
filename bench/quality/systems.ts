import type { HybridMemory, RecallOptions } from '../../src/index.js';

/** The retrieval configurations every quality benchmark compares on the same store. */
export interface System {
  name: string;
  options: RecallOptions;
  needsVectors?: boolean;
}

export const SYSTEMS: System[] = [
  { name: 'vector', options: { mode: 'vector' }, needsVectors: true },
  { name: 'lexical', options: { mode: 'lexical' } },
  { name: 'graph', options: { mode: 'graph' } },
  { name: 'hybrid rrf', options: { mode: 'hybrid', fusion: 'rrf' } },
  { name: 'hybrid linear', options: { mode: 'hybrid', fusion: 'linear' } },
];

export function systemsFor(hasVectors: boolean): System[] {
  return SYSTEMS.filter((s) => hasVectors || !s.needsVectors);
}

export async function rankedIds(mem: HybridMemory, query: string, system: System, k: number, extra: RecallOptions = {}): Promise<string[]> {
  return (await mem.recall(query, { ...system.options, ...extra, k, explain: false })).map((h) => h.id);
}
