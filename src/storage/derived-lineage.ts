/**
 * Derived values kept outside the database (`SqlDriver.derived`: files beside it) bound to the
 * one database they were derived from. Their stamp (generation, count, last number) does not tell
 * two copies of a store apart: a `.db` copied away and written there reaches the original's next
 * generation with other rows, and copied back over the original it would find the original's files
 * under its own stamp. So a save that starts a new stamp first draws a random token and records
 * `stamp#token` in the database's `meta` (one small commit), and the files are written under that;
 * a file is offered only when the database records its exact stamp. A `.db` copied alone finds
 * files of another token or of a stamp its rows moved past, and rebuilds them; a `.db` copied with
 * its folder opens from them.
 *
 * Values an earlier open kept in the database's `derived_index` (a version before the files, or
 * `derivedFiles: false`) are read from there while the files offer none, and deleted by the first
 * save to the files.
 */
import { tableDerivedStore } from './derived-store.js';
import type { DerivedStore, SqlDriver } from './driver.js';

const KEY = 'derived_stamp';

/** `files` offering and taking values only under the stamp `db` records for them. */
export function boundToDatabase(files: DerivedStore, db: SqlDriver): DerivedStore {
  const recorded = (): string | null => db.all<{ value: string }>('SELECT value FROM meta WHERE key = ?', [KEY])[0]?.value ?? null;
  /** The stamp the files carry for `stamp`, when the database records one for it. */
  const bound = (stamp: string): string | null => {
    const full = recorded();
    return full !== null && full.slice(0, full.lastIndexOf('#')) === stamp ? full : null;
  };
  const bind = (stamp: string): string => {
    const full = `${stamp}#${token()}`;
    db.exec('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [KEY, full]);
    return full;
  };
  const table = tableDerivedStore(db);
  const emptyTable = () => {
    if (db.all('SELECT 1 FROM derived_index LIMIT 1').length > 0) db.exec('DELETE FROM derived_index');
  };
  const store: DerivedStore = {
    stampOf(name) {
      const saved = files.stampOf(name);
      if (saved !== null && saved === recorded()) return saved.slice(0, saved.lastIndexOf('#'));
      // Unbound, the file's own stamp: it holds a '#', so it equals no store's stamp.
      return table.stampOf(name) ?? saved;
    },
    read(name, stamp) {
      const full = bound(stamp);
      return (full === null ? null : files.read(name, full)) ?? table.read(name, stamp);
    },
    write(name, stamp, bytes) {
      emptyTable();
      files.write(name, bound(stamp) ?? bind(stamp), bytes);
    },
    clear: () => files.clear?.(),
    close: () => files.close?.(),
  };
  const early = files.early;
  if (!early) return store;
  return {
    ...store,
    early: {
      take(name, stamp) {
        const full = bound(stamp);
        return full === null ? undefined : early.take(name, full);
      },
    },
  };
}

/** 64 random bits as hex: enough that two saves never draw the same. */
function token(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
