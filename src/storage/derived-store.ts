/**
 * Where a store keeps the values it derives from its rows (the saved lexical, entity and catalog
 * indexes, the vector codes), each stamped with the store state it was made from. They are
 * caches: a value whose stamp differs, that is missing or does not read is rebuilt from the rows,
 * so a derived store never needs to be written atomically with the truth, only never to offer
 * bytes under a stamp they were not written with.
 *
 * By default they are rows of the database's own `derived_index` table (in parts, see
 * `blob-parts.ts`). A driver may keep them beside its database instead (`SqlDriver.derived`):
 * in a browser worker SQLite-WASM reads a blob through its pager at well under 1 GB/s (the 41 MB
 * of codes of 100k memories took ~50 ms on OPFS), where a file read lands in ~16 ms.
 */
import { partsOf, writeParts } from './blob-parts.js';
import type { SqlDriver } from './driver.js';
import type { PartedBytes } from '../util/parted-bytes.js';

export interface DerivedStore {
  /** The stamp `name` was last written with, or null when there is none. */
  stampOf(name: string): string | null;
  /** The value of `name` when it was written with `stamp`, else null. */
  read(name: string, stamp: string): PartedBytes | null;
  /** Replaces the value of `name`; a reader sees the old value, the new one, or none. */
  write(name: string, stamp: string, bytes: Uint8Array): void;
  /**
   * Forgets every value, before the rows they were derived from are replaced. Only a store
   * outside the database needs it: the replace's own transaction empties `derived_index`.
   */
  clear?(): void;
  /** Releases what the store holds open; the driver calls it when it closes. */
  close?(): void;
}

/** Derived values as rows of the database's `derived_index` table. */
export function tableDerivedStore(db: SqlDriver): DerivedStore {
  return {
    stampOf: (name) => db.all<{ stamp: string }>('SELECT stamp FROM derived_index WHERE name = ?', [name])[0]?.stamp ?? null,
    read: (name, stamp) => partsOf(db, 'derived_index', name, { column: 'stamp', value: stamp }),
    write: (name, stamp, bytes) => writeParts(db, 'derived_index', name, { stamp }, bytes),
  };
}
