import type { SavedBytes } from '../legs/types.js';
import { readParts, writeParts } from './blob-parts.js';
import type { SqlDriver } from './driver.js';

/**
 * Keeps a vector index's bytes in the store's own database (table `ann_index`, in parts: see
 * `blob-parts.ts`), so they travel with it and sit in the same OPFS file. The bytes carry their
 * own checksum and vector digest. `deferred`: see `SavedBytes.deferred`.
 */
export function sqlAnnStore(db: SqlDriver, deferred: boolean, name = 'dense'): SavedBytes {
  return {
    deferred,
    read: () => readParts(db, 'ann_index', name),
    write: (bytes) => writeParts(db, 'ann_index', name, { updated_at: Date.now() }, bytes),
  };
}
