/** Ranking metrics with binary relevance. `ranked` is best first. */

export function recallAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  if (relevant.size === 0) return 0;
  let found = 0;
  for (const id of ranked.slice(0, k)) if (relevant.has(id)) found++;
  return found / relevant.size;
}

export function allFoundAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  return recallAt(ranked, relevant, k) === 1 ? 1 : 0;
}

export function reciprocalRank(ranked: readonly string[], relevant: ReadonlySet<string>): number {
  const i = ranked.findIndex((id) => relevant.has(id));
  return i < 0 ? 0 : 1 / (i + 1);
}

export function ndcgAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

export interface Scores {
  queries: number;
  [metric: string]: number;
}

/** Averages per-query metric values. */
export function averageScores(perQuery: ReadonlyArray<Record<string, number>>): Scores {
  const out: Scores = { queries: perQuery.length };
  for (const row of perQuery) for (const [m, v] of Object.entries(row)) out[m] = (out[m] ?? 0) + v;
  for (const m of Object.keys(out)) if (m !== 'queries') out[m]! /= Math.max(1, perQuery.length);
  return out;
}
