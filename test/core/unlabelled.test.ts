/**
 * `null` as a kind or domain means "none" everywhere: `update` clears one with it, and `list` and a
 * recall filter find the memories without one with it. Listed from a fresh catalog, from the one
 * saved with the store (matched on its saved rows) and from that one after an update replaced a row.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteWasmDriver, type HybridMemory, type ListOptions } from '../../src/index.js';
import { ids, openMemory, recorder } from '../support/memory.js';

const MEMORIES = [
  { id: 'adr-7', text: 'ADR-007: SQLite-WASM on OPFS is the source of truth', kind: 'decision', domain: 'storage' },
  { id: 'adr-9', text: 'ADR-009: HNSW above 20,000 memories', kind: 'decision' },
  { id: 'loose', text: 'a loose note about the storage layer' },
  { id: 'tagged', text: 'a note about storage in the pricing domain', domain: 'pricing' },
  { id: 'order', text: 'Order #4821 was refunded', kind: 'ticket', domain: 'sales' },
];

const stores: HybridMemory[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

async function opened(...args: Parameters<typeof openMemory>): Promise<HybridMemory> {
  const mem = await openMemory(...args);
  stores.push(mem);
  return mem;
}

const listed = async (mem: HybridMemory, options: ListOptions) => {
  const page = await mem.list(options);
  expect(page.total).toBe(page.records.length);
  return page.records.map((r) => r.id);
};

/** What `list` answers for each filter that takes a null. */
async function listings(mem: HybridMemory): Promise<Record<string, string[]>> {
  return {
    noKind: await listed(mem, { kind: null }),
    noDomain: await listed(mem, { domain: null }),
    neither: await listed(mem, { kind: null, domain: null }),
    decisionNoDomain: await listed(mem, { kind: 'decision', domain: null }),
    noKindPricing: await listed(mem, { kind: null, domain: 'pricing' }),
  };
}

describe('memories without a kind or domain', () => {
  it('list finds them with null, from a fresh catalog, a saved one and a saved one with a row replaced', async () => {
    const mem = await opened();
    await mem.storeMany(MEMORIES);
    const expected = {
      noKind: ['loose', 'tagged'],
      noDomain: ['adr-9', 'loose'],
      neither: ['loose'],
      decisionNoDomain: ['adr-9'],
      noKindPricing: ['tagged'],
    };
    expect(await listings(mem)).toEqual(expected);

    const log = recorder();
    const reopened = await opened({ storage: await SqliteWasmDriver.open({ bytes: await mem.exportDatabase() }), logger: log.logger });
    expect(log.messages).toContain('loaded the saved catalog');
    expect(await listings(reopened)).toEqual(expected);

    await reopened.update('adr-7', { domain: null });
    await reopened.update('loose', { kind: 'note' });
    expect(await listings(reopened)).toEqual({
      noKind: ['tagged'],
      noDomain: ['adr-7', 'adr-9', 'loose'],
      neither: [],
      decisionNoDomain: ['adr-7', 'adr-9'],
      noKindPricing: ['tagged'],
    });
  });

  it('a recall filter keeps them with null, alone or beside a kind or domain', async () => {
    const mem = await opened();
    await mem.storeMany(MEMORIES);
    const recalled = async (filter: object) => ids(await mem.recall('storage', { filter, k: 10 })).sort();
    expect(await recalled({ kind: null })).toEqual(['loose', 'tagged']);
    expect(await recalled({ kind: [null, 'decision'] })).toEqual(['adr-7', 'adr-9', 'loose', 'tagged']);
    expect(await recalled({ domain: null, kind: [null] })).toEqual(['loose']);
    expect(await recalled({ domain: ['storage', null] })).toEqual(['adr-7', 'adr-9', 'loose']);
    expect(await recalled({ kind: 'decision' })).toEqual(['adr-7', 'adr-9']);
  });

  it('refuses what is neither a label nor null, naming it', async () => {
    const mem = await opened();
    const refusal = (options: object) => mem.recall('storage', options).then(() => null, (e: unknown) => e);
    expect(await refusal({ filter: { kind: 7 } })).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'recall: options.filter.kind must be a string, null or an array of them, received 7' });
    expect(await refusal({ filter: { domain: ['storage', ''] } })).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('options.filter.domain[1]') });
    expect(await mem.list({ kind: 7 as never }).catch((e: unknown) => e)).toMatchObject({ code: 'INVALID_ARGUMENT', method: 'list' });
  });
});
