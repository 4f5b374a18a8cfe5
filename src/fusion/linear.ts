import { sortFused, type Fused, type TieBreak } from './rrf.js';

/**
 * The seed reference's linear fusion, kept as an alternative: score = α·S + β·G, where S is the
 * dense cosine (or the lexical score scaled to [0, 1] by the best one when no vectors ran) and G
 * the graph proximity 1/(1+d). Scores are on different scales, which is why RRF is the default.
 */
export function linearFusion(
  similarity: ReadonlyMap<number, number>,
  proximity: ReadonlyMap<number, number>,
  alpha: number,
  beta: number,
  tieBreak?: TieBreak,
): Fused[] {
  const scores = new Map<number, number>();
  for (const [no, s] of similarity) scores.set(no, alpha * s);
  for (const [no, g] of proximity) scores.set(no, (scores.get(no) ?? 0) + beta * g);
  return sortFused(scores, tieBreak);
}
