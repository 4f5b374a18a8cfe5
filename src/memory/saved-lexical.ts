/**
 * Indexes saved in the store's derived store (`storage/derived-store.ts`: its own database's
 * `derived_index` table unless the driver keeps them in files beside it), so opening a store
 * loads them instead of re-reading and re-analysing every memory's text: the lexical index, the
 * entity index, and the vector index's int8 codes so it need not quantize every vector again. Saved bytes are stamped with the store generation (moved
 * by every committed write, see `Repository.transaction`) plus the memories' count and last row
 * number (which also move when some other program writes the file): a stamp that differs, a
 * missing part or bytes that do not load mean a rebuild from the rows, never an index that
 * disagrees with SQLite.
 */
import type { EntityLeg, LegFactory, LexicalIndex } from '../legs/types.js';
import type { Logger } from '../logger.js';
import { joinParts, type PartedBytes } from '../util/parted-bytes.js';
import type { Repository } from '../storage/repository.js';

export interface Stamp {
  key: string;
  memories: number;
}

/** What is saved under each name: how to read it back (the store's leg factory), how many memories it holds, how the log names it. */
export interface Saved<T> {
  name: string;
  label: string;
  load(legs: LegFactory, parts: PartedBytes): T;
  size(index: T): number;
}

/** The whole value of `parts`, for a loader that reads one buffer. */
export function joined(parts: PartedBytes): Uint8Array {
  const bytes = joinParts(parts);
  if (bytes === null) throw new Error('its parts are incomplete');
  return bytes;
}

// The lexical index reads its parts straight into its arrays (12 MB of them at 100k memories).
export const LEXICAL: Saved<LexicalIndex> = { name: 'lexical', label: 'lexical index', load: (legs, parts) => legs.loadLexical(parts), size: (i) => i.size };
export const ENTITIES: Saved<EntityLeg> = { name: 'entities', label: 'entity index', load: (legs, parts) => legs.loadEntities(joined(parts)), size: (i) => i.size };

export function storeStamp(repo: Repository): Stamp {
  const row = repo.db.all<{ g: string | null; count: number; last: number | null }>(
    "SELECT (SELECT value FROM meta WHERE key = 'generation') AS g, (SELECT count(*) FROM memories) AS count, (SELECT max(no) FROM memories) AS last",
  )[0]!;
  const memories = Number(row.count);
  return { key: `g${row.g ?? 0} m${memories}:${Number(row.last ?? 0)}`, memories };
}

/**
 * The saved index when its stamp is `stamp` and it loads whole; otherwise null (the caller
 * rebuilds). A value the derived store decoded ahead of the open for `stamp` is taken as read
 * (`DerivedStore.early`; its loader was `what.load`, see `preload.ts`).
 */
export function loadSaved<T>(repo: Repository, what: Saved<T>, legs: LegFactory, stamp: Stamp, logger: Logger): T | null {
  const early = repo.derived.early?.take(what.name, stamp.key) as T | undefined;
  const saved = repo.derived.stampOf(what.name);
  if (saved === null) return null;
  if (saved !== stamp.key) {
    logger('info', `the saved ${what.label} is from another store generation; rebuilding it`, { saved, store: stamp.key });
    return null;
  }
  try {
    const index = early ?? loadParts(repo, what, legs, stamp);
    if (what.size(index) === stamp.memories) {
      logger('debug', `loaded the saved ${what.label}`, { memories: stamp.memories });
      return index;
    }
    logger('warn', `the saved ${what.label} does not cover every memory; rebuilding it`, { indexed: what.size(index), memories: stamp.memories });
  } catch (error) {
    logger('warn', `the saved ${what.label} could not be read; rebuilding it`, { error });
  }
  return null;
}

function loadParts<T>(repo: Repository, what: Saved<T>, legs: LegFactory, stamp: Stamp): T {
  const parts = savedParts(repo, what.name, stamp);
  if (parts === null) throw new Error('its parts are incomplete');
  return what.load(legs, parts);
}

/** Writes outside `Repository.transaction` on purpose: saving derived bytes is not a write to the truth and must not move the generation. */
export function save<T extends { save(): Uint8Array }>(repo: Repository, what: Saved<T>, stamp: Stamp, index: T): void {
  saveBytes(repo, what.name, stamp, index.save());
}

/** Name of the vector index's per-vector derived state (`VectorIndex.saveQuantized`). */
export const QUANTIZED = 'quantized';

export function saveBytes(repo: Repository, name: string, stamp: Stamp, bytes: Uint8Array): void {
  repo.derived.write(name, stamp.key, bytes);
}

/** The value saved under `name` when every part's stamp is `stamp`, for a loader to read part by part; the index it is offered to checks it. */
export function savedParts(repo: Repository, name: string, stamp: Stamp): PartedBytes | null {
  return repo.derived.read(name, stamp.key);
}
