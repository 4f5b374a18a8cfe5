import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXTRACTOR_VERSION } from '../src/legs/graph/entities.js';
import { decodeEntities, encodeEntities } from '../src/legs/graph/entity-format.js';
import { EntityIndex } from '../src/legs/graph/entity-index.js';

/**
 * A loaded entity index is read in place and keeps its changes beside it: it must answer every
 * question exactly as the index it was saved from (same hits, same scores to the last bit, since a
 * walk's sums follow the postings' order), and after any changes exactly as that index after the same.
 */
const NAMES = ['Ana Lima', 'Bob', 'ADR-007', 'Order #4821', 'Zürich', 'Kings', 'Caroline'];
const FILLER = ['met', 'about', 'and later', 'wrote to'];

const textArb = fc.array(fc.oneof(fc.constantFrom(...NAMES), fc.constantFrom(...FILLER)), { minLength: 1, maxLength: 6 }).map((words) => words.join(' '));
const turnArb = fc.option(fc.record({ session: fc.constantFrom('s1', 's2'), turn: fc.integer({ min: 0, max: 5 }) }), { nil: null });
const noArb = fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constant(2 ** 40));

type Op = { op: 'add'; no: number; text: string; turn: { session: string; turn: number } | null } | { op: 'remove'; no: number };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('add' as const), no: noArb, text: textArb, turn: turnArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('remove' as const), no: noArb }) },
);

function apply(index: EntityIndex, o: Op): void {
  if (o.op === 'add') index.add(o.no, o.text, o.turn);
  else index.remove(o.no);
}

const QUERIES = ['Ana Lima and Bob', 'ADR-007', 'Order #4821 in Zürich', 'nothing known', 'Caroline met the Kings'];

function same(loaded: EntityIndex, original: EntityIndex, seeds: number[]): void {
  expect(loaded.size).toBe(original.size);
  for (const q of QUERIES) {
    expect(loaded.known(q), q).toEqual(original.known(q));
    const options = { k: 20, tolerance: 0 };
    const weighted = seeds.map((no, i) => ({ no, weight: 1 / (i + 1) }));
    expect(loaded.walk(weighted, loaded.known(q), options), q).toEqual(original.walk(weighted, original.known(q), options));
  }
}

/** A save in format version 1 (JSON) of these entries (`[no, count, ids…]` each) naming the entities `keys`. */
const encode = (of: unknown[], keys: unknown[] = ['bob', 'ana']) =>
  new TextEncoder().encode(JSON.stringify({ format: 'hybridmind.entities', version: 1, extractor: EXTRACTOR_VERSION, keys, of }));

/** A current save as version 1 wrote it. */
function asVersion1(bytes: Uint8Array): Uint8Array {
  const { keys, nos, counts, ids } = decodeEntities(bytes, EXTRACTOR_VERSION).saved;
  const of: number[] = [];
  let at = 0;
  nos.forEach((no, i) => {
    of.push(no, counts[i]!, ...ids.subarray(at, (at += counts[i]!)));
  });
  return encode(of, keys);
}

/** Where the section of a binary save that starts at `from` ends, from its header. */
function sectionEnd(bytes: Uint8Array, from: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset + from, 24);
  const [, , count, idCount, keyLength, width] = [0, 1, 2, 3, 4, 5].map((i) => view.getUint32(4 * i, true)) as number[];
  return from + 24 + (width! + 4) * count! + 4 * idCount! + keyLength!;
}

/** Where a binary save's first section (version 3: its base) ends. */
const baseEnd = (bytes: Uint8Array) => sectionEnd(bytes, 8);

/** Whether `later` holds `earlier`'s first section (its base) byte for byte after the version byte's magic. */
const sameBase = (later: Uint8Array, earlier: Uint8Array) => Buffer.from(later.subarray(8, baseEnd(earlier))).equals(Buffer.from(earlier.subarray(8, baseEnd(earlier))));

/** `encode`'s entries in the current binary version. */
function encodeBinary(of: number[], keys: string[] = ['bob', 'ana']): Uint8Array {
  const nos: number[] = [];
  const counts: number[] = [];
  const ids: number[] = [];
  for (let i = 0; i < of.length; i += 2 + of[i + 1]!) {
    nos.push(of[i]!);
    counts.push(of[i + 1]!);
    ids.push(...of.slice(i + 2, i + 2 + of[i + 1]!));
  }
  return encodeEntities(EXTRACTOR_VERSION, { keys, nos: Float64Array.from(nos), counts: Uint32Array.from(counts), ids: Uint32Array.from(ids) });
}

describe('a loaded entity index', () => {
  it('answers as the index it was saved from, before and after further changes', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 30 }), fc.array(opArb, { maxLength: 10 }), fc.array(noArb, { maxLength: 4 }), (built, later, seeds) => {
        const original = new EntityIndex({ minCap: 4 });
        for (const o of built) apply(original, o);
        const bytes = original.save();
        const loaded = EntityIndex.load(bytes, { minCap: 4 });
        same(loaded, original, seeds);
        // The same index saved as version 1 did (JSON) loads to the same answers.
        same(EntityIndex.load(asVersion1(bytes), { minCap: 4 }), original, seeds);
        // Changed beside its saved form, it answers as the original after the same changes, and so
        // does its save: the base's bytes as they were, then the changes.
        for (const o of later) {
          apply(loaded, o);
          apply(original, o);
          same(loaded, original, seeds);
        }
        const again = loaded.save();
        expect(sameBase(again, bytes)).toBe(true);
        const reloaded = EntityIndex.load(again, { minCap: 4 });
        same(reloaded, original, seeds);
        // Saved again with no change in between, the same bytes.
        expect(Buffer.from(reloaded.save()).equals(Buffer.from(again))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('counts a memory listed with an entity twice once, as the maps it turns into do', () => {
    // The extractor names each entity once per text; a save may still list one twice.
    const loaded = EntityIndex.load(encode([1, 2, 0, 0, 2, 1, 0, 5, 1, 0, 3, 1, 1, 4, 1, 1]), { minCap: 2 });
    const once = EntityIndex.load(encode([1, 1, 0, 2, 1, 0, 5, 1, 0, 3, 1, 1, 4, 1, 1]), { minCap: 2 });
    const walks = (index: EntityIndex) => [[1], [2], [3, 4], [1, 2, 3, 4]].map((seeds) => index.walk(seeds.map((no) => ({ no, weight: 1 })), [0, 1], { k: 10, tolerance: 0 }));
    expect(walks(loaded)).toEqual(walks(once));
    // Removed, it leaves one posting of the entity, not two.
    loaded.remove(1);
    once.remove(1);
    expect(walks(loaded)).toEqual(walks(once));
    expect(walks(loaded)).toEqual(walks(EntityIndex.load(encode([2, 1, 0, 5, 1, 0, 3, 1, 1, 4, 1, 1]), { minCap: 2 })));
  });

  it('answers for a memory removed, added again and removed once more as the original does', () => {
    const original = new EntityIndex({ minCap: 2 });
    for (let no = 0; no < 40; no++) original.add(no, `Person${no % 7} met Bob and Ana Lima`);
    const loaded = EntityIndex.load(original.save(), { minCap: 2 });
    const steps: Op[] = [
      { op: 'remove', no: 3 },
      { op: 'add', no: 3, text: 'Person1 and Caroline', turn: null },
      { op: 'add', no: 41, text: 'Caroline met Person3', turn: { session: 's1', turn: 2 } },
      { op: 'remove', no: 3 },
      { op: 'add', no: 5, text: 'Bob alone', turn: null },
      { op: 'remove', no: 41 },
      { op: 'add', no: 3, text: 'Person1 again', turn: null },
    ];
    for (const o of steps) {
      apply(loaded, o);
      apply(original, o);
      same(loaded, original, [3, 5, 6]);
    }
    expect(new TextDecoder().decode(loaded.save())).toBe(new TextDecoder().decode(original.save()));
  });

  it('refuses a save whose entries are malformed', () => {
    expect(EntityIndex.load(encode([1, 1, 0, 2, 2, 0, 1])).size).toBe(2);
    const bad = [
      encode([1, 1, 0, 1, 1, 1]),
      encode([2 ** 40, 0, 2 ** 40, 1, 0]),
      encode([1, 1, 2]),
      encode([1, 3, 0]),
      encode([-1, 0]),
      encode([1.5, 0]),
      encode([1, 0], ['bob', 'bob']),
      // Counts and ids that are not whole numbers in range, in the forms a crafted save could hold.
      encode([1, '1', 0] as unknown as number[]),
      encode([1, 1.5, 0]),
      encode([1, -1, 0]),
      encode([1, null]),
      encode([1, 1, '0'] as unknown as number[]),
      encode([1, 1, -1]),
      encode([1, 1, 0.5]),
      encode([1, 1, 2 ** 32]),
      encode(['1', 0] as unknown as number[]),
    ];
    bad.forEach((bytes, i) => expect(() => EntityIndex.load(bytes), `case ${i}`).toThrow());
  });

  it('folds its changes into a new base once they pass their share, and saves changes after that base', () => {
    const original = new EntityIndex({ minCap: 2 });
    for (let no = 0; no < 100; no++) original.add(no, `Person${no % 9} met Bob`);
    const loaded = EntityIndex.load(original.save(), { minCap: 2 });
    const version = (bytes: Uint8Array) => String.fromCharCode(bytes[6]!);
    for (let no = 100; no < 164; no++) for (const index of [loaded, original]) index.add(no, `Person${no % 5} and Ana Lima`);
    expect(version(loaded.save())).toBe('3');
    for (const index of [loaded, original]) index.remove(3);
    const folded = loaded.save();
    expect(version(folded)).toBe('2');
    same(loaded, original, [1, 3, 120]);
    same(EntityIndex.load(folded, { minCap: 2 }), original, [1, 3, 120]);
    for (const index of [loaded, original]) index.add(500, 'Caroline met Bob');
    const after = loaded.save();
    expect(version(after)).toBe('3');
    expect(sameBase(after, folded)).toBe(true);
    same(EntityIndex.load(after, { minCap: 2 }), original, [1, 500]);
  });

  it('saves a few changes later in as many bytes, so SQLite can overwrite the value in place', () => {
    const original = new EntityIndex();
    for (let no = 0; no < 2000; no++) original.add(no, `Person${no % 300} met Bob about ADR-${no % 40}`);
    const bytes = original.save();
    const loaded = EntityIndex.load(bytes);
    loaded.remove(7);
    loaded.add(7, 'Caroline met Person3');
    loaded.add(2001, 'Order #4821 for Ana Lima');
    const again = loaded.save();
    expect(again.length).toBe(bytes.length);
    expect(sameBase(again, bytes)).toBe(true);
    // Before the changes, only the version byte differs.
    expect(again.subarray(0, 8).filter((b, i) => b !== bytes[i]).length).toBe(1);
  });

  it('refuses changes after a base that no calls could have made', () => {
    const base = { keys: ['bob', 'ana'], nos: Float64Array.of(1, 2), counts: Uint32Array.of(1, 1), ids: Uint32Array.of(0, 1) };
    const changes = (o: { keys?: string[]; nos?: number[]; counts?: number[]; ids?: number[]; removed?: number[] }) =>
      encodeEntities(EXTRACTOR_VERSION, base, { keys: o.keys ?? [], nos: Float64Array.from(o.nos ?? []), counts: Uint32Array.from(o.counts ?? []), ids: Uint32Array.from(o.ids ?? []), removed: Float64Array.from(o.removed ?? []) });
    expect(EntityIndex.load(changes({ keys: ['cy'], nos: [2, 3], counts: [1, 2], ids: [2, 0, 2], removed: [2] }), { minCap: 2 }).size).toBe(3);
    const good = changes({ nos: [3], counts: [1], ids: [0] });
    const bad = [
      changes({ removed: [7] }),
      changes({ removed: [1, 1] }),
      changes({ nos: [1], counts: [1], ids: [0] }),
      changes({ nos: [3, 3], counts: [0, 0] }),
      changes({ nos: [3], counts: [1], ids: [2] }),
      changes({ nos: [3], counts: [2], ids: [0] }),
      changes({ nos: [3], counts: [0], ids: [0] }),
      changes({ nos: [3.5], counts: [0] }),
      changes({ keys: ['bob'] }),
      Uint8Array.from([...good, 0]),
      good.subarray(0, good.length - 1),
      // A removed memory listed as naming an entity (with no ids to name).
      (() => {
        const bytes = Uint8Array.from(changes({ removed: [2] }));
        const removedAt = sectionEnd(bytes, sectionEnd(bytes, 8));
        const width = new DataView(bytes.buffer).getUint32(removedAt + 20, true);
        new DataView(bytes.buffer).setUint32(removedAt + 24 + width, 1, true);
        return bytes;
      })(),
      // The room after the changes holds something.
      Uint8Array.from(good, (b, i) => (i === good.length - 1 ? 1 : b)),
    ];
    bad.forEach((bytes, i) => expect(() => EntityIndex.load(bytes), `case ${i}`).toThrow());
  });

  it('refuses a binary save whose sizes or entries are malformed', () => {
    const good = encodeBinary([1, 1, 0, 2, 2, 0, 1]);
    expect(EntityIndex.load(good).size).toBe(2);
    const columns = (nos: number[], counts: number[], ids: number[], keys = ['bob', 'ana'], extractor = EXTRACTOR_VERSION) =>
      encodeEntities(extractor, { keys, nos: Float64Array.from(nos), counts: Uint32Array.from(counts), ids: Uint32Array.from(ids) });
    const bad = [
      good.subarray(0, good.length - 1),
      Uint8Array.from([...good, 0]),
      good.subarray(0, 12),
      // Bytes per memory number other than 4 or 8.
      Uint8Array.from(good, (b, i) => (i === 28 ? 5 : b)),
      columns([1], [1], [0], ['bob', 'ana'], EXTRACTOR_VERSION + 1),
      encodeBinary([1, 1, 2]),
      encodeBinary([1, 0, 1, 0]),
      encodeBinary([1.5, 0]),
      encodeBinary([-1, 0]),
      encodeBinary([2 ** 53, 0]),
      encodeBinary([1, 0], ['bob', 'bob']),
      // A key holding the separator reads as one key more than the header says.
      encodeBinary([1, 0], ['bob', 'a\0b']),
      columns([1], [2], [0]),
      columns([1, 2], [1, 0], [0, 1]),
    ];
    bad.forEach((bytes, i) => expect(() => EntityIndex.load(bytes), `case ${i}`).toThrow());
  });
});
