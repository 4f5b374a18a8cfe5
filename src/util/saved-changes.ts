/**
 * When an index kept as a base plus the changes since it (the lexical postings, the entity index)
 * folds them into a new base rather than keeping them apart: one rule for both, at a save and when
 * a store that does not save compacts after writes go quiet.
 *
 * Below it, a save writes the base's bytes as they were and the changes after them, so SQLite
 * rewrites only the pages at the end (a fold moves every byte: 12.5 MB of lexical index at 100k
 * memories for one new one). Past it, an open would rebuild the changes one by one, and the
 * in-memory lists they are kept in take far more heap than the base's flat arrays (at 100k
 * memories after an ingest, 10.6 MiB of heap in lexical lists and 13.4 MiB in entity maps,
 * against ~0.8 and ~0.6 MiB of heap and ~5 MiB of arrays outside it once folded).
 */
const FLOOR = 64;
const SHARE = 1 / 64;

/** Whether `changes` (documents added or removed since the base) to an index of `held` documents are many enough to fold. */
export function foldsChanges(changes: number, held: number): boolean {
  return changes > Math.max(FLOOR, SHARE * held);
}
