import { messageOf } from '../errors.js';
import type { Embedder } from '../embedder/types.js';
import type { SqlDriver, SqlValue } from '../storage/driver.js';
import { Repository } from '../storage/repository.js';
import { corrupt, type SnapshotLimits, type SnapshotManifest } from '../snapshot/format.js';
import { checkStoreContent, checkStoreVersion, readContent, readSnapshotParts } from '../snapshot/verify.js';
import { tablesInDependencyOrder } from '../storage/replace.js';
import { hasTable } from '../storage/schema.js';
import { DERIVED_TABLES } from '../validation/database.js';
import { SKIP_INTERNAL, tableLayout } from './sqlite-file/image.js';
import { SqliteFile } from './sqlite-file/read.js';
import type { StoredValue } from './sqlite-file/record.js';

export interface ImportIntoOptions {
  /** The embedder the store will be opened with: its id and dim must match the snapshot's. */
  embedder?: Embedder | null | undefined;
  limits?: SnapshotLimits | undefined;
}

/** The store's own schema version stays: an older snapshot's rows fit the newer schema, its version number does not. */
const KEEP_META_KEYS = new Set(['schema_version']);

/**
 * Replaces the content of the database behind `driver` with a `.mind.zip`'s, with no SQLite
 * engine besides the driver's own: for Cloudflare Workers, where SQLite-WASM cannot start. The
 * archive is checked as `HybridMemory.importSnapshot` checks it (container, manifest, checksums,
 * parts against store.db, row types); store.db is read by a strict pure-TypeScript reader instead
 * of SQLite-WASM, its rows are written and checked (foreign keys, types, parts) inside ONE
 * transaction of the target, and any failure rolls it back, leaving the store as it was.
 *
 * Close the `HybridMemory` over the database first and open a new one afterwards, which
 * rebuilds the indexes from the imported rows.
 *
 * @example
 * await mem.close();
 * const manifest = await importSnapshotInto(new DurableObjectDriver(ctx.storage), zipBytes, { embedder });
 * mem = await openDurableMemory(ctx.storage, { embedder });
 */
export async function importSnapshotInto(driver: SqlDriver, bytes: Uint8Array, options: ImportIntoOptions = {}): Promise<SnapshotManifest> {
  const method = 'importSnapshotInto';
  const { manifest, parts, derived } = await readSnapshotParts(method, bytes, { embedder: options.embedder ?? null, limits: options.limits });
  let file: SqliteFile;
  try {
    file = new SqliteFile(parts['store.db']);
  } catch (error) {
    throw corrupt(method, `store.db ${messageOf(error)}`, error);
  }

  const repo = new Repository(driver);
  const tables = contentTables(method, file, driver);
  checkStoreVersion(method, (tables.get('meta') ?? []).find((r) => r['key'] === 'schema_version')?.['value'], manifest);
  const order = tablesInDependencyOrder(method, driver, [...tables.keys(), ...DERIVED_TABLES.filter((t) => hasTable(driver, t))]);
  repo.transaction(method, () => {
    for (const table of [...order].reverse()) {
      if (table === 'meta') driver.exec(`DELETE FROM meta WHERE key NOT IN (${[...KEEP_META_KEYS].map(() => '?').join(', ')})`, [...KEEP_META_KEYS]);
      else driver.exec(`DELETE FROM "${table}"`);
    }
    for (const table of order) {
      for (const row of tables.get(table) ?? []) {
        if (table === 'meta' && KEEP_META_KEYS.has(String(row['key']))) continue;
        const columns = Object.keys(row);
        try {
          driver.exec(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, columns.map((c) => row[c]!));
        } catch (error) {
          throw corrupt(method, `store.db row of ${table} cannot be stored: ${messageOf(error)}`, error);
        }
      }
    }
    const orphans = driver.all<{ table: string; parent: string }>('PRAGMA foreign_key_check');
    if (orphans.length > 0) throw corrupt(method, `store.db has ${orphans.length} rows pointing at missing rows, e.g. in ${orphans[0]!.table} → ${orphans[0]!.parent}`);
    checkStoreContent(method, readContent(repo), manifest, derived);
  });
  return manifest;
}

type Row = Record<string, SqlValue>;

function entriesKey(entries: Array<{ type: string; name: string; tblName: string; sql: string | null }>): string {
  return JSON.stringify(entries.map((e) => [e.type, e.name, e.tblName, e.sql]).sort((a, b) => String(a[1]).localeCompare(String(b[1]))));
}

/**
 * store.db must hold exactly the target's tables and indexes, statement for statement, apart
 * from derived tables; then the target's column layout reads its records. Returns rows by table.
 */
function contentTables(method: string, file: SqliteFile, target: SqlDriver): Map<string, Row[]> {
  const derived = (tbl: string) => DERIVED_TABLES.includes(tbl);
  const theirs = file.schema.filter((e) => !e.name.startsWith('sqlite_stat') && !derived(e.tblName));
  const ours = target.all<{ type: string; name: string; tbl_name: string; sql: string | null }>(`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE ${SKIP_INTERNAL}`)
    .map((e) => ({ type: e.type, name: e.name, tblName: e.tbl_name, sql: e.sql }))
    .filter((e) => !derived(e.tblName));
  if (entriesKey(theirs) !== entriesKey(ours)) throw corrupt(method, 'store.db does not have the hybridmind schema (tables, indexes, views or triggers differ)');

  const tables = new Map<string, Row[]>();
  for (const entry of theirs) {
    if (entry.type !== 'table') continue;
    const layout = tableLayout(target, entry.name);
    const rows: Row[] = [];
    try {
      if (layout.withoutRowid) {
        for (const record of file.indexRecords(entry.rootpage)) rows.push(toRow(layout.columns, layout.withoutRowid, record, null, -1));
      } else {
        const cids = layout.columns.map((_, i) => i);
        for (const { rowid, values } of file.tableRows(entry.rootpage)) rows.push(toRow(layout.columns, cids, values, rowid, layout.aliasCid));
      }
    } catch (error) {
      throw corrupt(method, `store.db table ${entry.name}: ${messageOf(error)}`, error);
    }
    tables.set(entry.name, rows);
  }
  return tables;
}

/** A record as an INSERT's columns; a record shorter than the table (an added column) leaves the rest to their defaults. */
function toRow(columns: string[], cids: number[], record: StoredValue[], rowid: bigint | null, aliasCid: number): Row {
  if (record.length > cids.length) throw new Error(`a record has ${record.length} values for ${cids.length} columns`);
  const row: Row = {};
  record.forEach((value, i) => {
    const cid = cids[i]!;
    row[columns[cid]!] = cid === aliasCid ? sqlValue(rowid) : sqlValue(value);
  });
  if (aliasCid >= 0 && !(columns[aliasCid]! in row)) row[columns[aliasCid]!] = sqlValue(rowid);
  return row;
}

function sqlValue(value: StoredValue): SqlValue {
  if (typeof value !== 'bigint') return value;
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) throw new Error(`integer ${value} is beyond what JavaScript numbers hold exactly`);
  return Number(value);
}
