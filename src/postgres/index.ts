/**
 * `hybridmind/postgres`: the same memory on PostgreSQL + pgvector. Needs the optional peer
 * dependency `pg` (node-postgres); nothing else in the package loads it.
 */
export { PostgresMemory, type PostgresOpenOptions } from './memory.js';
export type { SyncCursor, SyncCounts, SyncReport } from './sync.js';
export type { PgPool, PgClient, PgQueryResult } from './pg.js';
