import type { Fused } from '../fusion/rrf.js';
import { isCompound, queryTerms, tokenize } from '../legs/lexical/tokenizer.js';

/** How many fused candidates the reranker reads: enough to pull up a buried exact match. */
export function rerankPool(k: number): number {
  return Math.max(30, 3 * k);
}

/** Query terms that must match exactly to mean anything: identifiers, numbers, dates, versions. */
function isExactTerm(term: string): boolean {
  return isCompound(term) || /\d/.test(term);
}

/**
 * A deterministic rerank of the fused top candidates, no model involved: score × (1 +
 * COVERAGE·c + EXACT·e), where c is the share of the query's terms the memory contains and e the
 * share of the query's identifiers, numbers, dates and versions it contains verbatim. Fusion
 * sees only ranks; this looks at the words, so "Order #4821, 2026-03-01" prefers the memory with
 * both over one that merely talks about orders. Candidates past the pool keep their order below.
 */
export const COVERAGE_WEIGHT = 0.5;
export const EXACT_WEIGHT = 1;

export function rerank(query: string, fused: readonly Fused[], k: number, textOf: (no: number) => string): Fused[] {
  const terms = queryTerms(query);
  if (terms.length === 0) return [...fused];
  const exact = terms.filter(isExactTerm);
  const pool = fused.slice(0, rerankPool(k)).map((f, position) => {
    const words = new Set(tokenize(textOf(f.no)));
    const coverage = terms.filter((t) => words.has(t)).length / terms.length;
    const exactShare = exact.length === 0 ? 0 : exact.filter((t) => words.has(t)).length / exact.length;
    return { no: f.no, score: f.score * (1 + COVERAGE_WEIGHT * coverage + EXACT_WEIGHT * exactShare), position };
  });
  pool.sort((a, b) => b.score - a.score || a.position - b.position);
  const floor = pool.at(-1)?.score ?? 0;
  // What lies past the pool must stay below it, or the cut would reorder unread candidates upward.
  const rest = fused.slice(pool.length).map((f) => ({ no: f.no, score: Math.min(f.score, floor) }));
  return [...pool.map(({ no, score }) => ({ no, score })), ...rest];
}
