/**
 * Where a store keeps the values it derives from its rows (the saved lexical, entity and catalog
 * indexes, the vector codes), each stamped with the store state it was made from. They are
 * caches: a value whose stamp differs, that is missing or does not read is rebuilt from the rows,
 * so a derived store never needs to be written atomically with the truth, only never to offer
 * bytes under a stamp they were not written with.
 *
 * By default they are rows of the database's own `derived_index` table (in parts, see
 * `blob-parts.ts`). A driver may keep them beside its database instead (`SqlDriver.derived`; the
 * browser worker on OPFS and the Node file store do): in a browser worker SQLite-WASM reads a
 * blob through its pager at well under 1 GB/s (the 41 MB of codes of 100k memories took ~50 ms
 * on OPFS), where a file read lands in ~16 ms; better-sqlite3 took ~90 ms for them at a cold open.
 */
import { partsOf, writeParts } from './blob-parts.js';
import type { DerivedStore, SqlDriver } from './driver.js';

/** Derived values as rows of the database's `derived_index` table. */
export function tableDerivedStore(db: SqlDriver): DerivedStore {
  return {
    stampOf: (name) => db.all<{ stamp: string }>('SELECT stamp FROM derived_index WHERE name = ?', [name])[0]?.stamp ?? null,
    read: (name, stamp) => partsOf(db, 'derived_index', name, { column: 'stamp', value: stamp }),
    write: (name, stamp, bytes) => writeParts(db, 'derived_index', name, { stamp }, bytes),
  };
}
