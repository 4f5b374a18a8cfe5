import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../src/memory/catalog-entry.js';
import { decodeCatalog, encodeCatalog } from '../../src/memory/saved-catalog.js';

/** The saved catalog reads back exactly the entries it was written from, and refuses bytes that are not whole. */
const ENTRIES: CatalogEntry[] = [
  { no: 1, id: 'adr-007', kind: 'decision', domain: 'storage', metadata: { sessionId: 's1', turn: 3, tags: ['a', 'b'], nested: { ok: true } }, createdAt: 1_746_921_600_000, validFrom: 1_746_921_600_000, validTo: null },
  { no: 7, id: 'Zürich 東京 🚀', kind: null, domain: null, metadata: {}, createdAt: 5, validFrom: -86_400_000, validTo: 10 },
  { no: 2 ** 40, id: '', kind: '', domain: 'x', metadata: { '': null, quote: '"{}"' }, createdAt: 0, validFrom: 0, validTo: 0 },
];

describe('saved catalog', () => {
  it('reads back every entry as written: nulls, empty strings, Unicode, nested metadata, numbers far apart', () => {
    expect([...decodeCatalog(encodeCatalog(ENTRIES)).entries()]).toEqual(ENTRIES);
    expect([...decodeCatalog(encodeCatalog([])).entries()]).toEqual([]);
    // A view into a larger buffer at an odd offset, as a blob read from the store can be.
    const bytes = encodeCatalog(ENTRIES);
    const padded = new Uint8Array(bytes.length + 3);
    padded.set(bytes, 3);
    expect([...decodeCatalog(padded.subarray(3)).entries()]).toEqual(ENTRIES);
  });

  it('refuses bytes that are not whole or hold what no store does', () => {
    const good = encodeCatalog(ENTRIES);
    const edited = (edit: (bytes: Uint8Array, view: DataView) => void): Uint8Array => {
      const copy = good.slice();
      edit(copy, new DataView(copy.buffer));
      return copy;
    };
    const numbers = 16;
    const lengths = numbers + 32 * ENTRIES.length;
    const bad = [
      new Uint8Array(0),
      good.subarray(0, good.length - 1),
      Uint8Array.from([...good, 0]),
      edited((b) => (b[1] = 0x69)),
      edited((_, v) => v.setUint32(8, 2, true)),
      edited((_, v) => v.setUint32(12, 4, true)),
      edited((_, v) => v.setUint32(12, 2 ** 30, true)),
      edited((_, v) => v.setFloat64(numbers, 1.5, true)),
      edited((_, v) => v.setFloat64(numbers, -1, true)),
      // Numbers running on one by one from below zero (no table would be made to catch them).
      encodeCatalog([-1, 0, 1].map((no) => ({ ...ENTRIES[1]!, no, id: `m${no}` }))),
      edited((_, v) => v.setFloat64(numbers + 8 * ENTRIES.length, Number.NaN, true)),
      edited((_, v) => v.setFloat64(numbers + 24 * ENTRIES.length, Infinity, true)),
      edited((_, v) => v.setUint32(lengths, 0xffffffff, true)),
      edited((_, v) => v.setUint32(lengths, 8, true)),
      edited((_, v) => v.setUint32(lengths + 12, 0xffffffff, true)),
      encodeCatalog([{ ...ENTRIES[1]!, metadata: [] as unknown as CatalogEntry['metadata'] }]),
      edited((b) => (b[b.length - 1] = 0xff)),
    ];
    bad.forEach((bytes, i) => expect(() => decodeCatalog(bytes), `case ${i}`).toThrow());
  });
});
