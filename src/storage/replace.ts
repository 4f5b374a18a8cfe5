import { HybridMindError } from '../errors.js';
import type { SqlDriver } from '../storage/driver.js';
import type { Repository } from '../storage/repository.js';

/**
 * Replaces the target database's rows with the source's in ONE transaction on the target's own
 * driver. The target keeps its storage (OPFS, a Durable Object, memory): swapping in the
 * snapshot's in-memory database instead would silently stop persisting a persistent store.
 * If anything fails the transaction rolls back and the target is as it was. Rowids are copied,
 * so indexes built from the source are valid for the target. Both databases have the same schema
 * (the source was checked against it), so the table list is read from the source.
 *
 * Derived values kept beside the database (`SqlDriver.derived`) are forgotten first: they are not
 * in this transaction, and rows replaced under them could come to carry the stamp they were saved
 * with. Should the transaction then fail, they are only rebuilt at the next open.
 */
export function replaceContent(method: string, source: Repository, target: Repository): void {
  const tables = tablesInDependencyOrder(method, source.db).map((table) => ({ table, rows: source.db.all(`SELECT * FROM "${table}"`) }));
  target.derived.clear?.();
  target.transaction(method, () => {
    for (const { table } of [...tables].reverse()) target.db.exec(`DELETE FROM "${table}"`);
    for (const { table, rows } of tables) {
      for (const row of rows) {
        const columns = Object.keys(row);
        target.db.exec(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, columns.map((c) => row[c]!));
      }
    }
  });
}

/**
 * The tables (default: every table), each after the tables its foreign keys point at (inserts
 * need that; deletes go in reverse). Only the given tables are inspected: Durable Objects refuse
 * pragmas on their own `_cf_*` tables.
 */
export function tablesInDependencyOrder(method: string, db: SqlDriver, only?: readonly string[]): string[] {
  const tables = only ? [...only] : db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").map((r) => String(r.name));
  const parents = new Map(tables.map((t) => [t, db.all<{ parent: string }>('SELECT "table" AS parent FROM pragma_foreign_key_list(?)', [t]).map((r) => String(r.parent)).filter((p) => p !== t && tables.includes(p))]));
  const ordered: string[] = [];
  while (ordered.length < tables.length) {
    const next = tables.find((t) => !ordered.includes(t) && parents.get(t)!.every((p) => ordered.includes(p)));
    if (next === undefined) throw new HybridMindError('CORRUPT', method, 'the schema\'s foreign keys form a cycle');
    ordered.push(next);
  }
  return ordered;
}
