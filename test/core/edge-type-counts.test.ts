import { afterEach, describe, expect, it } from 'vitest';
import { HybridMemory, SqliteWasmDriver, type SqlDriver } from '../../src/index.js';
import { decodeEdgeTypes, EdgeTypeCounts } from '../../src/memory/edge-type-counts.js';
import { openMemory, recorder } from '../support/memory.js';
import { notingDriver } from '../support/noting-driver.js';

let mem: HybridMemory | undefined;
afterEach(async () => {
  await mem?.close();
  mem = undefined;
});

/** A real driver, noting every statement that counts the edges by type. */
const counting = (inner: SqlDriver, scans: string[]) => notingDriver(inner, /GROUP BY type/, scans);

/** A store with edges of three types, as database bytes with its derived indexes saved. */
async function savedStore(): Promise<Uint8Array> {
  const source = await openMemory({ embedder: null, dim: 4 });
  try {
    await source.storeMany(['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, text: `memory ${id}` })));
    await source.relateMany([
      { from: 'a', to: 'b', type: 'DEPENDS_ON' },
      { from: 'b', to: 'c', type: 'DEPENDS_ON' },
      { from: 'c', to: 'd', type: 'RELATES_TO' },
      { from: 'e', to: 'a', type: 'SUPERSEDES' },
    ]);
    return await source.exportDatabase();
  } finally {
    await source.close();
  }
}

/** What SQLite itself counts, by type, in `store`'s database as it is now. */
async function countedBySqlite(store: HybridMemory): Promise<Record<string, number>> {
  const reopened = await SqliteWasmDriver.open({ bytes: await store.exportDatabase() });
  try {
    return Object.fromEntries(reopened.all<{ type: string; n: number }>('SELECT type, count(*) AS n FROM edges GROUP BY type ORDER BY type').map((r) => [r.type, Number(r.n)]));
  } finally {
    reopened.close();
  }
}

describe('stats() counts edges by type', () => {
  it('after a reopen from a save, from the saved counts kept through every change, never scanning the edges', async () => {
    const scans: string[] = [];
    mem = await openMemory({ embedder: null, storage: counting(await SqliteWasmDriver.open({ bytes: await savedStore() }), scans) });
    expect((await mem.stats()).edgeTypes).toEqual({ DEPENDS_ON: 2, RELATES_TO: 1, SUPERSEDES: 1 });
    await mem.relate('d', 'e', 'RELATES_TO');
    await mem.relateMany([{ from: 'c', to: 'a', type: 'MENTIONS' }]);
    const dependsOn = (await mem.edges('a')).find((e) => e.type === 'DEPENDS_ON')!;
    await mem.unrelate(dependsOn.id);
    await mem.forget('e');
    const stats = await mem.stats();
    expect(stats.edgeTypes).toEqual({ DEPENDS_ON: 1, MENTIONS: 1, RELATES_TO: 1 });
    expect(stats.edges).toBe(3);
    expect(scans).toEqual([]);
    expect(stats.edgeTypes).toEqual(await countedBySqlite(mem));
  });

  it('without saved counts (or with unreadable ones), scans once, then keeps them', async () => {
    for (const saved of ['none', 'garbage'] as const) {
      const driver = await SqliteWasmDriver.open({ bytes: await savedStore() });
      if (saved === 'none') driver.exec("DELETE FROM derived_index WHERE name = 'edge-types'");
      else driver.exec("UPDATE derived_index SET bytes = ? WHERE name = 'edge-types'", [new TextEncoder().encode('{"memories":5,"types":{"DEPENDS_ON":-1}}')]);
      const scans: string[] = [];
      const log = recorder();
      mem = await openMemory({ embedder: null, storage: counting(driver, scans), logger: log.logger });
      expect(log.messages.some((m) => m.includes('edge counts could not be read')), saved).toBe(saved === 'garbage');
      expect((await mem.stats()).edgeTypes, saved).toEqual({ DEPENDS_ON: 2, RELATES_TO: 1, SUPERSEDES: 1 });
      expect(scans, saved).toHaveLength(1);
      // Saved again without a write in between, so the next open has them.
      const resaved = await SqliteWasmDriver.open({ bytes: await mem.exportDatabase() });
      expect(decodeEdgeTypes(resaved.all<{ bytes: Uint8Array }>("SELECT bytes FROM derived_index WHERE name = 'edge-types'")[0]!.bytes).types, saved).toEqual(new Map([['DEPENDS_ON', 2], ['RELATES_TO', 1], ['SUPERSEDES', 1]]));
      resaved.close();
      await mem.relate('d', 'a', 'DEPENDS_ON');
      await mem.forget('c');
      expect((await mem.stats()).edgeTypes, saved).toEqual(await countedBySqlite(mem));
      expect(scans, saved).toHaveLength(1);
      await mem.close();
      mem = undefined;
    }
  });

  it('after a restore, as the restored store holds them', async () => {
    const bytes = await savedStore();
    const source = await openMemory({ embedder: null, storage: { bytes } });
    const zip = await source.exportSnapshot();
    await source.close();
    mem = await openMemory({ embedder: null, dim: 4 });
    await mem.storeMany([{ id: 'x', text: 'x' }, { id: 'y', text: 'y' }]);
    await mem.relate('x', 'y', 'CAUSES');
    expect((await mem.stats()).edgeTypes).toEqual({ CAUSES: 1 });
    await mem.restoreSnapshot(zip);
    expect((await mem.stats()).edgeTypes).toEqual({ DEPENDS_ON: 2, RELATES_TO: 1, SUPERSEDES: 1 });
    await mem.relate('d', 'a', 'CAUSES');
    expect((await mem.stats()).edgeTypes).toEqual(await countedBySqlite(mem));
  });
});

describe('EdgeTypeCounts', () => {
  it('counts nothing until started or read, then follows changes; forgetting makes the next read count again', () => {
    const counts = new EdgeTypeCounts();
    counts.change('A', 1);
    expect(counts.read(() => ({ B: 2 }))).toEqual({ B: 2 });
    counts.change('A', 1);
    counts.change('B', -2);
    expect(counts.read(() => ({ never: 1 }))).toEqual({ A: 1 });
    counts.forget();
    expect(counts.read(() => ({ C: 3 }))).toEqual({ C: 3 });
    counts.start(new Map([['Z', 1], ['M', 4]]));
    expect(Object.keys(counts.read(() => ({})))).toEqual(['M', 'Z']);
  });

  it('reads back what it saves, and refuses anything else', () => {
    const counts = new EdgeTypeCounts();
    counts.start(new Map([['DEPENDS_ON', 3], ['__proto__', 1]]));
    const decoded = decodeEdgeTypes(counts.save(7, () => ({})));
    expect(decoded).toEqual({ memories: 7, types: new Map([['DEPENDS_ON', 3], ['__proto__', 1]]) });
    const bad = ['[]', 'null', '{"types":{}}', '{"memories":-1,"types":{}}', '{"memories":1.5,"types":{}}', '{"memories":1,"types":[]}', '{"memories":1,"types":{"A":0}}', '{"memories":1,"types":{"A":"2"}}', '{"memories":1,"types":{"":1}}', '{"memories":1,"types":{"A":1.5}}'];
    for (const text of bad) expect(() => decodeEdgeTypes(new TextEncoder().encode(text)), text).toThrow();
    expect(() => decodeEdgeTypes(Uint8Array.of(0xff, 0xfe))).toThrow();
  });
});
