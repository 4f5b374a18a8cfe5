import { describe, expect, it } from 'vitest';
import type { HybridMemory } from '../../src/index.js';
import type { PostgresMemory, SyncCursor } from '../../src/postgres/index.js';
import { codeOf } from '../support/errors.js';
import { openMemory } from '../support/memory.js';
import { comparable, CORPUS, fill, openPg, useCluster } from './fixture.js';

const cluster = useCluster();

/** Every memory and edge both stores hold, in a comparable form. */
async function state(m: Pick<HybridMemory, 'get' | 'edges' | 'stats'>, ids: readonly string[]) {
  const out: Record<string, unknown> = {};
  for (const id of ids) {
    const r = await m.get(id);
    out[id] = r && { text: r.text, kind: r.kind, domain: r.domain, metadata: r.metadata, validFrom: r.validFrom, validTo: r.validTo, edges: (await m.edges(id, { direction: 'out' })).map((e) => `${e.type}>${e.to}`).sort() };
  }
  return { memories: (await m.stats()).memories, out };
}

describe('incremental sync between a device and Postgres', () => {
  it('a second device catches up, both work offline, and the last write to reach the server wins', async () => {
    const server: PostgresMemory = await openPg(cluster());
    const a = await openMemory();
    const b = await openMemory();
    await fill(a);
    let cursorA: SyncCursor | null = null;
    let cursorB: SyncCursor | null = null;

    const first = await server.syncWith(a, cursorA);
    cursorA = first.cursor;
    expect(first.pushed.memories).toBe(CORPUS.length);
    const catchUp = await server.syncWith(b, cursorB);
    cursorB = catchUp.cursor;
    expect(catchUp.pulled.memories).toBe(CORPUS.length);
    const ids = CORPUS.map((c) => c.id!);
    expect(await state(b, ids)).toEqual(await state(a, ids));
    expect(await state(server, ids)).toEqual(await state(a, ids));
    for (const q of ['where does agent memory live?', 'what does the checkout service payment path depend on?']) {
      expect(comparable(await b.recall(q))).toEqual(comparable(await a.recall(q)));
    }

    // Offline on both devices: A edits, forgets and links; B edits the same memory and adds one.
    await a.update('backfill', { text: 'Backfill moved to 04:00 on the archive cluster' });
    await a.forget('onboard');
    await a.relate('limit', 'checkout', 'RELATES_TO');
    await a.unrelate((await a.edges('order-4821', { direction: 'out' }))[0]!.id);
    await b.update('backfill', { text: 'Backfill is paused for the migration' });
    await b.update('zk', { metadata: { owner: 'sre' } });
    // A field cleared on one device is cleared on the others, and one left undefined stays.
    await b.update('search', { kind: null, domain: undefined });
    await b.store({ id: 'b-new', text: 'Device B wrote this offline' });

    // A reaches the server first, then B: B's version of `backfill` is the last write to arrive.
    const pushA = await server.syncWith(a, cursorA);
    cursorA = pushA.cursor;
    expect(pushA.pushed).toEqual({ memories: 1, forgotten: 1, related: 1, unrelated: 1 });
    const pushB = await server.syncWith(b, cursorB);
    cursorB = pushB.cursor;
    expect(pushB.pushed.memories).toBe(4);
    expect(pushB.pulled.forgotten).toBe(1);
    const pullA = await server.syncWith(a, cursorA);
    cursorA = pullA.cursor;

    const all = [...ids, 'b-new'];
    for (const store of [server, a, b]) {
      const s = await state(store, all);
      expect(s.out['backfill']).toMatchObject({ text: 'Backfill is paused for the migration' });
      expect(s.out['onboard']).toBeNull();
      expect(s.out['zk']).toMatchObject({ metadata: { owner: 'sre' } });
      expect(s.out['search']).toMatchObject({ kind: null, domain: 'search' });
      expect(s.out['b-new']).toMatchObject({ text: 'Device B wrote this offline' });
      expect(s.out['limit']).toMatchObject({ edges: ['RELATES_TO>checkout'] });
      expect(s.out['order-4821']).toMatchObject({ edges: [] });
    }
    expect(await state(a, all)).toEqual(await state(b, all));
    expect(comparable(await a.recall('backfill migration'))).toEqual(comparable(await b.recall('backfill migration')));

    // Nothing changed since: a sync moves nothing.
    const idle = await server.syncWith(a, cursorA);
    expect(idle.pushed).toEqual({ memories: 0, forgotten: 0, related: 0, unrelated: 0 });
    expect(idle.pulled).toEqual({ memories: 0, forgotten: 0, related: 0, unrelated: 0 });

    expect(await codeOf(server.syncWith(a, { generation: 'x' } as never))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(server.syncWith({} as never, null))).toBe('INVALID_ARGUMENT');
    await Promise.all([server.close(), a.close(), b.close()]);
  });

  it('a write on the server made while a device syncs is pulled by its next sync', async () => {
    const server = await openPg(cluster());
    const other = await openPg(cluster(), { schema: (await server.stats()).storage.slice('postgres:'.length) });
    const device = await openMemory();
    await fill(server);
    const { cursor } = await server.syncWith(device, null);
    await other.store({ id: 'late', text: 'written by another server process after the sync' });
    await other.forget('zk');
    const next = await server.syncWith(device, cursor);
    expect(next.pulled.memories).toBe(1);
    expect(next.pulled.forgotten).toBe(1);
    expect((await device.get('late'))?.text).toBe('written by another server process after the sync');
    expect(await device.get('zk')).toBeNull();
    await Promise.all([server.close(), other.close(), device.close()]);
  });
});
