import { readParts, writeParts } from './blob-parts.js';
import type { SqlDriver } from './driver.js';

/** One named blob kept in the database; the dense leg's `AnnStore` has this shape. */
export interface StoredBytes {
  read(): Uint8Array | null;
  write(bytes: Uint8Array): void;
}

/**
 * Keeps a vector index's bytes in the store's own database (table `ann_index`, in parts: see
 * `blob-parts.ts`), so they travel with it and sit in the same OPFS file. The bytes carry their
 * own checksum and vector digest.
 */
export function sqlAnnStore(db: SqlDriver, name = 'dense'): StoredBytes {
  return {
    read: () => readParts(db, 'ann_index', name),
    write: (bytes) => writeParts(db, 'ann_index', name, { updated_at: Date.now() }, bytes),
  };
}
