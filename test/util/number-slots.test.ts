import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NumberSlots } from '../../src/util/number-slots.js';

type Op = { op: 'set'; no: number; slot: number } | { op: 'delete'; no: number } | { op: 'clear' };

/** Dense numbers (the array form), and now and then one far past them (the switch to a map) when `far`. */
const noArb = (far: boolean) => (far ? fc.oneof({ weight: 30, arbitrary: fc.integer({ min: 0, max: 300 }) }, { weight: 1, arbitrary: fc.constantFrom(2 ** 31 - 1, 2 ** 40, 50_000) }) : fc.integer({ min: 0, max: 300 }));
const opArb = (far: boolean): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: 10, arbitrary: fc.record({ op: fc.constant('set' as const), no: noArb(far), slot: fc.nat(1 << 20) }) },
    { weight: 4, arbitrary: fc.record({ op: fc.constant('delete' as const), no: noArb(far) }) },
    { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
  );
const PROBES = [0, 1, 2, 300, 1023, 1024, 50_000, 2 ** 31 - 1, 2 ** 40, -1, 0.5, Number.NaN];

describe('NumberSlots', () => {
  it('answers get, has, size and delete as a Map through sets, deletes, clears and the switch to a map', () => {
    fc.assert(
      fc.property(fc.boolean().chain((far) => fc.array(opArb(far), { maxLength: 400 })), (ops) => {
        const slots = new NumberSlots();
        const map = new Map<number, number>();
        for (const o of ops) {
          if (o.op === 'set') {
            slots.set(o.no, o.slot);
            map.set(o.no, o.slot);
          } else if (o.op === 'delete') expect(slots.delete(o.no)).toBe(map.delete(o.no));
          else {
            slots.clear();
            map.clear();
          }
          expect(slots.size).toBe(map.size);
        }
        for (const no of [...PROBES, ...map.keys()]) {
          expect(slots.get(no), `get(${no})`).toBe(map.get(no));
          expect(slots.has(no)).toBe(map.has(no));
        }
      }),
      { numRuns: 200, seed: 20_261_202 },
    );
  });

  it('refuses a number that is not whole and ≥ 0', () => {
    const slots = new NumberSlots();
    for (const no of [-1, 0.5, Number.NaN]) expect(() => slots.set(no, 0)).toThrow(RangeError);
    expect(slots.size).toBe(0);
  });

  it('fills an empty table from increasing numbers as a set per number would, dense or far apart', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.oneof({ weight: 20, arbitrary: fc.nat(5_000) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 ** 31 - 1 }) }), { maxLength: 300 }), (numbers) => {
        const nos = Int32Array.from(numbers.sort((a, b) => a - b));
        const filled = new NumberSlots();
        filled.fillAscending(nos);
        const map = new Map<number, number>();
        nos.forEach((no, slot) => map.set(no, slot));
        expect(filled.size).toBe(map.size);
        for (const no of [...PROBES, ...map.keys()]) expect(filled.get(no), `get(${no})`).toBe(map.get(no));
        // What follows behaves as after sets: a later set grows the table, a delete frees the number.
        filled.set(6_000, 7);
        expect(filled.get(6_000)).toBe(7);
        if (nos.length > 0) {
          expect(filled.delete(nos[0]!)).toBe(true);
          expect(filled.has(nos[0]!)).toBe(false);
        }
      }),
      { numRuns: 200, seed: 20_261_204 },
    );
  });

  it('refuses to fill from numbers that repeat, fall, are negative, or into a table that holds some', () => {
    for (const nos of [[1, 1], [3, 2], [-1, 4]]) {
      const slots = new NumberSlots();
      expect(() => slots.fillAscending(Int32Array.from(nos)), String(nos)).toThrow(/fillAscending: .* is not above/);
      expect(slots.size).toBe(0);
    }
    const held = new NumberSlots();
    held.set(1, 0);
    expect(() => held.fillAscending(Int32Array.of(2))).toThrow(/holds 1 numbers/);
  });
});
