import { fusionTable, sortFused, type Fused, type TieBreak } from './rrf.js';

/** A leg's list as score fusion sees it: scores on the leg's own scale, best first. */
export interface ScoredList {
  weight: number;
  nos: readonly number[];
  scores: readonly number[];
  /** Per-candidate confidence in [0, 1] multiplied into the normalised score; default 1. */
  confidence?: readonly number[] | undefined;
  /**
   * Scores already on [0, 1] by construction (graph proximity): used as they are, since min-max
   * would give the farthest memory a walk reached nothing however near it is.
   */
  bounded?: boolean | undefined;
}

/**
 * Min-max normalisation over the list a leg returned: its best candidate gets 1, its weakest 0,
 * so legs with unrelated scales (cosine, BM25, visit probability) meet on one scale. A list whose
 * scores are all equal carries no preference and gets 1 everywhere (`span` 0).
 */
export function minMaxRange(scores: readonly number[]): { lo: number; span: number } {
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of scores) {
    if (s < lo) lo = s;
    if (s > hi) hi = s;
  }
  return { lo, span: hi > lo ? hi - lo : 0 };
}

/** A score normalised over its list's {@link minMaxRange}. */
export function minMaxScore(score: number, lo: number, span: number): number {
  return span > 0 ? (score - lo) / span : 1;
}

/**
 * Convex combination of min-max normalised scores (Bruch et al., "An Analysis of Fusion Functions
 * for Hybrid Retrieval", 2023): score(d) = Σ_m w_m · norm_m(d), a leg that did not return d adding
 * 0. Unlike RRF it keeps how far apart a leg's candidates are, so a leg that is sure (one
 * candidate far ahead) outvotes a leg whose candidates are all alike.
 */
export function convexFusion(lists: readonly ScoredList[], tieBreak?: TieBreak, limit = Infinity): Fused[] {
  const fused = fusionTable(lists);
  for (const list of lists) {
    if (list.weight === 0 || list.nos.length === 0) continue;
    const { nos, scores, confidence, weight, bounded } = list;
    const { lo, span } = bounded ? { lo: 0, span: 0 } : minMaxRange(scores);
    for (let i = 0; i < nos.length; i++) {
      const normalised = bounded ? scores[i]! : minMaxScore(scores[i]!, lo, span);
      fused.add(nos[i]!, weight * normalised * (confidence?.[i] ?? 1));
    }
  }
  return sortFused(fused, tieBreak, limit);
}
