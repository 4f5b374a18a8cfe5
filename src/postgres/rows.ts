import { tokenize } from '../legs/lexical/tokenizer.js';
import type { EdgeRow, MemoryRow } from '../storage/repository.js';

/** Columns read for a memory, in the core's row shape. */
export const MEMORY_COLUMNS = 'no, id, text, kind, domain, metadata, created_at, valid_from, valid_to';
export const EDGE_COLUMNS = 'no, id, src, dst, type, weight, metadata, valid_from, created_at, closes_valid_to, prior_valid_to';

const nullableNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** node-postgres returns bigint columns as strings; the core's rows hold numbers. */
export function toMemoryRow(r: Record<string, unknown>): MemoryRow {
  return {
    no: Number(r['no']),
    id: String(r['id']),
    text: String(r['text']),
    kind: (r['kind'] as string | null) ?? null,
    domain: (r['domain'] as string | null) ?? null,
    metadata: String(r['metadata']),
    created_at: Number(r['created_at']),
    valid_from: Number(r['valid_from']),
    valid_to: nullableNumber(r['valid_to']),
  };
}

export function toEdgeRow(r: Record<string, unknown>): EdgeRow {
  return {
    no: Number(r['no']),
    id: String(r['id']),
    src: Number(r['src']),
    dst: Number(r['dst']),
    type: String(r['type']),
    weight: Number(r['weight']),
    metadata: String(r['metadata']),
    valid_from: Number(r['valid_from']),
    created_at: Number(r['created_at']),
    closes_valid_to: Number(r['closes_valid_to']),
    prior_valid_to: nullableNumber(r['prior_valid_to']),
  };
}

/** pgvector's text form. A float32's shortest decimal reads back as the same float32. */
export function vectorLiteral(v: Float32Array): string {
  return `[${Array.from(v).join(',')}]`;
}

export function parseVector(text: unknown): Float32Array {
  return Float32Array.from(JSON.parse(String(text)) as number[]);
}

/**
 * The lexical postings of a text, by the same tokenizer as the embedded BM25 leg: term
 * frequencies, and the number of distinct terms (minisearch's field length).
 */
export function postingsOf(text: string): { terms: string[]; tfs: number[]; distinct: number } {
  const counts = new Map<string, number>();
  for (const term of tokenize(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return { terms: [...counts.keys()], tfs: [...counts.values()], distinct: counts.size };
}
