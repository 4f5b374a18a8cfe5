import { describe, expect, it } from 'vitest';
import { slab } from '../../src/util/vector.js';

describe('slab', () => {
  it('hands out views of the length asked that never overlap, a new block when one is full', () => {
    const take = slab(5, 10);
    const views = [take(4), take(4), take(4), take(25), take(1)];
    expect(views.map((v) => v.length)).toEqual([4, 4, 4, 25, 1]);
    views.forEach((v, i) => v.fill(i + 1));
    views.forEach((v, i) => expect([...v].every((x) => x === i + 1)).toBe(true));
    expect(views[0]!.buffer).toBe(views[1]!.buffer);
    expect(views[2]!.buffer).not.toBe(views[1]!.buffer);
    // A view longer than a block gets one of its own; the last input's block holds only what is left.
    expect(views.slice(2).map((v) => v.buffer.byteLength / 4)).toEqual([10, 25, 1]);
  });

  it('sizes a block to what is left of the batch: one input takes only its own vector', () => {
    expect(slab(1)(384).buffer.byteLength).toBe(384 * 4);
    const take = slab(3);
    expect(take(384).buffer.byteLength).toBe(3 * 384 * 4);
  });
});
