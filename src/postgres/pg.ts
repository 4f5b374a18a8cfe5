import { HybridMindError } from '../errors.js';

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
 * install it. Missing, it is a coded error that names the package to install.
 */
export async function loadPg(method: string): Promise<{ Pool: new (config: Record<string, unknown>) => PgPool }> {
  try {
    const mod = (await import('pg')) as unknown as { default?: { Pool: new (config: Record<string, unknown>) => PgPool }; Pool?: new (config: Record<string, unknown>) => PgPool };
    const Pool = mod.default?.Pool ?? mod.Pool;
    if (!Pool) throw new Error('the module has no Pool export');
    return { Pool };
  } catch (cause) {
    throw new HybridMindError('UNSUPPORTED', method, `hybridmind/postgres needs the optional peer dependency "pg"; install it with \`npm install pg@${PG_VERSION}\``, { cause });
  }
}
