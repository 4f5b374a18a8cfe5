import { afterEach, describe, expect, it, vi } from 'vitest';
import { newId } from '../../src/ids.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

afterEach(() => vi.restoreAllMocks());

describe('newId', () => {
  it('makes RFC 9562 version 7 UUIDs stamped with the current millisecond', () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    expect(id).toMatch(V7);
    expect(msOf(id)).toBeGreaterThanOrEqual(before);
    expect(msOf(id)).toBeLessThanOrEqual(after + 1);
  });

  it('counts up within one millisecond and borrows the next one when the counter runs out', () => {
    const frozen = Date.now() + 60_000;
    vi.spyOn(Date, 'now').mockReturnValue(frozen);
    const ids = Array.from({ length: 5000 }, newId);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(msOf(ids[0]!)).toBe(frozen);
    // 5,000 ids cannot fit one millisecond's 4,096 counter values, however the counter started.
    expect(msOf(ids.at(-1)!)).toBeGreaterThan(frozen);
    expect(ids.every((id) => V7.test(id))).toBe(true);
  });

  it('stays later than every earlier id when the clock steps back', () => {
    const first = newId();
    vi.spyOn(Date, 'now').mockReturnValue(msOf(first) - 3_600_000);
    const next = newId();
    expect(next > first).toBe(true);
    expect(msOf(next)).toBeGreaterThanOrEqual(msOf(first));
  });
});
