import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { statusAt } from '../../src/legs/time/temporal.js';
import { Catalog } from '../../src/memory/catalog.js';
import type { CatalogEntry, EntryFilter } from '../../src/memory/catalog-entry.js';
import { decodeCatalog, encodeCatalog } from '../../src/memory/saved-catalog.js';

/**
 * A catalog that adopted a saved one answers every question exactly as one that was handed the
 * same entries one by one, through any mix of later stores, changes and forgets: the open's
 * shortcut must never show in what recall, listing or a write reads.
 */
const DAY = 86_400_000;

const entryArb = (no: number): fc.Arbitrary<CatalogEntry> =>
  fc.record({
    id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
    kind: fc.option(fc.constantFrom('note', 'decision'), { nil: null }),
    domain: fc.option(fc.constantFrom('', 'db'), { nil: null }),
    metadata: fc.constantFrom({}, { sessionId: 's1' }, { tags: ['x'], n: 2 }),
    created: fc.integer({ min: 0, max: 50 }),
    from: fc.integer({ min: 0, max: 20 }),
    to: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null }),
  }).map((e) => ({
    no,
    id: `${e.id}${no}`,
    kind: e.kind,
    domain: e.domain,
    metadata: e.metadata,
    createdAt: e.created * DAY,
    validFrom: (e.created + e.from) * DAY,
    validTo: e.to === null ? null : (e.created + e.from + e.to) * DAY,
  }));

type Op = { op: 'set'; entry: CatalogEntry } | { op: 'delete'; no: number } | { op: 'sparse'; entry: CatalogEntry };

const NOS = [0, 1, 2, 3, 5, 8, 13, 40];
const noArb = fc.constantFrom(...NOS);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  noArb.chain((no) => entryArb(no)).map((entry) => ({ op: 'set' as const, entry })),
  noArb.map((no) => ({ op: 'delete' as const, no })),
  // A number far past the catalog's size: the columns must give way to the maps.
  entryArb(2 ** 40).map((entry) => ({ op: 'sparse' as const, entry })),
);

/**
 * Every field alone and together, values no entry holds, a kind that is another's start, an empty
 * domain, a whole id as a prefix, and null for the entries without a kind or domain (undefined: any).
 */
const FILTERS: EntryFilter[] = [
  { kind: undefined, domain: undefined, idPrefix: null },
  { kind: 'note', domain: undefined, idPrefix: null },
  { kind: 'not', domain: undefined, idPrefix: null },
  { kind: 'decision', domain: 'db', idPrefix: null },
  { kind: undefined, domain: '', idPrefix: null },
  { kind: undefined, domain: 'd', idPrefix: null },
  { kind: undefined, domain: 'db', idPrefix: null },
  { kind: undefined, domain: undefined, idPrefix: 'a' },
  { kind: undefined, domain: undefined, idPrefix: 'b13' },
  { kind: 'note', domain: '', idPrefix: 'c' },
  // Longer than the id it starts: not a match, whatever follows the id where the strings lie.
  { kind: undefined, domain: undefined, idPrefix: 'a0n' },
  { kind: undefined, domain: undefined, idPrefix: 'b1d' },
  { kind: null, domain: undefined, idPrefix: null },
  { kind: undefined, domain: null, idPrefix: null },
  { kind: null, domain: null, idPrefix: null },
  { kind: 'note', domain: null, idPrefix: null },
  { kind: null, domain: 'db', idPrefix: null },
  { kind: null, domain: '', idPrefix: 'a' },
];

function same(adopted: Catalog, built: Catalog, probeIds: string[]): void {
  expect(adopted.size).toBe(built.size);
  // The same entries in the same order: listing pages through them in it.
  expect([...adopted.values()]).toEqual([...built.values()]);
  expect([...adopted.nos()].sort((a, b) => a - b)).toEqual([...built.values()].map((e) => e.no).sort((a, b) => a - b));
  for (const no of [...NOS, 2 ** 40, -1, 41, 1.5]) expect(adopted.get(no), `get(${no})`).toEqual(built.get(no));
  for (const id of probeIds) expect(adopted.noOf(id), `noOf(${id})`).toBe(built.noOf(id));
  // Saved again: the same bytes whether its rows are copied from the saved form or made into entries first.
  expect(adopted.save()).toEqual(encodeCatalog(built.values()));
  expect(built.save()).toEqual(encodeCatalog(built.values()));
  for (const filter of FILTERS) {
    const matching = [...built.values()].filter((e) => (filter.kind === undefined || e.kind === filter.kind) && (filter.domain === undefined || e.domain === filter.domain) && (filter.idPrefix === null || e.id.startsWith(filter.idPrefix))).map((e) => e.no);
    for (const [offset, limit] of [[0, 1000], [1, 2], [6, 3]] as const) {
      const page = { nos: matching.slice(offset, offset + limit), total: matching.length };
      expect(adopted.page(filter, offset, limit), `page of ${JSON.stringify(filter)} from ${offset}`).toEqual(page);
      expect(built.page(filter, offset, limit), `page of ${JSON.stringify(filter)} from ${offset}, built`).toEqual(page);
    }
  }
  for (const reference of [0, 10 * DAY, 40 * DAY, 200 * DAY]) {
    const current = [...built.values()].filter((e) => statusAt(e, reference) === 'current').length;
    expect(adopted.countCurrent(reference), `countCurrent at ${reference}`).toBe(current);
    expect(built.countCurrent(reference), `countCurrent at ${reference}, built`).toBe(current);
    for (const asOf of [false, true]) {
      for (const historical of [false, true]) {
        const a = adopted.acceptor(reference, asOf, historical);
        const b = built.acceptor(reference, asOf, historical);
        for (const no of [...NOS, 2 ** 40, -1, 41]) expect(a(no), `accept(${no}) at ${reference}, asOf ${asOf}, historical ${historical}`).toBe(b(no));
      }
    }
  }
}

function apply(catalog: Catalog, o: Op): void {
  if (o.op === 'delete') catalog.delete(o.no);
  else catalog.add({ ...o.entry });
}

describe('a catalog adopted from its saved form', () => {
  it('answers as the one built entry by entry, through later stores, changes and forgets', () => {
    fc.assert(
      fc.property(fc.uniqueArray(noArb, { maxLength: NOS.length }).chain((nos) => fc.tuple(fc.tuple(...nos.map(entryArb)), fc.array(opArb, { maxLength: 25 }), fc.boolean(), fc.nat({ max: 5 }), fc.boolean())), ([initial, ops, sparseBase, firstCheck, asksStore]) => {
        const entries = sparseBase ? [...initial, { ...initial[0] ?? { id: 'z', kind: null, domain: null, metadata: {}, createdAt: 0, validFrom: 0, validTo: null }, no: 2 ** 40, id: 'far' }] : initial;
        const built = new Catalog();
        for (const e of entries) built.add({ ...e });
        const adopted = new Catalog();
        // The store's own answer for an id, as SQLite gives it: what the catalog built entry by entry holds.
        adopted.adopt(decodeCatalog(encodeCatalog(entries)), asksStore ? (id) => built.noOf(id) : null);
        const probeIds = [...entries.map((e) => e.id), ...ops.flatMap((o) => ('entry' in o ? [o.entry.id] : [])), 'nobody'];
        // The first question may come after some changes: what it builds (the validity columns,
        // the id map) must then leave out what is gone.
        ops.forEach((o, i) => {
          if (i >= firstCheck) same(adopted, built, probeIds);
          apply(adopted, o);
          apply(built, o);
        });
        same(adopted, built, probeIds);
      }),
      { numRuns: 300 },
    );
  });

  it('makes its id map a part at a time, and a lookup by id finishes it unless it may ask the store', () => {
    const entries: CatalogEntry[] = Array.from({ length: 2500 }, (_, i) => ({ no: i + 1, id: `m${i + 1}`, kind: null, domain: null, metadata: {}, createdAt: 1, validFrom: 1, validTo: null }));
    const stepped = new Catalog();
    stepped.adopt(decodeCatalog(encodeCatalog(entries)));
    // With the clock past the end, 1,023 ids a step: two steps with some left, then the last.
    expect(stepped.fillIds(0)).toBe(true);
    expect(stepped.fillIds(0)).toBe(true);
    expect(stepped.fillIds(0)).toBe(false);
    expect(stepped.fillIds(0)).toBe(false);
    expect(stepped.noOf('m2500')).toBe(2500);
    const partly = new Catalog();
    partly.adopt(decodeCatalog(encodeCatalog(entries)));
    expect(partly.fillIds(0)).toBe(true);
    expect(partly.noOf('m2500')).toBe(2500);
    expect(partly.noOf('m1')).toBe(1);
    expect(partly.fillIds(0)).toBe(false);
    expect(new Catalog().fillIds(0)).toBe(false);
    // Given the store to ask, a lookup leaves the map to the fill.
    const asking = new Catalog();
    const asked: string[] = [];
    asking.adopt(decodeCatalog(encodeCatalog(entries)), (id) => (asked.push(id), /^m\d+$/.test(id) ? Number(id.slice(1)) : undefined));
    expect(asking.noOf('m2500')).toBe(2500);
    expect(asking.noOf('nobody')).toBeUndefined();
    expect(asked).toEqual(['m2500', 'nobody']);
    expect(asking.fillIds(0)).toBe(true);
    asking.delete(7);
    expect(asking.noOf('m7')).toBeUndefined();
    expect(asking.fillIds(0)).toBe(true);
    expect(asking.fillIds(0)).toBe(false);
    expect(asking.noOf('m2500')).toBe(2500);
    expect(asked).toEqual(['m2500', 'nobody', 'm7']);
  });

  it('keeps the entry it made, so what a recall notes on it stays, until the memory changes', () => {
    const catalog = new Catalog();
    const entry: CatalogEntry = { no: 4, id: 'adr-007', kind: 'decision', domain: null, metadata: { sessionId: 's1' }, createdAt: 1, validFrom: 1, validTo: null };
    catalog.adopt(decodeCatalog(encodeCatalog([entry])));
    const first = catalog.entry(4);
    first.speaker = 'Ana';
    expect(catalog.entry(4)).toBe(first);
    expect([...catalog.values()][0]).toBe(first);
    catalog.add({ ...entry, kind: 'note' });
    expect(catalog.entry(4).speaker).toBeUndefined();
    expect(catalog.entry(4).kind).toBe('note');
    expect(catalog.size).toBe(1);
    catalog.delete(4);
    expect(catalog.size).toBe(0);
    expect(catalog.noOf('adr-007')).toBeUndefined();
    expect(() => catalog.entry(4)).toThrow();
  });
});
