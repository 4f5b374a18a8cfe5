import { isCompound, tokenize } from '../src/legs/lexical/tokenizer.js';
import type { Hit, LegName, LegWeights } from '../src/types.js';

export const LEGS: LegName[] = ['vector', 'lexical', 'graph', 'time'];

/** Each leg in words a person reads without knowing the library. */
export const LEG_NAMES: Record<LegName, string> = {
  vector: 'meaning',
  lexical: 'words',
  graph: 'links',
  time: 'recency',
};

/** What fusion needs to be explained: the settings the query ran with. */
export interface FusionSettings {
  weights: LegWeights;
  rrfK: number;
  historicalWeight: number;
}

export interface LegPart {
  leg: LegName;
  rank: number;
  weight: number;
  /** weight / (rrfK + rank): what this leg added to the fused score. */
  contribution: number;
}

export interface Explanation {
  parts: LegPart[];
  /** Sum of the legs' contributions. */
  legs: number;
  /**
   * What fusion added beyond one vote per leg: the second lexical vote for an identifier typed
   * verbatim, or the lift a memory gets from the historical one it supersedes.
   */
  extra: number;
  /** Factor applied because the memory is not true at the reference time (1 when current). */
  factor: number;
  /** Identifiers from the query the memory contains verbatim (as typed). */
  identifiers: string[];
}

/**
 * Maps the lexical leg's index terms back to the words the user typed: `memori` → "memory",
 * `#4821` → "#4821". The query is cut at spaces and each piece is analysed alone with the index's
 * own tokenizer, so every term knows the piece it came from.
 */
export function surfaceWords(query: string, terms: readonly string[]): string[] {
  const bySurface = new Map<string, string>();
  for (const piece of query.split(/\s+/)) {
    const word = piece.replace(/^[^\p{L}\p{N}#@$~/]+|[^\p{L}\p{N}+#]+$/gu, '');
    if (!word) continue;
    for (const term of tokenize(word)) if (!bySurface.has(term)) bySurface.set(term, word);
  }
  const out: string[] = [];
  for (const term of terms) {
    const word = bySurface.get(term) ?? term;
    if (!out.includes(word)) out.push(word);
  }
  return out;
}

/**
 * Splits a hybrid RRF score into what each leg contributed. The legs' votes come from the ranks
 * on the hit; whatever the score holds beyond them (once the historical factor is undone) is
 * fusion's extra: an exact identifier's second vote or a supersession lift.
 */
export function explainHit(hit: Hit, query: string, s: FusionSettings): Explanation {
  const parts: LegPart[] = [];
  for (const leg of LEGS) {
    const info = hit.legs[leg];
    if (!info) continue;
    const weight = s.weights[leg];
    parts.push({ leg, rank: info.rank, weight, contribution: weight / (s.rrfK + info.rank) });
  }
  const legs = parts.reduce((sum, p) => sum + p.contribution, 0);
  const factor = hit.status === 'historical' ? s.historicalWeight : 1;
  const before = factor > 0 ? hit.score / factor : hit.score;
  const extra = Math.abs(before - legs) < 1e-9 ? 0 : before - legs;
  const compound = (hit.legs.lexical?.matched ?? []).filter(isCompound);
  return { parts, legs, extra, factor, identifiers: surfaceWords(query, compound) };
}

export interface Difference {
  /** The leg (or `extra`) whose contribution differs most in `a`'s favour. */
  decidedBy: LegName | 'extra' | null;
  /** a.score − b.score */
  margin: number;
  /** Per leg: a's contribution − b's. */
  byLeg: Record<LegName | 'extra', number>;
}

/** Why `a` ranks above `b`: the leg whose contribution favours `a` most. */
export function compareExplanations(a: Explanation, aScore: number, b: Explanation, bScore: number): Difference {
  const of = (e: Explanation, leg: LegName) => (e.parts.find((p) => p.leg === leg)?.contribution ?? 0) * e.factor;
  const byLeg = {
    vector: of(a, 'vector') - of(b, 'vector'),
    lexical: of(a, 'lexical') - of(b, 'lexical'),
    graph: of(a, 'graph') - of(b, 'graph'),
    time: of(a, 'time') - of(b, 'time'),
    extra: a.extra * a.factor - b.extra * b.factor,
  };
  let decidedBy: Difference['decidedBy'] = null;
  let best = 0;
  for (const [leg, d] of Object.entries(byLeg) as Array<[LegName | 'extra', number]>) {
    if (d > best + 1e-12) {
      best = d;
      decidedBy = leg;
    }
  }
  return { decidedBy, margin: aScore - bScore, byLeg };
}

/** Four significant decimals: RRF scores are small and differ in the third or fourth place. */
export const fmt = (n: number): string => n.toFixed(4);
