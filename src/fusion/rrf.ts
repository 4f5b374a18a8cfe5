import { ScoreTable, type ScoreEntries } from './score-table.js';

/** A leg's ranked list as fusion sees it: only ranks matter, best first. */
export interface RankedList {
  weight: number;
  nos: readonly number[];
  /** Rank of each entry (from 1) when the leg has ties; default: the position + 1. */
  ranks?: readonly number[] | undefined;
}

export interface Fused {
  no: number;
  score: number;
}

/** Orders equal fused scores; the engine prefers current, then fresher memories. */
export type TieBreak = (a: number, b: number) => number;

const byNumber: TieBreak = (a, b) => a - b;

/**
 * Standard competition ranks ("1224") for a list sorted best first: entries the leg cannot tell
 * apart share a rank, so a tie (equal recency, equal graph distance) casts no arbitrary vote.
 */
export function tiedRanks<T>(sorted: readonly T[], same: (a: T, b: T) => boolean): number[] {
  const ranks: number[] = [];
  for (let i = 0; i < sorted.length; i++) ranks.push(i > 0 && same(sorted[i - 1]!, sorted[i]!) ? ranks[i - 1]! : i + 1);
  return ranks;
}

/**
 * Weighted Reciprocal Rank Fusion: score(d) = Σ_m w_m / (k + rank_m(d)), ranks from 1, over the
 * lists that contain d. Lists with weight 0 contribute nothing but still ran (their explanation
 * stays). Ranks, not scores, are fused, so legs with incomparable scales need no normalisation.
 */
export function reciprocalRankFusion(lists: readonly RankedList[], k: number, tieBreak: TieBreak = byNumber, limit = Infinity): Fused[] {
  const scores = fusionTable(lists);
  for (const list of lists) {
    for (let i = 0; i < list.nos.length; i++) scores.add(list.nos[i]!, list.weight / (k + (list.ranks?.[i] ?? i + 1)));
  }
  return sortFused(scores, tieBreak, limit);
}

const table = new ScoreTable();

/**
 * The fusions' shared table, emptied, with room for every entry of `lists`: a fusion fills it and
 * `sortFused` reads it before anything else fuses (all of it synchronous), so one serves them all.
 */
export function fusionTable(lists: ReadonlyArray<{ readonly nos: readonly number[] }>): ScoreTable {
  let expected = 0;
  for (const list of lists) expected += list.nos.length;
  table.reset(expected);
  return table;
}

/** Past this many kept, shifting the kept ones costs more than sorting everything. */
const INSERTION_LIMIT = 64;

/**
 * The fused scores best first, equal scores by `tieBreak`; only the best `limit` when given. A
 * few of a few hundred (where the graph walks start, the k hits) are kept by insertion: each
 * candidate is compared with the worst kept one, where a sort calls the comparator ~3,500 times.
 */
export function sortFused(scores: ScoreEntries, tieBreak: TieBreak = byNumber, limit = Infinity): Fused[] {
  const order = (a: Fused, b: Fused): number => b.score - a.score || tieBreak(a.no, b.no);
  const fused: Fused[] = [];
  if (limit <= 0) return fused;
  if (limit >= scores.size || limit > INSERTION_LIMIT) {
    scores.forEach((score, no) => fused.push({ no, score }));
    fused.sort(order);
    return limit < fused.length ? fused.slice(0, limit) : fused;
  }
  // Compared before an entry is made for it: most candidates never make the cut.
  const before = (no: number, score: number, f: Fused): boolean => score > f.score || (score === f.score && tieBreak(no, f.no) < 0);
  scores.forEach((score, no) => {
    if (fused.length === limit && !before(no, score, fused[limit - 1]!)) return;
    let i = Math.min(fused.length, limit - 1);
    for (; i > 0 && before(no, score, fused[i - 1]!); i--) fused[i] = fused[i - 1]!;
    fused[i] = { no, score };
  });
  return fused;
}
