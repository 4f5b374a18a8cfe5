/**
 * What a tool call returns to the model: only what it can use, in a form it reads well. Times
 * become ISO-8601 strings (a model misreads epoch milliseconds), scores are rounded, and the
 * per-leg details shrink to ranks.
 */
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
  kind?: string;
  domain?: string;
  metadata?: Metadata;
  /** Graph hits: the memories whose links led here. */
  via?: string[];
}

const LEGS: readonly LegName[] = ['vector', 'lexical', 'graph', 'time'];

export function toToolHit(hit: Hit): ToolHit {
  const ranks: Partial<Record<LegName, number>> = {};
  for (const leg of LEGS) {
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
  return out;
}

export function isoTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}

/**
 * A plain JSON value for whatever an API returned: typed arrays become arrays, Dates ISO
 * strings, Maps objects, and undefined fields disappear, so JSON.stringify loses nothing silently.
 */
export function toJsonValue(value: unknown, depth = 0): unknown {
  if (depth > 32) return null;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>);
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : toJsonValue(v, depth + 1)));
  if (value instanceof Map) return toJsonValue(Object.fromEntries(value), depth + 1);
  if (value instanceof Set) return toJsonValue([...value], depth + 1);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v !== undefined && typeof v !== 'function') out[k] = toJsonValue(v, depth + 1);
    }
    return out;
  }
  return null;
}
