/**
 * Node only: a store kept as a real SQLite file on disk (better-sqlite3, WAL). Reached through
 * `hybridmind/node` or, for `open({ storage: '/path/memory.db' })`, through an import that
 * bundlers do not follow, so browser and edge builds never see node:fs or a native addon.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { HybridMindError, invalid, messageOf } from '../errors.js';
import { nodeInRange } from '../util/engines.js';
import { checkIntInRange, checkNonNegativeInt, INT32_MAX, INT32_MIN } from '../util/int-checks.js';
import { optionalImport } from '../optional-import.js';
import type { DerivedStore, SqlDriver, SqlRow, SqlValue } from './driver.js';
import { derivedFolderOf, openNodeDerivedFiles, removeNodeDerivedFiles } from './node-derived-files.js';
import { Transactions } from './transactions.js';

/** SQLite-WASM's default page size (a test holds the two together). */
export const PAGE_SIZE = 8192;

export interface SqliteFileOptions {
  /**
   * How long to wait for another process that holds the file before failing with BUSY, in ms.
   * Default 2000: enough for a restarting server to let go, short enough to report a real clash.
   */
  lockTimeoutMs?: number | undefined;
  /**
   * Keep what the store derives from its rows (the saved lexical and entity indexes and catalog,
   * the int8 vector codes) in files in a folder beside the database, `<path>-derived/`, instead
   * of inside it. Default true: a cold open reads each with one file read instead of through
   * SQLite. The folder is a cache bound to this database: a `.db` copied without it opens
   * correctly and rebuilds what it lacks once; copied with it, it opens from it. false keeps the
   * store in the one `.db` file, and removes the folder an earlier open left.
   */
  derivedFiles?: boolean | undefined;
}

/** The part of better-sqlite3's API this driver uses, declared here so published types need no @types package. */
interface Statement {
  readonly reader: boolean;
  run(...params: unknown[]): unknown;
  all(...params: unknown[]): Array<Record<string, unknown>>;
  raw(toggle: boolean): RawStatement;
}
interface RawStatement {
  all(...params: unknown[]): unknown[][];
}
interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  pragma(sql: string, options?: { simple: boolean }): unknown;
  serialize(): Uint8Array;
  close(): void;
}
type DatabaseConstructor = new (path: string, options: { timeout: number }) => Database;

let engine: Promise<DatabaseConstructor> | undefined;

/**
 * Loads the optional peer dependency on first use; missing, or declared for another Node, it is
 * MISSING_DEPENDENCY naming the package.
 */
function loadEngine(method: string): Promise<DatabaseConstructor> {
  engine ??= optionalImport<{ default: DatabaseConstructor }>(method, 'better-sqlite3', 'better-sqlite3')
    .then((m) => {
      checkEngineNode(method, installedEngine(), process.versions.node);
      return m.default;
    })
    .catch((error: unknown) => {
      engine = undefined;
      throw error;
    });
  return engine;
}

/** What `checkEngineNode` reads of a package.json. */
type EnginePackage = { version?: unknown; engines?: { node?: unknown } | undefined };

/** The installed better-sqlite3's package.json, found as the import above found the package; empty if it cannot be read. */
function installedEngine(): EnginePackage {
  try {
    return createRequire(import.meta.url)('better-sqlite3/package.json') as EnginePackage;
  } catch {
    return {};
  }
}

/**
 * better-sqlite3 13 declares Node ≥ 22, and under Node 20 its addon crashes the process (a
 * segmentation fault, nothing to catch) at the first database it opens, where npm installed it
 * with a warning only. So no database is opened with a better-sqlite3 whose `engines.node` leaves
 * this Node out; a range written in a form `nodeInRange` does not read is taken as it is.
 */
export function checkEngineNode(method: string, pkg: EnginePackage, node: string): void {
  const range = pkg.engines?.node;
  if (typeof range !== 'string' || nodeInRange(range, node) !== false) return;
  throw new HybridMindError('MISSING_DEPENDENCY', method,
    `the installed better-sqlite3 ${String(pkg.version)} supports Node ${range}, and this is Node ${node}: install one that supports it (\`npm install better-sqlite3@12\` on Node 20)`);
}

/** better-sqlite3 loads its native addon on first use: an install that skipped its build script fails only here. */
function addonMissing(method: string, cause: unknown): HybridMindError | null {
  const message = messageOf(cause);
  if (!/bindings file|better_sqlite3\.node|NODE_MODULE_VERSION/.test(message)) return null;
  return new HybridMindError('MISSING_DEPENDENCY', method, `better-sqlite3 is installed but its native addon is not built for this Node (${message.split('\n')[0]}); run \`npm rebuild better-sqlite3\` (allow its install script)`, { cause });
}

function toStorageError(method: string, cause: unknown): HybridMindError {
  if (cause instanceof HybridMindError) return cause;
  const message = messageOf(cause);
  const sqliteCode = (cause as { code?: unknown }).code;
  const code = /SQLITE_CORRUPT|SQLITE_NOTADB/.test(String(sqliteCode)) || /malformed|not a database/i.test(message) ? 'CORRUPT'
    : /SQLITE_BUSY|SQLITE_LOCKED/.test(String(sqliteCode)) ? 'BUSY' : 'STORAGE';
  return new HybridMindError(code, method, message, { cause });
}

/** Blobs come back as Node Buffers that may share a pool; callers get their own bytes at offset 0, as from SQLite-WASM. */
function fromSqlite(row: Record<string, unknown>): SqlRow {
  for (const key in row) row[key] = ownBytes(row[key]);
  return row as SqlRow;
}

/** A blob as bytes of its own: better-sqlite3 hands out Buffers that may share one pool. */
function ownBytes(value: unknown): unknown {
  return value instanceof Uint8Array ? Uint8Array.prototype.slice.call(value) : value;
}

/**
 * A `SqlDriver` over one SQLite file, owned by this process until `close()`.
 *
 * - WAL with `synchronous = FULL`: a commit is on disk when `transaction()` returns, and costs
 *   what the batch wrote (the log is folded into the file in the background every ~4 MB), not a
 *   rewrite of the store. A crash — kill -9 or power loss — keeps every committed batch whole and
 *   drops an uncommitted one whole; the next open replays the log.
 * - One owner: the file is locked exclusively (`locking_mode = EXCLUSIVE`) for as long as it is
 *   open, because each `HybridMemory` keeps its indexes in memory and would not see another
 *   process's writes. A second process fails with BUSY after `lockTimeoutMs`. The operating
 *   system drops the lock when the owner dies, so a crash leaves nothing stale behind.
 * - Derived values (saved indexes, vector codes) in `<path>-derived/` beside the file by default
 *   (`derivedFiles`): caches bound to this database (`derived-lineage.ts`), never the truth.
 *
 * @example
 * import { HybridMemory } from 'hybridmind';
 * import { SqliteFileDriver } from 'hybridmind/node';
 * const mem = await HybridMemory.open({ storage: await SqliteFileDriver.open('./data/memory.db', { lockTimeoutMs: 10_000 }) });
 * // the same with defaults:
 * const mem2 = await HybridMemory.open({ storage: './data/other.db' });
 */
export class SqliteFileDriver implements SqlDriver {
  readonly name: string;
  /** The absolute path of the database file. */
  readonly path: string;
  /** The files beside the database that hold its derived values (`SqliteFileOptions.derivedFiles`). */
  readonly derived?: DerivedStore;
  readonly #db: Database;
  readonly #statements = new Map<string, Statement>();
  /** Statements in raw mode (rows as arrays), apart: the mode is the statement object's own. */
  readonly #rawStatements = new Map<string, RawStatement>();
  readonly #transactions = new Transactions((sql) => this.exec(sql));
  #closed = false;

  private constructor(db: Database, path: string, derived?: DerivedStore) {
    this.#db = db;
    this.path = path;
    this.name = `sqlite-file:${path}`;
    if (derived) this.derived = derived;
  }

  /** Opens (or creates, with its folders) the database file at `path` and takes ownership of it. */
  static async open(path: string, options: SqliteFileOptions = {}, method = 'SqliteFileDriver.open'): Promise<SqliteFileDriver> {
    if (typeof path !== 'string' || path.trim() === '' || path.includes('\0')) throw invalid(method, 'the storage path must be a non-empty file path', path);
    if (typeof options !== 'object' || options === null) throw invalid(method, 'options must be an object', options);
    const timeout = options.lockTimeoutMs ?? 2000;
    checkNonNegativeInt(method, 'options.lockTimeoutMs', timeout);
    const derivedFiles = options.derivedFiles ?? true;
    if (typeof derivedFiles !== 'boolean') throw invalid(method, 'options.derivedFiles must be a boolean', derivedFiles);
    const Database = await loadEngine(method);
    const absolute = resolve(path);
    try {
      mkdirSync(dirname(absolute), { recursive: true });
    } catch (cause) {
      throw new HybridMindError('STORAGE', method, `cannot create the folder of ${absolute}: ${messageOf(cause)}`, { cause });
    }
    let db: Database;
    try {
      db = new Database(absolute, { timeout });
    } catch (cause) {
      throw addonMissing(method, cause) ?? toStorageError(method, cause);
    }
    try {
      // Only a new file takes it (an existing one keeps its own): SQLite-WASM's page size, so a store
      // has the same pages in every runtime. It also packs the 1.5 KiB rows of 384-d vectors tighter
      // than better-sqlite3's 4 KiB (a 100k store: 231 → 185 MB on disk, and its ingest no slower).
      db.pragma(`page_size = ${PAGE_SIZE}`);
      // Exclusive mode first: then WAL needs no shared-memory file, and the lock below is held until close.
      db.pragma('locking_mode = EXCLUSIVE');
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new HybridMindError('STORAGE', method, `${absolute} cannot use SQLite's WAL mode (it stays in ${String(mode)})`);
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      // A forgotten or rewritten memory must not live on in free space that an export copies out.
      db.pragma('secure_delete = ON');
      db.exec('BEGIN EXCLUSIVE; COMMIT');
    } catch (cause) {
      db.close();
      const error = toStorageError(method, cause);
      if (error.code === 'BUSY') throw new HybridMindError('BUSY', method, `${absolute} is open elsewhere (in another process, or in another store of this one); a file store has one owner: close it there first`, { cause });
      throw error;
    }
    // Only now, under the database's lock: that lock is what keeps a second owner off the files too.
    const folder = derivedFolderOf(absolute);
    try {
      if (derivedFiles) return new SqliteFileDriver(db, absolute, openNodeDerivedFiles(folder, method));
      removeNodeDerivedFiles(folder, method);
      return new SqliteFileDriver(db, absolute);
    } catch (cause) {
      db.close();
      throw cause;
    }
  }

  #statement(sql: string): Statement {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  #check(method: string): void {
    if (this.#closed) throw new HybridMindError('CLOSED', method, `${this.path} is closed`);
  }

  exec(sql: string, params?: readonly SqlValue[]): void {
    this.#check('SqlDriver.exec');
    try {
      if (params && params.length > 0) {
        const stmt = this.#statement(sql);
        if (stmt.reader) stmt.all(...params);
        else stmt.run(...params);
      } else {
        this.#db.exec(sql);
      }
    } catch (cause) {
      throw toStorageError('SqlDriver.exec', cause);
    }
  }

  all<T extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): T[] {
    this.#check('SqlDriver.all');
    try {
      const stmt = this.#statement(sql);
      if (!stmt.reader) {
        stmt.run(...(params ?? []));
        return [];
      }
      return stmt.all(...(params ?? [])).map(fromSqlite) as T[];
    } catch (cause) {
      throw toStorageError('SqlDriver.all', cause);
    }
  }

  visitByKey(sql: string, keys: readonly number[], visit: (key: number, values: readonly SqlValue[]) => void): void {
    this.#check('SqlDriver.visitByKey');
    try {
      let stmt = this.#rawStatements.get(sql);
      if (!stmt) {
        stmt = this.#db.prepare(sql).raw(true);
        this.#rawStatements.set(sql, stmt);
      }
      for (const key of keys) {
        checkIntInRange('SqlDriver.visitByKey', 'key', key, INT32_MIN, INT32_MAX);
        for (const values of stmt.all(key)) {
          visit(key, values.map(ownBytes) as SqlValue[]);
        }
      }
    } catch (cause) {
      throw toStorageError('SqlDriver.visitByKey', cause);
    }
  }

  transaction<T>(fn: () => T): T {
    return this.#transactions.run(fn);
  }

  /**
   * The database as one self-contained image (log included). Its header is marked as a
   * rollback-journal database, since the WAL belongs to this file and an image opened elsewhere
   * (a snapshot read in memory) has none.
   */
  serialize(): Uint8Array {
    this.#check('SqlDriver.serialize');
    try {
      const buffer = this.#db.serialize();
      const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
      if (bytes.byteLength >= 20) {
        bytes[18] = 1;
        bytes[19] = 1;
      }
      return bytes;
    } catch (cause) {
      throw toStorageError('SqlDriver.serialize', cause);
    }
  }

  /** Folds the log into the file, releases the lock and leaves the `.db` file (and its derived files' folder) behind. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#statements.clear();
    this.#rawStatements.clear();
    try {
      this.#db.close();
    } finally {
      this.derived?.close?.();
    }
  }
}
