import type { MemoryStatus } from '../types.js';

export const DAY_MS = 86_400_000;

/** The temporal fields every memory carries (epoch ms). */
export interface Temporal {
  createdAt: number;
  validFrom: number;
  validTo: number | null;
}

/**
 * Recency weight exp(−age_days / halfLifeDays). The age is measured from when the fact became
 * true (`validFrom`), not when it was written down, so a late note about an old event is old.
 * Facts dated after the reference time get weight 1 rather than more than 1.
 */
export function recencyWeight(t: Temporal, reference: number, halfLifeDays: number): number {
  const ageDays = Math.max(0, reference - t.validFrom) / DAY_MS;
  return Math.exp(-ageDays / halfLifeDays);
}

/** Current when true at the reference time: started by then and not yet ended (or superseded). */
export function statusAt(t: Temporal, reference: number): MemoryStatus {
  return t.validFrom <= reference && (t.validTo === null || t.validTo > reference) ? 'current' : 'historical';
}

/** Recorded by the reference time: what an as-of query may see at all. */
export function recordedBy(t: Temporal, reference: number): boolean {
  return t.createdAt <= reference;
}

export interface TimeRanked {
  no: number;
  /** The recency weight, for the explanation. */
  score: number;
  status: MemoryStatus;
}

/**
 * The time leg ranks the candidates the other legs found; it adds none of its own. Current
 * memories come before historical ones, then fresher before older, then by number.
 */
export function rankByTime(
  candidates: Iterable<number>,
  lookup: (no: number) => Temporal,
  reference: number,
  halfLifeDays: number,
): TimeRanked[] {
  const ranked: TimeRanked[] = [];
  for (const no of candidates) {
    const t = lookup(no);
    ranked.push({ no, score: recencyWeight(t, reference, halfLifeDays), status: statusAt(t, reference) });
  }
  ranked.sort((a, b) => (a.status === b.status ? 0 : a.status === 'current' ? -1 : 1) || b.score - a.score || a.no - b.no);
  return ranked;
}
