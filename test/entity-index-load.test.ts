import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EntityIndex } from '../src/legs/graph/entity-index.js';

/**
 * A loaded entity index is read in place until its first change: it must answer every question
 * exactly as the index it was saved from (same hits, same scores to the last bit, since a walk's
 * sums follow the postings' order), and after any changes exactly as that index after the same.
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

/** A save of these entries (`[no, count, ids…]` each) naming the entities `keys`. */
const encode = (of: unknown[], keys: unknown[] = ['bob', 'ana']) =>
  new TextEncoder().encode(JSON.stringify({ format: 'hybridmind.entities', version: 1, extractor: JSON.parse(new TextDecoder().decode(new EntityIndex().save())).extractor, keys, of }));

describe('a loaded entity index', () => {
  it('answers as the index it was saved from, before and after further changes', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 30 }), fc.array(opArb, { maxLength: 10 }), fc.array(noArb, { maxLength: 4 }), (built, later, seeds) => {
        const original = new EntityIndex({ minCap: 4 });
        for (const o of built) apply(original, o);
        const bytes = original.save();
        const loaded = EntityIndex.load(bytes, { minCap: 4 });
        same(loaded, original, seeds);
        expect(loaded.save()).toEqual(bytes);
        // Warmed a part at a time (each step as short as it may be), it answers the same throughout.
        const warmed = EntityIndex.load(bytes, { minCap: 4 });
        while (warmed.warm(0)) same(warmed, original, seeds);
        same(warmed, original, seeds);
        expect(warmed.save()).toEqual(bytes);
        const again = EntityIndex.load(bytes, { minCap: 4 });
        // Part of the way through, then changed: the change finishes the maps first.
        again.warm(0);
        for (const o of later) {
          apply(again, o);
          apply(original, o);
          same(again, original, seeds);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('counts a memory listed with an entity twice once, as the maps it turns into do', () => {
    // The extractor names each entity once per text; a save may still list one twice.
    const bytes = encode([1, 2, 0, 0, 2, 1, 0, 3, 1, 1, 4, 1, 1]);
    const loaded = EntityIndex.load(bytes, { minCap: 2 });
    const thawed = EntityIndex.load(bytes, { minCap: 2 });
    thawed.remove(999);
    for (const seeds of [[1], [2], [3, 4], [1, 2, 3, 4]]) {
      const weighted = seeds.map((no) => ({ no, weight: 1 }));
      expect(loaded.walk(weighted, [0, 1], { k: 10, tolerance: 0 })).toEqual(thawed.walk(weighted, [0, 1], { k: 10, tolerance: 0 }));
    }
  });

  it('warms 1,023 entities or memories a step when the clock is past, and a change finishes it', () => {
    const original = new EntityIndex({ minCap: 2 });
    for (let no = 0; no < 1500; no++) original.add(no, `Person${no % 1200} met Bob`);
    const bytes = original.save();
    const stepped = EntityIndex.load(bytes, { minCap: 2 });
    let steps = 0;
    while (stepped.warm(0)) steps++;
    // 1,201 entities and 1,500 memories: 2,701 parts, three steps of 1,023 at most, the last one done.
    expect(steps).toBe(2);
    expect(stepped.warm(0)).toBe(false);
    const changed = EntityIndex.load(bytes, { minCap: 2 });
    expect(changed.warm(0)).toBe(true);
    changed.remove(3);
    original.remove(3);
    expect(changed.warm(0)).toBe(false);
    same(changed, original, [1, 2, 4]);
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
});
