/**
 * The SQLite file engines compared for Node, each behind the library's `SqlDriver` seam so the
 * benchmark measures what `HybridMemory` would do with it. better-sqlite3 is the library's own
 * `SqliteFileDriver`; the others are thin adapters configured as their docs recommend for a
 * durable file (WAL where the engine has it, synchronous = FULL).
 */
import { createRequire } from 'node:module';
import { SqliteFileDriver } from '../../src/storage/node-file.js';
import type { SqlDriver, SqlRow, SqlValue } from '../../src/storage/driver.js';
import { Transactions } from '../../src/storage/transactions.js';

export const ENGINES = ['better-sqlite3', 'libsql', 'node-sqlite3-wasm'] as const;
export type EngineName = (typeof ENGINES)[number];

const require = createRequire(import.meta.url);

/** Statement-level adapter shared by the two engines that are not the library's own driver. */
abstract class AdapterDriver implements SqlDriver {
  abstract readonly name: string;
  readonly #transactions = new Transactions((sql) => this.exec(sql));
  abstract exec(sql: string, params?: readonly SqlValue[]): void;
  abstract all<T extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): T[];
  abstract serialize(): Uint8Array;
  abstract close(): void;

  transaction<T>(fn: () => T): T {
    return this.#transactions.run(fn);
  }
}

function normalizeRow(row: Record<string, unknown>): SqlRow {
  for (const key in row) {
    const v = row[key];
    if (v instanceof ArrayBuffer) row[key] = new Uint8Array(v.slice(0));
    else if (v instanceof Uint8Array) row[key] = Uint8Array.prototype.slice.call(v);
  }
  return row as SqlRow;
}

interface LibsqlStatement { reader: boolean; run(...p: unknown[]): unknown; all(...p: unknown[]): Array<Record<string, unknown>> }
interface LibsqlDatabase { prepare(sql: string): LibsqlStatement; exec(sql: string): void; close(): void }

class LibsqlDriver extends AdapterDriver {
  readonly name = 'libsql';
  readonly #db: LibsqlDatabase;
  readonly #stmts = new Map<string, LibsqlStatement>();
  readonly #path: string;

  constructor(path: string) {
    super();
    const Database = require('libsql') as new (path: string, o: { timeout: number }) => LibsqlDatabase;
    this.#path = path;
    this.#db = new Database(path, { timeout: 2000 });
    // Not EXCLUSIVE: libsql's closed connections keep their lock until their statements are collected, so a reopen in the same process would be BUSY.
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON');
  }

  #stmt(sql: string): LibsqlStatement {
    let s = this.#stmts.get(sql);
    if (!s) this.#stmts.set(sql, (s = this.#db.prepare(sql)));
    return s;
  }

  exec(sql: string, params?: readonly SqlValue[]): void {
    if (!params || params.length === 0) return this.#db.exec(sql);
    const s = this.#stmt(sql);
    if (s.reader) s.all(...params.map(toBuffer));
    else s.run(...params.map(toBuffer));
  }

  all<T extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): T[] {
    const s = this.#stmt(sql);
    const p = (params ?? []).map(toBuffer);
    if (!s.reader) {
      s.run(...p);
      return [];
    }
    return s.all(...p).map(normalizeRow) as T[];
  }

  serialize(): Uint8Array {
    // libsql has no working serialize(); a snapshot reads the file after a checkpoint instead.
    this.#db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    return new Uint8Array(require('node:fs').readFileSync(this.#path) as Buffer);
  }

  close(): void {
    this.#db.close();
  }
}

const toBuffer = (v: SqlValue): unknown => (v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v);

interface WasmStatement { all(values?: unknown[]): Array<Record<string, unknown>>; run(values?: unknown[]): unknown; finalize(): void }
interface WasmDatabase { prepare(sql: string): WasmStatement; exec(sql: string): void; close(): void }

class WasmFileDriver extends AdapterDriver {
  readonly name = 'node-sqlite3-wasm';
  readonly #db: WasmDatabase;
  readonly #stmts = new Map<string, WasmStatement>();
  readonly #path: string;

  constructor(path: string) {
    super();
    const { Database } = require('node-sqlite3-wasm') as { Database: new (path: string) => WasmDatabase };
    this.#path = path;
    this.#db = new Database(path);
    // It has no shared-memory methods, so WAL is refused and stays on the rollback journal.
    this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON');
  }

  #stmt(sql: string): WasmStatement {
    let s = this.#stmts.get(sql);
    if (!s) this.#stmts.set(sql, (s = this.#db.prepare(sql)));
    return s;
  }

  exec(sql: string, params?: readonly SqlValue[]): void {
    if (!params || params.length === 0) return this.#db.exec(sql);
    this.#stmt(sql).run([...params]);
  }

  all<T extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): T[] {
    return this.#stmt(sql).all([...(params ?? [])]).map(normalizeRow) as T[];
  }

  serialize(): Uint8Array {
    return new Uint8Array(require('node:fs').readFileSync(this.#path) as Buffer);
  }

  close(): void {
    for (const s of this.#stmts.values()) s.finalize();
    this.#db.close();
  }
}

export async function openEngine(engine: EngineName, path: string): Promise<SqlDriver> {
  if (engine === 'better-sqlite3') return SqliteFileDriver.open(path);
  if (engine === 'libsql') return new LibsqlDriver(path);
  return new WasmFileDriver(path);
}
