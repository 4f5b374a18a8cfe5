import type { HybridMemory, RecallOptions } from '../../src/index.js';

/**
 * The retrieval configurations every quality benchmark compares on the same store: each leg
 * alone, the default hybrid, the default with one mechanism switched off at a time (ablation),
 * and the previous default (weighted RRF over the four legs, no entity graph) for before/after.
 */
export interface System {
  name: string;
  options: RecallOptions;
  needsVectors?: boolean;
  /** Asked of a second store built with `autoEdges: true` (the postgres bench compares such systems). */
  autoEdges?: boolean;
}

export const SYSTEMS: System[] = [
  { name: 'vector', options: { mode: 'vector' }, needsVectors: true },
  { name: 'lexical', options: { mode: 'lexical' } },
  { name: 'graph', options: { mode: 'graph' } },
  { name: 'hybrid (default)', options: {} },
  { name: '− score fusion (RRF)', options: { fusion: 'rrf' } },
  { name: '− entity graph', options: { entityGraph: false } },
  { name: '− graph weight 4 (3)', options: { weights: { graph: 3 } } },
  { name: '− relation questions', options: { relationQuestions: false } },
  { name: '− speakers', options: { speakers: false } },
  { name: 'previous default', options: { fusion: 'rrf', entityGraph: false, relationQuestions: false, speakers: false, weights: { graph: 1.5 } } },
];

/** One store per set; every system asks it. */
export async function openStores(open: () => Promise<HybridMemory>): Promise<{ plain: HybridMemory; close: () => Promise<void> }> {
  const plain = await open();
  return { plain, close: () => plain.close() };
}

export function systemsFor(hasVectors: boolean): System[] {
  return SYSTEMS.filter((s) => hasVectors || !s.needsVectors);
}

export async function rankedIds(stores: { plain: HybridMemory }, query: string, system: System, k: number, extra: RecallOptions = {}): Promise<string[]> {
  return (await stores.plain.recall(query, { ...system.options, ...extra, k, explain: false })).map((h) => h.id);
}
