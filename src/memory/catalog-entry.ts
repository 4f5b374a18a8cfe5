import type { Metadata } from '../types.js';
import type { Temporal } from '../legs/time/temporal.js';
import type { MemoryRow } from '../storage/repository.js';

/** What filters and the time leg need about a memory, kept in memory; the text stays in SQLite. */
export interface CatalogEntry extends Temporal {
  no: number;
  id: string;
  kind: string | null;
  domain: string | null;
  metadata: Metadata;
  /**
   * Who said it (see speakers.ts), read from the text's opening by the first recall that needs
   * it; undefined until then. A changed memory gets a new entry, so this never outlives its text.
   */
  speaker?: string | null | undefined;
}

/**
 * The metadata of every entry whose memory has none: one object instead of one per memory (100k
 * empty objects were ~5 MiB of heap). Frozen because it is shared; hits get their own copy.
 */
export const NO_METADATA: Metadata = Object.freeze({});

/** The catalog's entry for a memory's row. */
export function entryOf(row: Omit<MemoryRow, 'text'>): CatalogEntry {
  return {
    no: row.no,
    id: row.id,
    kind: row.kind,
    domain: row.domain,
    metadata: row.metadata === '{}' ? NO_METADATA : (JSON.parse(row.metadata) as Metadata),
    createdAt: Number(row.created_at),
    validFrom: Number(row.valid_from),
    validTo: row.valid_to === null ? null : Number(row.valid_to),
  };
}

/**
 * Which memories a listing keeps: each field given must match (a kind or domain exactly, `null`
 * the memories without one; the id by its start). `undefined`: any.
 */
export interface EntryFilter {
  kind: string | null | undefined;
  domain: string | null | undefined;
  idPrefix: string | null;
}

export function entryMatches(e: CatalogEntry, filter: EntryFilter): boolean {
  return (filter.kind === undefined || e.kind === filter.kind) && (filter.domain === undefined || e.domain === filter.domain) && (filter.idPrefix === null || e.id.startsWith(filter.idPrefix));
}
