// A Node server's use of the package under NodeNext resolution, type-checked against the packed
// declarations with Node's types and no DOM, strictly (`exactOptionalPropertyTypes` too), without
// skipping declaration files and without the optional peers: no declaration it reaches may name a
// browser global.
import { HybridMemory, type RecallOptions } from 'hybridmind';
import { SqliteFileDriver, defaultLocalModelPath } from 'hybridmind/node';
import { PostgresMemory, type PgPool } from 'hybridmind/postgres';

export async function serve(file: string, pool: PgPool, kind?: string): Promise<number> {
  const model: string = await defaultLocalModelPath();
  const mem = await HybridMemory.open({ storage: file, embedder: null });
  // A value the server may not have is forwarded as it is: undefined is a field left out.
  await mem.store({ text: 'from the server', kind, validTo: undefined });
  const options: RecallOptions = { k: 3, asOf: '2026-01-01', includeHistorical: false, filter: { kind } };
  const hits = await mem.recall(model, options);
  // @ts-expect-error k is a number
  await mem.recall(model, { k: '3' });
  const pg = await PostgresMemory.open({ connection: { pool }, embedder: null });
  const report = await pg.syncWith(mem, null);
  await Promise.all([mem.close(), pg.close()]);
  return hits.length + report.pushed.memories + (SqliteFileDriver.name.length > 0 ? 1 : 0);
}
