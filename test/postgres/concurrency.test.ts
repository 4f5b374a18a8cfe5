import { describe, expect, it } from 'vitest';
import { PostgresMemory } from '../../src/postgres/index.js';
import { HashEmbedder } from '../support/hash-embedder.js';
import { useCluster } from './fixture.js';
import { stress } from './stress.js';

const cluster = useCluster();

describe('many writers and readers on one Postgres memory', () => {
  it('opening a new schema from many clients at once migrates it once', async () => {
    const schema = cluster().schema('race');
    const opened = await Promise.all(Array.from({ length: 12 }, () => PostgresMemory.open({ connection: { ...cluster().connection, max: 1 }, schema, embedder: new HashEmbedder() })));
    const versions = await Promise.all(opened.map(async (m) => (await m.stats()).schemaVersion));
    expect(new Set(versions).size).toBe(1);
    await Promise.all(opened.map((m, i) => m.store({ id: `m${i}`, text: `opened by client ${i}` })));
    expect((await opened[0]!.stats()).memories).toBe(12);
    await Promise.all(opened.map((m) => m.close()));
  });

  it('32 clients storing and recalling for a bounded time lose no write, see no half batch, get only coded errors', async () => {
    const r = await stress({
      connection: cluster().connection,
      schema: cluster().schema('stress'),
      embedder: new HashEmbedder(64),
      clients: 32,
      seconds: Number(process.env['HYBRIDMIND_PG_STRESS_SECONDS'] ?? 15),
      preload: 10_000,
    });
    expect(r.uncoded).toEqual([]);
    expect(r.lostWrites).toBe(0);
    expect(r.halfBatches).toBe(0);
    expect(r.memoriesAtEnd).toBe(r.expectedMemories);
    expect(r.acknowledgedBatches).toBeGreaterThan(32);
    expect(r.recalls).toBeGreaterThan(32);
  }, 240_000);
});
