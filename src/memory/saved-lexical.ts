/**
 * The lexical index saved in the store's own database (table `derived_index`), so opening a store
 * loads it instead of re-tokenizing every memory's text. Saved bytes are stamped with the store
 * generation (moved by every committed write, see `Repository.transaction`) plus the memories'
 * count and last row number (which also move when some other program writes the file): a stamp
 * that differs, a missing row or bytes that do not load mean a rebuild from the rows, never an
 * index that disagrees with SQLite.
 */
import type { LexicalIndex } from '../legs/types.js';
import type { Logger } from '../logger.js';
import type { Repository } from '../storage/repository.js';

const NAME = 'lexical';

export interface Stamp {
  key: string;
  memories: number;
}

export function storeStamp(repo: Repository): Stamp {
  const row = repo.db.all<{ g: string | null; count: number; last: number | null }>(
    "SELECT (SELECT value FROM meta WHERE key = 'generation') AS g, (SELECT count(*) FROM memories) AS count, (SELECT max(no) FROM memories) AS last",
  )[0]!;
  const memories = Number(row.count);
  return { key: `g${row.g ?? 0} m${memories}:${Number(row.last ?? 0)}`, memories };
}

/** The saved index when its stamp is `stamp` and `load` reads it whole; otherwise null (the caller rebuilds). */
export function loadSavedLexical(repo: Repository, stamp: Stamp, logger: Logger, load: (bytes: Uint8Array) => LexicalIndex): LexicalIndex | null {
  const row = repo.db.all<{ stamp: string; bytes: Uint8Array }>('SELECT stamp, bytes FROM derived_index WHERE name = ?', [NAME])[0];
  if (!row) return null;
  if (row.stamp !== stamp.key) {
    logger('info', 'the saved lexical index is from another store generation; rebuilding it', { saved: row.stamp, store: stamp.key });
    return null;
  }
  try {
    const index = load(row.bytes);
    if (index.size === stamp.memories) {
      logger('debug', 'loaded the saved lexical index', { memories: stamp.memories });
      return index;
    }
    logger('warn', 'the saved lexical index does not cover every memory; rebuilding it', { indexed: index.size, memories: stamp.memories });
  } catch (error) {
    logger('warn', 'the saved lexical index could not be read; rebuilding it', { error });
  }
  return null;
}

/** Writes outside `Repository.transaction` on purpose: saving derived bytes is not a write to the truth and must not move the generation. */
export function saveLexical(repo: Repository, stamp: Stamp, index: LexicalIndex): void {
  repo.db.exec('INSERT OR REPLACE INTO derived_index (name, stamp, bytes) VALUES (?, ?, ?)', [NAME, stamp.key, index.save()]);
}
