import type { AnnStore } from '../legs/vector/adaptive-index.js';
import type { SqlDriver } from './driver.js';

/**
 * Keeps a vector index's bytes in the store's own database (table `ann_index`), so they travel
 * with it and sit in the same OPFS file. The bytes carry their own checksum and vector digest.
 */
export function sqlAnnStore(db: SqlDriver, name = 'dense'): AnnStore {
  return {
    read: () => db.all<{ bytes: Uint8Array }>('SELECT bytes FROM ann_index WHERE name = ?', [name])[0]?.bytes ?? null,
    write: (bytes) => db.exec('INSERT OR REPLACE INTO ann_index (name, bytes, updated_at) VALUES (?, ?, ?)', [name, bytes, Date.now()]),
  };
}
