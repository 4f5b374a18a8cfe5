import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../src/memory/catalog-entry.js';
import { decodeCatalog, encodeCatalog } from '../../src/memory/saved-catalog.js';
import { capacityOf } from '../../src/util/capacity.js';

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
    const room = capacityOf(ENTRIES.length);
    const lengths = numbers + 32 * room;
    const bad = [
      new Uint8Array(0),
      good.subarray(0, good.length - 1),
      Uint8Array.from([...good, 0]),
      edited((b) => (b[1] = 0x69)),
      edited((_, v) => v.setUint32(8, 3, true)),
      edited((_, v) => v.setUint32(12, 4, true)),
      edited((_, v) => v.setUint32(12, 2 ** 30, true)),
      edited((_, v) => v.setFloat64(numbers, 1.5, true)),
      edited((_, v) => v.setFloat64(numbers, -1, true)),
      // Numbers running on one by one from below zero (no table would be made to catch them).
      encodeCatalog([-1, 0, 1].map((no) => ({ ...ENTRIES[1]!, no, id: `m${no}` }))),
      edited((_, v) => v.setFloat64(numbers + 8 * room, Number.NaN, true)),
      edited((_, v) => v.setFloat64(numbers + 24 * room, Infinity, true)),
      edited((_, v) => v.setUint32(lengths, 0xffffffff, true)),
      edited((_, v) => v.setUint32(lengths, 8, true)),
      edited((_, v) => v.setUint32(lengths + 12, 0xffffffff, true)),
      encodeCatalog([{ ...ENTRIES[1]!, metadata: [] as unknown as CatalogEntry['metadata'] }]),
      edited((b) => (b[b.length - 1] = 0xff)),
    ];
    bad.forEach((bytes, i) => expect(() => decodeCatalog(bytes), `case ${i}`).toThrow());
  });

  it('reads version 1 saves, whose sections hold exactly the rows', () => {
    expect([...decodeCatalog(asVersion1(encodeCatalog(ENTRIES))).entries()]).toEqual(ENTRIES);
    expect([...decodeCatalog(asVersion1(encodeCatalog([]))).entries()]).toEqual([]);
  });

  it('keeps every saved byte in place when a memory is added, but the count, the new row and the strings\' length', () => {
    const entries = Array.from({ length: 1_000 }, (_, i): CatalogEntry => ({ ...ENTRIES[i % 3]!, no: i + 1, id: `m-${i}` }));
    const before = encodeCatalog(entries);
    const after = encodeCatalog([...entries, { ...ENTRIES[0]!, no: 1_001, id: 'm-1000' }]);
    const differing = [...before].flatMap((byte, i) => (after[i] === byte ? [] : [i]));
    // Count (4 bytes), the new row's four numbers and four lengths (up to 48), the strings' length (up to 4).
    expect(differing.length).toBeGreaterThan(0);
    expect(differing.length).toBeLessThanOrEqual(56);
  });
});

/** `bytes` (version 2) laid out as version 1 wrote it: every section exactly as long as the rows. */
function asVersion1(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint32(12, true);
  const room = capacityOf(n);
  const text = bytes.subarray(16 + 48 * room);
  const out = new Uint8Array(16 + 48 * n + text.length);
  out.set(bytes.subarray(0, 16));
  new DataView(out.buffer).setUint32(8, 1, true);
  for (let c = 0; c < 4; c++) out.set(bytes.subarray(16 + 8 * room * c, 16 + 8 * room * c + 8 * n), 16 + 8 * n * c);
  out.set(bytes.subarray(16 + 32 * room, 16 + 32 * room + 16 * n), 16 + 32 * n);
  out.set(text, 16 + 48 * n);
  return out;
}
