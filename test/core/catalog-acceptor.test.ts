import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/memory/catalog.js';
import { recordedBy, statusAt } from '../../src/legs/time/temporal.js';
import { entryOf } from '../../src/memory/catalog-entry.js';
import { decodeCatalog, encodeCatalog } from '../../src/memory/saved-catalog.js';

/** A small deterministic generator, so a failure names a reproducible case. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const DAY = 86_400_000;

function row(no: number, r: () => number) {
  const created = Math.floor(r() * 100) * DAY;
  const from = created + Math.floor(r() * 10) * DAY;
  return {
    no,
    id: `m${no}`,
    kind: null,
    domain: null,
    metadata: '{}',
    created_at: created,
    valid_from: from,
    valid_to: r() < 0.3 ? from + Math.floor(r() * 50) * DAY : null,
  };
}

/** The rule as reading each entry states it: what the columns must agree with. */
function expected(catalog: Catalog, no: number, reference: number, asOf: boolean, includeHistorical: boolean): boolean {
  const e = catalog.get(no);
  if (!e) return false;
  if (asOf && !recordedBy(e, reference)) return false;
  return includeHistorical || statusAt(e, reference) === 'current';
}

function agrees(catalog: Catalog, nos: number[], r: () => number): void {
  // The time leg's reader: the entry's own times for every memory held, the entry's error otherwise.
  const read = catalog.temporalReader();
  for (const no of nos) {
    const e = catalog.get(no);
    if (!e) {
      expect(() => read(no)).toThrow(/no memory number/);
      continue;
    }
    const t = read(no);
    if (t.createdAt !== e.createdAt || t.validFrom !== e.validFrom || t.validTo !== e.validTo) {
      throw new Error(`no ${no}: read ${JSON.stringify(t)}, the entry has ${JSON.stringify({ createdAt: e.createdAt, validFrom: e.validFrom, validTo: e.validTo })}`);
    }
  }
  for (let q = 0; q < 20; q++) {
    const reference = Math.floor(r() * 160) * DAY;
    const asOf = r() < 0.5;
    const includeHistorical = r() < 0.3;
    const accept = catalog.acceptor(reference, asOf, includeHistorical);
    for (const no of nos) {
      if (accept(no) !== expected(catalog, no, reference, asOf, includeHistorical)) {
        throw new Error(`no ${no} at ${reference} (asOf ${asOf}, historical ${includeHistorical}): ${accept(no)}`);
      }
    }
  }
}

describe('Catalog.acceptor and temporalReader', () => {
  it('agrees with the entries through stores, changes, forgets and growth past the columns', () => {
    const r = rng(7);
    const catalog = new Catalog();
    const probe = [-1, 0, 0.5, 2 ** 40, Number.NaN];
    for (let no = 1; no <= 500; no++) catalog.set(row(no, r));
    const nos = Array.from({ length: 3000 }, (_, i) => i).concat(probe);
    agrees(catalog, nos, r);
    for (let i = 0; i < 200; i++) catalog.delete(1 + Math.floor(r() * 500));
    for (let i = 0; i < 200; i++) catalog.set(row(1 + Math.floor(r() * 500), r));
    // Past the columns' length (they grow) and past their dense limit (they are dropped).
    for (let no = 501; no <= 2500; no++) catalog.set(row(no, r));
    agrees(catalog, nos, r);
    catalog.set(row(10_000_000, r));
    agrees(catalog, nos.concat([10_000_000]), r);
    catalog.delete(10_000_000);
    agrees(catalog, nos, r);
    catalog.clear();
    expect(catalog.acceptor(0, false, true)(1)).toBe(false);
  });

  it('agrees with the entries of a loaded catalog, whose numbers run on one by one or not, through forgets and changes', () => {
    for (const [seed, nos] of [
      [3, Array.from({ length: 400 }, (_, i) => 7 + i)],
      [5, Array.from({ length: 400 }, (_, i) => 7 + i).filter((no) => no % 13 !== 0)],
      [9, Array.from({ length: 400 }, (_, i) => 400 - i)],
    ] as const) {
      const r = rng(seed);
      const probe = Array.from({ length: 450 }, (_, i) => i).concat([-1, 0.5, Number.NaN]);
      const catalog = new Catalog();
      catalog.adopt(decodeCatalog(encodeCatalog(nos.map((no) => entryOf(row(no, r))))));
      agrees(catalog, probe, r);
      // A forgotten memory, then one changed (the saved rows no longer all live), before the columns exist.
      const later = new Catalog();
      later.adopt(decodeCatalog(encodeCatalog(nos.map((no) => entryOf(row(no, r))))));
      later.delete(nos[10]!);
      later.set(row(nos[20]!, r));
      agrees(later, probe, r);
      for (let i = 0; i < 50; i++) catalog.delete(nos[Math.floor(r() * nos.length)]!);
      for (let i = 0; i < 50; i++) catalog.set(row(nos[Math.floor(r() * nos.length)]!, r));
      agrees(catalog, probe, r);
    }
  });

  it('a store whose numbers ran far past its size answers from the map', () => {
    const r = rng(11);
    const catalog = new Catalog();
    const nos = [3, 70_000, 5_000_000, 2 ** 50];
    for (const no of nos) catalog.set(row(no, r));
    agrees(catalog, nos.concat([4, 69_999]), r);
  });
});
