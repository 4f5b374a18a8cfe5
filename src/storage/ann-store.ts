import type { SqlDriver } from './driver.js';

/** One named blob kept in the database; the dense leg's `AnnStore` has this shape. */
export interface StoredBytes {
  read(): Uint8Array | null;
  write(bytes: Uint8Array): void;
}

/**
 * Keeps a vector index's bytes in the store's own database (table `ann_index`), so they travel
 * with it and sit in the same OPFS file. The bytes carry their own checksum and vector digest.
 */
export function sqlAnnStore(db: SqlDriver, name = 'dense'): StoredBytes {
  return {
    read: () => db.all<{ bytes: Uint8Array }>('SELECT bytes FROM ann_index WHERE name = ?', [name])[0]?.bytes ?? null,
    write: (bytes) => db.exec('INSERT OR REPLACE INTO ann_index (name, bytes, updated_at) VALUES (?, ?, ?)', [name, bytes, Date.now()]),
  };
}
