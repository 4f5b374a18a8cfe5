import pgDriver from 'pg';
import { describe, expect, it } from 'vitest';
import { codeOf } from '../support/errors.js';
import { comparable, fill, openPg, useCluster } from './fixture.js';

const cluster = useCluster();

/** Waits until the standby has replayed everything the primary has written so far. */
async function caughtUp(primary: pgDriver.Client, standby: pgDriver.Client): Promise<void> {
  const target = (await primary.query('SELECT pg_current_wal_lsn() AS lsn')).rows[0].lsn as string;
  for (;;) {
    const behind = (await standby.query('SELECT pg_wal_lsn_diff($1, pg_last_wal_replay_lsn()) > 0 AS behind', [target])).rows[0].behind as boolean;
    if (!behind) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a memory on a hot standby', () => {
  it('serves every read as the primary does, sees the primary\'s writes once replayed, and refuses writes with a coded error', async () => {
    const schema = cluster().schema('replicated');
    const primary = await openPg(cluster(), { schema });
    await fill(primary);
    const standbyCluster = cluster().standby();
    const admin = { primary: new pgDriver.Client(cluster().connection), standby: new pgDriver.Client(standbyCluster.connection) };
    await admin.primary.connect();
    await admin.standby.connect();
    const replica = await openPg(standbyCluster, { schema });
    try {
      expect((await admin.standby.query('SELECT pg_is_in_recovery() AS r')).rows[0].r).toBe(true);
      for (const query of ['where does agent memory live?', 'What did Caroline learn at the support group in Boston?', 'Order #4821']) {
        expect(comparable(await replica.recall(query)), query).toEqual(comparable(await primary.recall(query)));
      }
      const strip = (t: Awaited<ReturnType<typeof primary.trace>>) => ({ nodes: t.nodes, edges: t.edges.map(({ id: _id, ...e }) => e) });
      expect(strip(await replica.trace('hnsw'))).toEqual(strip(await primary.trace('hnsw')));
      expect(await replica.get('price-old')).toEqual(await primary.get('price-old'));
      expect(await replica.list({ limit: 7, offset: 3 })).toEqual(await primary.list({ limit: 7, offset: 3 }));
      expect((await replica.edges('stripe')).map(({ id: _id, ...e }) => e)).toEqual((await primary.edges('stripe')).map(({ id: _id, ...e }) => e));
      expect(await replica.path('checkout', 'zk')).toEqual(await primary.path('checkout', 'zk'));
      expect((await replica.context('where does agent memory live?', { budgetTokens: 200 })).items.map((m) => m.id))
        .toEqual((await primary.context('where does agent memory live?', { budgetTokens: 200 })).items.map((m) => m.id));
      expect((await replica.compare('why is search slow at night?')).hybrid.map((h) => h.id)).toEqual((await primary.compare('why is search slow at night?')).hybrid.map((h) => h.id));
      expect((await replica.stats()).memories).toBe((await primary.stats()).memories);

      await primary.store({ id: 'late', text: 'The Boston office opens in June' });
      await caughtUp(admin.primary, admin.standby);
      expect((await replica.get('late'))?.text).toBe('The Boston office opens in June');
      expect((await replica.recall('Boston office', { k: 3 })).map((h) => h.id)).toContain('late');

      expect(await codeOf(replica.store({ text: 'written to a standby' }))).toBe('STORAGE');
      expect(await codeOf(replica.forget('late'))).toBe('STORAGE');
    } finally {
      await replica.close();
      await primary.close();
      await admin.primary.end();
      await admin.standby.end();
      standbyCluster.stop();
    }
  }, 120_000);
});
