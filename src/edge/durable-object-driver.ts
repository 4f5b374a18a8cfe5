import { HybridMindError, messageOf } from '../errors.js';
import type { SqlDriver, SqlRow, SqlValue } from '../storage/driver.js';
import { databaseImage } from './sqlite-file/image.js';
import { encodeDatabase } from './sqlite-file/write.js';

/** A value Durable Object SQLite hands back: blobs arrive as ArrayBuffer. */
export type DurableObjectSqlValue = ArrayBuffer | string | number | null;

/**
 * The part of a Durable Object's `ctx.storage` the driver uses. Structural, so this package
 * needs no Workers types; `DurableObjectState['storage']` from `@cloudflare/workers-types` fits.
 */
export interface DurableObjectStorageLike {
  readonly sql: {
    exec(query: string, ...bindings: unknown[]): { toArray(): Array<Record<string, DurableObjectSqlValue>> };
  };
  transactionSync<T>(fn: () => T): T;
}

function storageError(method: string, cause: unknown): HybridMindError {
  if (cause instanceof HybridMindError) return cause;
  const message = messageOf(cause);
  return new HybridMindError(/SQLITE_CORRUPT|malformed/i.test(message) ? 'CORRUPT' : 'STORAGE', method, message, { cause });
}

/** Durable Object SQLite refuses VACUUM (every statement runs inside its implicit transaction) and compacts its own files. */
const VACUUM = /^\s*VACUUM\s*;?\s*$/i;

/**
 * A `SqlDriver` over Durable Object SQLite (`ctx.storage.sql`), one database per Durable Object.
 *
 * - Statements run through `sql.exec`, which accepts several `;`-separated statements (the
 *   migrations) and binds parameters to the last one.
 * - Transactions are `ctx.storage.transactionSync`: SQL `BEGIN`/`SAVEPOINT` are refused there.
 *   Nested `transaction()` calls join the outer one, as the `SqlDriver` contract says.
 * - `serialize()` writes a standard SQLite file from the rows (`src/edge/sqlite-file`), because
 *   the platform gives no access to the database file; snapshots and `exportDatabase()` use it.
 *
 * @example
 * export class Memory extends DurableObject {
 *   mem = HybridMemory.open({ storage: new DurableObjectDriver(this.ctx.storage), embedder: null, vectorKernel: kernelModule });
 * }
 */
export class DurableObjectDriver implements SqlDriver {
  readonly name = 'durable-object-sqlite';
  readonly #storage: DurableObjectStorageLike;
  #depth = 0;
  #closed = false;

  constructor(storage: DurableObjectStorageLike) {
    if (!storage || typeof storage.sql?.exec !== 'function' || typeof storage.transactionSync !== 'function') {
      throw new HybridMindError('INVALID_ARGUMENT', 'DurableObjectDriver', 'storage must be a SQLite-backed Durable Object\'s ctx.storage (with sql.exec and transactionSync); declare the class under new_sqlite_classes');
    }
    this.#storage = storage;
  }

  #run(method: string, sql: string, params?: readonly SqlValue[]): Array<Record<string, DurableObjectSqlValue>> {
    if (this.#closed) throw new HybridMindError('CLOSED', method, 'the driver is closed');
    try {
      return this.#storage.sql.exec(sql, ...(params ?? []).map(binding)).toArray();
    } catch (cause) {
      throw storageError(method, cause);
    }
  }

  exec(sql: string, params?: readonly SqlValue[]): void {
    if (VACUUM.test(sql)) return;
    this.#run('SqlDriver.exec', sql, params);
  }

  all<T extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): T[] {
    const rows = this.#run('SqlDriver.all', sql, params);
    for (const row of rows) {
      for (const key in row) {
        const value = row[key];
        if (value instanceof ArrayBuffer) (row as Record<string, unknown>)[key] = new Uint8Array(value);
      }
    }
    return rows as unknown as T[];
  }

  transaction<T>(fn: () => T): T {
    if (this.#depth > 0) return fn();
    if (this.#closed) throw new HybridMindError('CLOSED', 'SqlDriver.transaction', 'the driver is closed');
    this.#depth++;
    try {
      return this.#storage.transactionSync(fn);
    } finally {
      this.#depth--;
    }
  }

  serialize(): Uint8Array {
    if (this.#closed) throw new HybridMindError('CLOSED', 'SqlDriver.serialize', 'the driver is closed');
    // Synchronous from start to end, so no other request of this Durable Object can write in between.
    return encodeDatabase(databaseImage(this));
  }

  /** The Durable Object owns the database; closing only stops this driver from using it. */
  close(): void {
    this.#closed = true;
  }
}

/** A view into a larger buffer is copied so exactly its bytes are bound. */
function binding(value: SqlValue): unknown {
  if (value instanceof Uint8Array && (value.byteOffset !== 0 || value.byteLength !== value.buffer.byteLength)) return value.slice();
  return value;
}
