import { HybridMindError, messageOf } from '../errors.js';
import type { PgClient, PgPool, PgQueryResult } from './pg.js';

/** SQLSTATEs after which the whole transaction may simply run again: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 8;

export type Query = (text: string, values?: readonly unknown[]) => Promise<PgQueryResult>;

/**
 * One schema of one database: every statement names its tables through `t()`, so several
 * memories can share a database, each in its own schema.
 */
export class Db {
  readonly pool: PgPool;
  readonly schema: string;
  readonly #ownsPool: boolean;

  constructor(pool: PgPool, schema: string, ownsPool: boolean) {
    this.pool = pool;
    this.schema = schema;
    this.#ownsPool = ownsPool;
  }

  /** A table of this memory, schema-qualified and quoted. */
  t(table: string): string {
    return `"${this.schema}"."${table}"`;
  }

  async query(method: string, text: string, values?: readonly unknown[]): Promise<PgQueryResult> {
    try {
      return await this.pool.query(text, values);
    } catch (cause) {
      throw storageError(method, cause);
    }
  }

  /**
   * One write batch: BEGIN … COMMIT on one connection, all or nothing. A serialization failure
   * or deadlock with a concurrent writer runs the batch again (the losing side saw none of it);
   * a HybridMindError thrown by `fn` rolls back and surfaces as it is.
   */
  async transaction<T>(method: string, fn: (q: Query) => Promise<T>, mode: 'write' | 'read' = 'write'): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let client: PgClient;
      try {
        client = await this.pool.connect();
      } catch (cause) {
        throw storageError(method, cause);
      }
      const q: Query = (text, values) => client.query(text, values);
      let broken: Error | undefined;
      try {
        await q(mode === 'read' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
        const result = await fn(q);
        await q('COMMIT');
        return result;
      } catch (error) {
        await q('ROLLBACK').catch((e: unknown) => {
          broken = e instanceof Error ? e : new Error(String(e));
        });
        if (error instanceof HybridMindError) throw error;
        if (RETRYABLE.has(sqlState(error)) && attempt < MAX_ATTEMPTS) {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
          continue;
        }
        throw storageError(method, error);
      } finally {
        client.release(broken ?? false);
      }
    }
  }

  async close(): Promise<void> {
    if (this.#ownsPool) await this.pool.end();
  }
}

export function sqlState(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

export function storageError(method: string, cause: unknown): HybridMindError {
  if (cause instanceof HybridMindError) return cause;
  const message = messageOf(cause);
  return new HybridMindError('STORAGE', method, `PostgreSQL failed: ${message}`, { cause });
}
