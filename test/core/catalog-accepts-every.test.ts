import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/memory/catalog.js';
import type { CatalogEntry } from '../../src/memory/catalog-entry.js';
import { decodeCatalog, encodeCatalog } from '../../src/memory/saved-catalog.js';

/**
 * `acceptsEvery` lets the vector leg search without its filter, so a true answer must never let
 * through a memory the acceptor would refuse; and it must say true for a store whose memories are
 * all current, or the shortcut never runs.
 */
const DAY = 86_400_000;
// 0 to 3 can run on one by one (a loaded catalog then copies its columns whole).
const NOS = [0, 1, 2, 3, 5, 9, 2 ** 40];

const entryArb = (no: number): fc.Arbitrary<CatalogEntry> =>
  fc.record({
    created: fc.integer({ min: 0, max: 40 }),
    from: fc.integer({ min: 0, max: 20 }),
    to: fc.option(fc.integer({ min: 1, max: 30 }), { nil: null, freq: 3 }),
  }).map((e) => ({
    no,
    id: `m${no}`,
    kind: null,
    domain: null,
    metadata: {},
    createdAt: e.created * DAY,
    validFrom: (e.created + e.from) * DAY,
    validTo: e.to === null ? null : (e.created + e.from + e.to) * DAY,
  }));

type Op = { op: 'add'; entry: CatalogEntry } | { op: 'delete'; no: number } | { op: 'check' };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constantFrom(...NOS).chain(entryArb).map((entry) => ({ op: 'add' as const, entry })),
  fc.constantFrom(...NOS).map((no) => ({ op: 'delete' as const, no })),
  fc.constant({ op: 'check' as const }),
);

const REFERENCES = [0, 15 * DAY, 45 * DAY, 100 * DAY];

/** Every true `acceptsEvery` is backed by the acceptor passing each memory held. */
function checkSound(catalog: Catalog): void {
  for (const reference of REFERENCES) {
    for (const asOf of [false, true]) {
      for (const historical of [false, true]) {
        if (!catalog.acceptsEvery(reference, asOf, historical)) continue;
        const accept = catalog.acceptor(reference, asOf, historical);
        for (const e of catalog.values()) expect(accept(e.no), `memory ${e.no} at ${reference / DAY} days, asOf ${asOf}, historical ${historical}`).toBe(true);
      }
    }
  }
}

describe('Catalog.acceptsEvery', () => {
  it('is true only when the acceptor passes every memory held, through adds, changes and forgets', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom(...NOS), { maxLength: NOS.length }).chain((nos) => fc.tuple(fc.tuple(...nos.map(entryArb)), fc.array(opArb, { maxLength: 20 }), fc.boolean(), fc.boolean())), ([unordered, ops, adopt, sorted]) => {
        const initial = sorted ? [...unordered].sort((a, b) => a.no - b.no) : unordered;
        const catalog = new Catalog();
        if (adopt) catalog.adopt(decodeCatalog(encodeCatalog(initial)));
        else for (const e of initial) catalog.add({ ...e });
        for (const o of ops) {
          if (o.op === 'add') catalog.add({ ...o.entry });
          else if (o.op === 'delete') catalog.delete(o.no);
          else checkSound(catalog);
        }
        checkSound(catalog);
      }),
      { numRuns: 300 },
    );
  });

  it('is true for memories that are all current, saved or added, and false once one has ended', () => {
    const current = (no: number): CatalogEntry => ({ no, id: `m${no}`, kind: null, domain: null, metadata: {}, createdAt: no * DAY, validFrom: no * DAY, validTo: null });
    const catalog = new Catalog();
    expect(catalog.acceptsEvery(0, false, false)).toBe(true);
    catalog.adopt(decodeCatalog(encodeCatalog([current(0), current(1)])));
    expect(catalog.acceptsEvery(5 * DAY, false, false)).toBe(true);
    catalog.add(current(2));
    expect(catalog.acceptsEvery(5 * DAY, false, false)).toBe(true);
    // Recorded after the reference: an as-of query must check each memory, a plain one need not.
    expect(catalog.acceptsEvery(DAY, true, false)).toBe(false);
    expect(catalog.acceptsEvery(DAY, false, true)).toBe(true);
    catalog.add({ ...current(1), validTo: 3 * DAY });
    expect(catalog.acceptsEvery(5 * DAY, false, false)).toBe(false);
    expect(catalog.acceptsEvery(2 * DAY, false, false)).toBe(true);
    expect(catalog.acceptsEvery(5 * DAY, false, true)).toBe(true);
    // A fresh start forgets the ended memory's window.
    catalog.adopt(decodeCatalog(encodeCatalog([current(0)])));
    expect(catalog.acceptsEvery(5 * DAY, false, false)).toBe(true);
  });
});
