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
  speaker?: string | null;
}

/** The id ↔ number map plus the per-memory fields that recall filters on without a query. */
export class Catalog {
  readonly #byNo = new Map<number, CatalogEntry>();
  readonly #byId = new Map<string, number>();

  get size(): number {
    return this.#byNo.size;
  }

  set(row: Omit<MemoryRow, 'text'>): CatalogEntry {
    const entry: CatalogEntry = {
      no: row.no,
      id: row.id,
      kind: row.kind,
      domain: row.domain,
      metadata: JSON.parse(row.metadata) as Metadata,
      createdAt: Number(row.created_at),
      validFrom: Number(row.valid_from),
      validTo: row.valid_to === null ? null : Number(row.valid_to),
    };
    this.#byNo.set(entry.no, entry);
    this.#byId.set(entry.id, entry.no);
    return entry;
  }

  delete(no: number): void {
    const entry = this.#byNo.get(no);
    if (!entry) return;
    this.#byNo.delete(no);
    this.#byId.delete(entry.id);
  }

  get(no: number): CatalogEntry | undefined {
    return this.#byNo.get(no);
  }

  /** For callers that hold a number the engine produced, so it must exist. */
  entry(no: number): CatalogEntry {
    const entry = this.#byNo.get(no);
    if (!entry) throw new Error(`catalog has no memory number ${no}`);
    return entry;
  }

  noOf(id: string): number | undefined {
    return this.#byId.get(id);
  }

  values(): IterableIterator<CatalogEntry> {
    return this.#byNo.values();
  }

  clear(): void {
    this.#byNo.clear();
    this.#byId.clear();
  }
}
