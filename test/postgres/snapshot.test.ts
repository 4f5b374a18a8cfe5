import { describe, expect, it } from 'vitest';
import { HybridMemory } from '../../src/index.js';
import { PostgresMemory } from '../../src/postgres/index.js';
import { codeOf } from '../support/errors.js';
import { HashEmbedder } from '../support/hash-embedder.js';
import { NOW, openMemory } from '../support/memory.js';
import { comparable, CORPUS, fill, openPg, useCluster } from './fixture.js';

const cluster = useCluster();
const QUERIES = ['where does agent memory live?', 'Order #4821', 'what does the checkout service payment path depend on?', 'how much is the team plan?'];

async function content(m: Pick<HybridMemory, 'get' | 'edges'>) {
  const out = [];
  for (const { id } of CORPUS) out.push({ record: await m.get(id!), edges: (await m.edges(id!)).map(({ id: _id, ...e }) => e) });
  return out;
}

describe('.mind.zip between a Node store and Postgres', () => {
  it('Node → Postgres → Node keeps memories, edges, vectors and answers', async () => {
    const node = await openMemory();
    await fill(node);
    await node.update('backfill', { validTo: '2026-05-01' });
    await node.ready();
    const zip = await node.exportSnapshot();

    const connection = cluster().connection;
    const pg = await PostgresMemory.importSnapshot(zip, { connection, schema: cluster().schema('import'), embedder: new HashEmbedder(), now: () => NOW });
    expect(await content(pg)).toEqual(await content(node));
    // The PostgreSQL engine has no entity graph yet.
    for (const q of QUERIES) expect(comparable(await pg.recall(q)), q).toEqual(comparable(await node.recall(q)));
    expect((await pg.stats()).readiness).toEqual((await node.stats()).readiness);

    const back = await HybridMemory.importSnapshot(await pg.exportSnapshot(), { embedder: new HashEmbedder(), now: () => NOW });
    expect(await content(back)).toEqual(await content(node));
    for (const q of QUERIES) expect(comparable(await back.recall(q)), q).toEqual(comparable(await node.recall(q)));
    // The vectors themselves: the same query embedding scores every memory the same in both
    // (sorted by id: memories whose scores differ only past float32 precision may swap).
    const [query] = await new HashEmbedder().embed(['agent memory storage']);
    const scores = async (m: Pick<HybridMemory, 'recall'>) => (await m.recall('agent memory storage', { mode: 'vector', k: 50, queryEmbedding: query! })).map((h) => [h.id, Math.round(h.score * 1e5)]).sort();
    expect(await scores(back)).toEqual(await scores(node));
    expect(await scores(pg)).toEqual(await scores(node));

    await pg.close();
    await back.close();
    await node.close();
  });

  it('restoreSnapshot replaces a filled memory at once; importing into a filled schema is a CONFLICT', async () => {
    const node = await openMemory();
    await node.store({ id: 'only', text: 'the only memory' });
    await node.ready();
    const zip = await node.exportSnapshot();
    const pg = await openPg(cluster());
    await fill(pg);
    expect(await codeOf(PostgresMemory.importSnapshot(zip, { connection: cluster().connection, schema: (await pg.stats()).storage.slice('postgres:'.length), embedder: new HashEmbedder() }))).toBe('CONFLICT');
    await pg.restoreSnapshot(zip);
    expect((await pg.stats()).memories).toBe(1);
    expect((await pg.recall('only memory'))[0]!.id).toBe('only');
    await pg.store({ id: 'next', text: 'stored after the restore' });
    expect((await pg.stats()).memories).toBe(2);
    await pg.close();
    await node.close();
  });

  it('refuses a damaged archive or another model with the core reader\'s codes, changing nothing', async () => {
    const node = await openMemory();
    await fill(node);
    await node.ready();
    const zip = await node.exportSnapshot();
    const pg = await openPg(cluster());
    await pg.store({ id: 'keep', text: 'kept' });
    const damaged = zip.slice();
    const at = Math.floor(damaged.length / 2);
    damaged[at] = damaged[at]! ^ 0xff;
    expect(await codeOf(pg.restoreSnapshot(damaged))).toBe('CORRUPT');
    expect(await codeOf(pg.restoreSnapshot(new Uint8Array([1, 2, 3])))).toBe('CORRUPT');
    const other = await PostgresMemory.open({ connection: cluster().connection, schema: cluster().schema('other'), embedder: new HashEmbedder(32) });
    expect(await codeOf(other.restoreSnapshot(zip))).toBe('DIMENSION_MISMATCH');
    expect((await pg.stats()).memories).toBe(1);
    await other.close();
    await pg.close();
    await node.close();
  });
});
