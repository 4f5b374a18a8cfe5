import { HybridMindError } from '../errors.js';
import { optionalImport } from '../optional-import.js';

/**
 * The slice of node-postgres this engine uses, declared here so the published types do not
 * require `@types/pg`: a `pg.Pool` (or anything shaped like one) satisfies it.
 */
export interface PgQueryResult {
  rows: Array<Record<string, unknown>>;
  rowCount: number | null;
}

export interface PgClient {
  query(text: string, values?: readonly unknown[]): Promise<PgQueryResult>;
  release(error?: Error | boolean): void;
}

export interface PgPool {
  query(text: string, values?: readonly unknown[]): Promise<PgQueryResult>;
  connect(): Promise<PgClient>;
  end(): Promise<void>;
}

/** The exact version the engine is tested with; the peer dependency range is `^` of it. */
export const PG_VERSION = '8.23.1';

/**
 * `pg` is an optional peer dependency: only this entry loads it, so browser and edge apps never
 * install it. Missing, it is the shared MISSING_DEPENDENCY error naming the package to install.
 */
export async function loadPg(method: string): Promise<{ Pool: new (config: Record<string, unknown>) => PgPool }> {
  type PoolClass = new (config: Record<string, unknown>) => PgPool;
  const mod = await optionalImport<{ default?: { Pool: PoolClass } | undefined; Pool?: PoolClass | undefined }>(method, 'pg', 'pg');
  const Pool = mod.default?.Pool ?? mod.Pool;
  if (!Pool) throw new HybridMindError('UNSUPPORTED', method, `the installed "pg" has no Pool export; install pg@${PG_VERSION}`);
  return { Pool };
}
