import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HybridMemory, HybridMindError } from '../../src/index.js';
import { openMemory } from '../support/memory.js';

let mem: HybridMemory;

beforeAll(async () => {
  mem = await openMemory();
  const inputs = Array.from({ length: 120 }, (_, i) => ({
    id: `${i % 3 === 0 ? 'adr' : 'note'}-${String(i).padStart(3, '0')}`,
    text: `memory number ${i}`,
    kind: i % 3 === 0 ? 'adr' : 'note',
    domain: i % 2 === 0 ? 'even' : 'odd',
  }));
  await mem.storeMany(inputs);
});
afterAll(async () => mem.close());

describe('list', () => {
  it('pages through every memory in storage order with the total', async () => {
    const seen: string[] = [];
    for (let offset = 0; ; offset += 50) {
      const page = await mem.list({ offset, limit: 50 });
      expect(page.total).toBe(120);
      if (page.records.length === 0) break;
      seen.push(...page.records.map((r) => r.id));
    }
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
    expect(seen[0]).toBe('adr-000');
    expect(seen[119]).toBe('note-119');
  });

  it('filters by kind, domain and id prefix together, counting matches over all pages', async () => {
    const page = await mem.list({ kind: 'adr', domain: 'even', limit: 5 });
    // i divisible by 3 and by 2: 0, 6, …, 114 → 20 memories.
    expect(page.total).toBe(20);
    expect(page.records.map((r) => r.id)).toEqual(['adr-000', 'adr-006', 'adr-012', 'adr-018', 'adr-024']);
    expect(page.records.every((r) => r.kind === 'adr' && r.domain === 'even')).toBe(true);
    const prefixed = await mem.list({ idPrefix: 'note-11' });
    expect(prefixed.records.map((r) => r.id)).toEqual(['note-110', 'note-112', 'note-113', 'note-115', 'note-116', 'note-118', 'note-119']);
    expect(prefixed.total).toBe(7);
  });

  it('returns full records with status and readiness', async () => {
    await mem.ready();
    const [first] = (await mem.list({ limit: 1 })).records;
    expect(first).toMatchObject({ id: 'adr-000', text: 'memory number 0', kind: 'adr', domain: 'even', status: 'current', readiness: 'semantic' });
  });

  it('sees writes at once: forget and update show in the next page', async () => {
    await mem.store({ id: 'zz-temp', text: 'temporary', kind: 'scratch' });
    expect((await mem.list({ kind: 'scratch' })).total).toBe(1);
    await mem.update('zz-temp', { kind: 'kept' });
    expect((await mem.list({ kind: 'scratch' })).total).toBe(0);
    expect((await mem.list({ kind: 'kept' })).records[0]!.id).toBe('zz-temp');
    await mem.forget('zz-temp');
    expect((await mem.list({ kind: 'kept' })).total).toBe(0);
  });

  it('an offset past the end is an empty page, not an error', async () => {
    expect(await mem.list({ offset: 10_000 })).toEqual({ records: [], total: 120 });
  });

  it.each([
    ['offset negative', { offset: -1 }, '-1'],
    ['offset fractional', { offset: 1.5 }, '1.5'],
    ['limit zero', { limit: 0 }, '0'],
    ['limit too large', { limit: 5000 }, '5000'],
    ['kind empty', { kind: '' }, '""'],
    ['kind not a string', { kind: 7 }, 'options.kind must be a non-empty string of at most 256 characters (leave it out to list every kind), received 7'],
    ['idPrefix not a string', { idPrefix: 7 }, '7'],
    ['unknown key', { order: 'desc' }, 'order'],
    ['options not an object', 'all', '"all"'],
  ])('rejects %s with INVALID_ARGUMENT naming list and the value', async (_label, options, shows) => {
    const error = await mem.list(options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HybridMindError);
    expect((error as HybridMindError).code).toBe('INVALID_ARGUMENT');
    expect((error as HybridMindError).method).toBe('list');
    expect((error as HybridMindError).message).toContain(shows);
  });

  it('fails with CLOSED after close', async () => {
    const other = await openMemory();
    await other.close();
    await expect(other.list()).rejects.toMatchObject({ code: 'CLOSED', method: 'list' });
  });
});
