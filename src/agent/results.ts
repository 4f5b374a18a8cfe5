/**
 * What a tool call returns to the model: only what it can use, in a form it reads well. Times
 * become ISO-8601 strings (a model misreads epoch milliseconds), scores are rounded, and the
 * per-leg details shrink to ranks.
 */
import { LEG_NAMES } from '../legs/types.js';
import type { Hit, LegName, Metadata, MemoryStatus } from '../types.js';

export interface ToolHit {
  id: string;
  text: string;
  status: MemoryStatus;
  score: number;
  createdAt: string;
  validFrom: string;
  validTo: string | null;
  /** Rank of the hit in each retrieval leg that found it (1 = best). */
  ranks: Partial<Record<LegName, number>>;
  kind?: string | undefined;
  domain?: string | undefined;
  metadata?: Metadata | undefined;
  /** Graph hits: the memories whose links led here. */
  via?: string[] | undefined;
  /** The hit answers the query's question about this relation ("what does X depend on?"), reached from `via[0]`. */
  relation?: string | undefined;
  /** Said by this person, whom the query names (a vote in the fusion). */
  speaker?: string | undefined;
}

export function toToolHit(hit: Hit): ToolHit {
  const ranks: Partial<Record<LegName, number>> = {};
  for (const leg of LEG_NAMES) {
    const rank = hit.legs[leg]?.rank;
    if (rank !== undefined) ranks[leg] = rank;
  }
  const out: ToolHit = {
    id: hit.id,
    text: hit.text,
    status: hit.status,
    score: Math.round(hit.score * 1e4) / 1e4,
    createdAt: isoTime(hit.createdAt),
    validFrom: isoTime(hit.validFrom),
    validTo: hit.validTo === null ? null : isoTime(hit.validTo),
    ranks,
  };
  if (hit.kind !== null) out.kind = hit.kind;
  if (hit.domain !== null) out.domain = hit.domain;
  if (Object.keys(hit.metadata).length > 0) out.metadata = hit.metadata;
  const via = hit.legs.graph?.via;
  if (via && via.length > 0) out.via = via;
  if (hit.legs.graph?.relation) out.relation = hit.legs.graph.relation;
  if (hit.legs.speaker) out.speaker = hit.legs.speaker;
  return out;
}

export function isoTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}
