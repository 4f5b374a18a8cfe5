import type { HybridMemory, RecallOptions } from '../../src/index.js';

/**
 * The retrieval configurations every quality benchmark compares on the same data. `autoEdges`
 * systems run on a second store built with `autoEdges: true`, so the effect of the edges the store
 * draws itself is measured against the same recall without them.
 */
export interface System {
  name: string;
  options: RecallOptions;
  needsVectors?: boolean;
  autoEdges?: boolean;
}

export const SYSTEMS: System[] = [
  { name: 'vector', options: { mode: 'vector' }, needsVectors: true },
  { name: 'lexical', options: { mode: 'lexical' } },
  { name: 'graph', options: { mode: 'graph' } },
  { name: 'hybrid rrf', options: { mode: 'hybrid', fusion: 'rrf' } },
  { name: 'hybrid linear', options: { mode: 'hybrid', fusion: 'linear' } },
  { name: 'hybrid rrf + rerank', options: { mode: 'hybrid', fusion: 'rrf', rerank: true } },
  { name: 'graph (auto edges)', options: { mode: 'graph' }, autoEdges: true },
  { name: 'hybrid rrf (auto edges)', options: { mode: 'hybrid', fusion: 'rrf' }, autoEdges: true },
];

/** Opens the plain store and, when a system needs it, the same data with automatic edges. */
export async function openStores(open: (autoEdges: boolean) => Promise<HybridMemory>, systems: readonly System[]): Promise<{ plain: HybridMemory; auto: HybridMemory | null; close: () => Promise<void> }> {
  const plain = await open(false);
  const auto = systems.some((s) => s.autoEdges) ? await open(true) : null;
  return { plain, auto, close: async () => { await plain.close(); await auto?.close(); } };
}

export function systemsFor(hasVectors: boolean): System[] {
  return SYSTEMS.filter((s) => hasVectors || !s.needsVectors);
}

export async function rankedIds(stores: { plain: HybridMemory; auto: HybridMemory | null }, query: string, system: System, k: number, extra: RecallOptions = {}): Promise<string[]> {
  const mem = system.autoEdges ? stores.auto! : stores.plain;
  return (await mem.recall(query, { ...system.options, ...extra, k, explain: false })).map((h) => h.id);
}
