import type { Database, PreparedStatement, Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import { HybridMindError, messageOf } from '../errors.js';
import { checkIntInRange, INT32_MAX, INT32_MIN } from '../util/int-checks.js';
import type { DerivedStore, SqlDriver, SqlRow, SqlValue } from './driver.js';
import { loadSqlite3 } from './sqlite3-module.js';
import { Transactions } from './transactions.js';

/**
 * SQLite-WASM's module as its `sqlite3InitModule()` resolves it. Described by shape rather than
 * by SQLite-WASM's own type: naming that type would make an app's compiler read SQLite-WASM's
 * declarations, which name browser globals (`Worker`, `WebAssembly`) that a Node app's types lack.
 */
export interface Sqlite3Module {
  readonly oo1: { readonly DB: abstract new (...args: never[]) => object };
  readonly capi: object;
  readonly wasm: object;
  readonly version: { readonly libVersion: string };
}

export interface SqliteWasmOptions {
  /** Database file name for a persistent VFS; default an in-memory database. */
  filename?: string | undefined;
  /** VFS name, e.g. `opfs-sahpool`'s installed name in a worker. */
  vfs?: string | undefined;
  /** Start from these database bytes (an in-memory copy; e.g. a snapshot's store.db). */
  bytes?: Uint8Array | undefined;
  /** An already initialised sqlite3 module (the worker shares one between stores). */
  sqlite3?: Sqlite3Module | undefined;
  /** Keep derived values here rather than in `derived_index` (`SqlDriver.derived`); the driver owns it from now on and closes it. */
  derived?: DerivedStore | undefined;
}

/** SQLite's fixed result and datatype codes (sqlite3.h), for the raw exports' results. */
const SQLITE_ROW = 100;
const SQLITE_DONE = 101;
const SQLITE_INTEGER = 1;
const SQLITE_FLOAT = 2;
const SQLITE_TEXT = 3;
const SQLITE_NULL = 5;

/** The C functions the hot lookups call unwrapped: statements and results are pointers and codes. */
interface RawExports {
  sqlite3_bind_int(stmt: number, index: number, value: number): number;
  sqlite3_step(stmt: number): number;
  sqlite3_reset(stmt: number): number;
  sqlite3_clear_bindings(stmt: number): number;
  sqlite3_column_count(stmt: number): number;
  sqlite3_column_type(stmt: number, column: number): number;
  sqlite3_column_double(stmt: number, column: number): number;
  sqlite3_column_text(stmt: number, column: number): number;
  sqlite3_column_blob(stmt: number, column: number): number;
  sqlite3_column_bytes(stmt: number, column: number): number;
}

const utf8 = new TextDecoder();

/**
 * An in-memory database keeps every page in the heap, so a page's unused tail is memory held for
 * nothing. SQLite-WASM's default 8 KB page holds five rows of a 384-d vector (1.5 KB each) and
 * leaves 6% of itself empty; a 32 KB page holds 21 and leaves 1%, and each page's cache header is
 * paid a quarter as often (the speed corpus at 100k: 184.0 → 176.5 MiB of pages). Files keep the
 * default: they are read and written a page at a time, and only a bounded cache of them is heap.
 */
const MEMORY_PAGE_SIZE = 32_768;

/** Text from SQLite's memory; `TextDecoder` refuses a view of shared memory, which a threaded build would have. */
function decodeText(view: Uint8Array): string {
  return utf8.decode(typeof SharedArrayBuffer !== 'undefined' && view.buffer instanceof SharedArrayBuffer ? view.slice() : view);
}

function toStorageError(method: string, cause: unknown): HybridMindError {
  if (cause instanceof HybridMindError) return cause;
  const message = messageOf(cause);
  const code = /SQLITE_CORRUPT|SQLITE_NOTADB|malformed|not a database/i.test(message) ? 'CORRUPT' : 'STORAGE';
  return new HybridMindError(code, method, message, { cause });
}

/** A `SqlDriver` over SQLite-WASM's oo1 API with a prepared-statement cache. */
export class SqliteWasmDriver implements SqlDriver {
  readonly name: string;
  readonly derived?: DerivedStore;
  readonly #sqlite3: Sqlite3Static;
  readonly #raw: RawExports;
  readonly #db: Database;
  readonly #statements = new Map<string, PreparedStatement>();
  readonly #transactions = new Transactions((sql) => this.exec(sql));

  private constructor(sqlite3: Sqlite3Static, db: Database, name: string, derived: DerivedStore | undefined) {
    this.#sqlite3 = sqlite3;
    this.#raw = sqlite3.wasm.exports as RawExports;
    this.#db = db;
    this.name = name;
    if (derived) this.derived = derived;
  }

  static async open(options: SqliteWasmOptions = {}): Promise<SqliteWasmDriver> {
    const filename = options.filename ?? ':memory:';
    let db: Database;
    let sqlite3: Sqlite3Static;
    try {
      sqlite3 = (options.sqlite3 as Sqlite3Static | undefined) ?? (await loadSqlite3());
      db = options.vfs ? new sqlite3.oo1.DB(filename, 'c', options.vfs) : new sqlite3.oo1.DB(filename, 'c');
    } catch (cause) {
      options.derived?.close?.();
      throw toStorageError('HybridMemory.open', cause);
    }
    const driver = new SqliteWasmDriver(sqlite3, db, `sqlite-wasm:${options.vfs ?? (filename === ':memory:' ? 'memory' : filename)}`, options.derived);
    try {
      if (options.bytes) driver.#deserialize(options.bytes);
      else if (filename === ':memory:' && !options.vfs) db.exec(`PRAGMA page_size = ${MEMORY_PAGE_SIZE}`);
      db.exec('PRAGMA foreign_keys = ON');
      // A forgotten or rewritten memory must not live on in free space that an export copies out.
      db.exec('PRAGMA secure_delete = ON');
    } catch (cause) {
      driver.close();
      throw toStorageError('HybridMemory.open', cause);
    }
    return driver;
  }

  #deserialize(bytes: Uint8Array): void {
    const { capi, wasm } = this.#sqlite3;
    const pointer = wasm.allocFromTypedArray(bytes);
    const flags = capi.SQLITE_DESERIALIZE_FREEONCLOSE | capi.SQLITE_DESERIALIZE_RESIZEABLE;
    const rc = capi.sqlite3_deserialize(this.#db, 'main', pointer, bytes.byteLength, bytes.byteLength, flags);
    if (rc !== 0) throw new HybridMindError('CORRUPT', 'HybridMemory.open', `the database bytes were refused by SQLite (code ${rc})`);
    // Deserialisation succeeds on garbage; reading the schema is what proves the bytes are a database.
    this.#db.exec('SELECT count(*) FROM sqlite_master');
  }

  #statement(sql: string): PreparedStatement {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  exec(sql: string, params?: readonly SqlValue[]): void {
    try {
      if (params && params.length > 0) {
        const stmt = this.#statement(sql);
        try {
          stmt.bind(params as SqlValue[]);
          while (stmt.step());
        } finally {
          stmt.reset(true);
        }
      } else {
        this.#db.exec(sql);
      }
    } catch (cause) {
      throw toStorageError('SqlDriver.exec', cause);
    }
  }

  all<T extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): T[] {
    const rows: T[] = [];
    try {
      const stmt = this.#statement(sql);
      try {
        if (params && params.length > 0) stmt.bind(params as SqlValue[]);
        // Rows as arrays keyed by names read once: get({}) looks the names up again for every row, twice as slow.
        const names = stmt.columnCount > 0 ? stmt.getColumnNames() : [];
        while (stmt.step()) {
          const values = stmt.get([]) as SqlValue[];
          const row: SqlRow = {};
          for (let i = 0; i < names.length; i++) row[names[i]!] = values[i]!;
          rows.push(row as T);
        }
      } finally {
        stmt.reset(true);
      }
    } catch (cause) {
      throw toStorageError('SqlDriver.all', cause);
    }
    return rows;
  }

  visitRows(sql: string, params: readonly SqlValue[], visit: (values: readonly SqlValue[]) => void): void {
    try {
      const stmt = this.#statement(sql);
      try {
        if (params.length > 0) stmt.bind(params as SqlValue[]);
        const values: SqlValue[] = new Array<SqlValue>(stmt.columnCount);
        while (stmt.step()) visit(this.#row(stmt.pointer!, values));
      } finally {
        stmt.reset(true);
      }
    } catch (cause) {
      throw toStorageError('SqlDriver.visitRows', cause);
    }
  }

  /**
   * Through the module's raw exports, not the statement object's `bind`/`step`/`reset` nor even
   * `capi`'s wrappers, whose argument adapters and scoped allocations were most of a lookup's cost
   * (ten texts by number: ~50 µs through `capi`, ~22 µs raw). Every argument is a pointer or an
   * int32 already checked, which is all the wrappers would have made of them.
   */
  visitByKey(sql: string, keys: readonly number[], visit: (key: number, values: readonly SqlValue[]) => void): void {
    const raw = this.#raw;
    try {
      const stmt = this.#statement(sql);
      const at = stmt.pointer!;
      const values: SqlValue[] = new Array<SqlValue>(raw.sqlite3_column_count(at));
      for (const key of keys) {
        checkIntInRange('SqlDriver.visitByKey', 'key', key, INT32_MIN, INT32_MAX);
        try {
          this.#check(raw.sqlite3_bind_int(at, 1, key));
          let rc: number;
          while ((rc = raw.sqlite3_step(at)) === SQLITE_ROW) visit(key, this.#row(at, values));
          if (rc !== SQLITE_DONE) this.#check(rc);
        } finally {
          raw.sqlite3_reset(at);
        }
      }
      raw.sqlite3_clear_bindings(at);
    } catch (cause) {
      throw toStorageError('SqlDriver.visitByKey', cause);
    }
  }

  /** Throws SQLite's own message for a result code that is not OK. */
  #check(rc: number): void {
    if (rc === 0) return;
    const { capi } = this.#sqlite3;
    throw new Error(`${capi.sqlite3_js_rc_str(rc)}: ${capi.sqlite3_errmsg(this.#db.pointer!)}`);
  }

  /**
   * The current row's values into `values`, read through the raw exports (the statement object's
   * `get` refuses a row its own `step` did not return): text decoded from SQLite's memory without a
   * copy, blobs as views of it (see `visitRows`), integers as numbers (exact to 2⁵³, past every
   * number the schema keeps).
   */
  #row(stmt: number, values: SqlValue[]): SqlValue[] {
    const raw = this.#raw;
    for (let i = 0; i < values.length; i++) {
      const type = raw.sqlite3_column_type(stmt, i);
      if (type === SQLITE_INTEGER || type === SQLITE_FLOAT) values[i] = raw.sqlite3_column_double(stmt, i);
      else if (type === SQLITE_NULL) values[i] = null;
      else {
        // The pointer, then the byte count, then the heap's view: asking for the pointer may convert
        // the value (allocating, so growing the heap), after which its byte count is the one that holds.
        const at = type === SQLITE_TEXT ? raw.sqlite3_column_text(stmt, i) : raw.sqlite3_column_blob(stmt, i);
        const bytes = raw.sqlite3_column_bytes(stmt, i);
        const view = this.#sqlite3.wasm.heap8u().subarray(at, at + bytes);
        values[i] = type === SQLITE_TEXT ? decodeText(view) : view;
      }
    }
    return values;
  }

  transaction<T>(fn: () => T): T {
    return this.#transactions.run(fn);
  }

  serialize(): Uint8Array {
    try {
      return this.#sqlite3.capi.sqlite3_js_db_export(this.#db);
    } catch (cause) {
      throw toStorageError('SqlDriver.serialize', cause);
    }
  }

  close(): void {
    for (const stmt of this.#statements.values()) stmt.finalize();
    this.#statements.clear();
    try {
      this.#db.close();
    } finally {
      this.derived?.close?.();
    }
  }
}
