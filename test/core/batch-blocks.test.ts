import { describe, expect, it } from 'vitest';
import { HybridMemory, SqliteWasmDriver } from '../../src/index.js';
import { lendSlab } from '../../src/util/vector.js';
import { rng } from '../support/random.js';

const DIM = 8;

function batch(prefix: string, count: number, next: () => number): Array<{ id: string; text: string; embedding: Float32Array }> {
  return Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, text: `${prefix} note ${i}`, embedding: Float32Array.from({ length: DIM }, () => next() * 2 - 1) }));
}

/** Ids whose own vector, as a query, does not find them first: a vector some reader kept a view of and the next batch wrote over. */
async function misplaced(mem: HybridMemory, inputs: ReadonlyArray<{ id: string; embedding: Float32Array }>): Promise<string[]> {
  const wrong: string[] = [];
  for (const input of inputs) {
    const [top] = await mem.recall('nearest', { mode: 'vector', k: 1, queryEmbedding: input.embedding, explain: false });
    if (top?.id !== input.id) wrong.push(input.id);
  }
  return wrong;
}

describe("a write batch's vector blocks, reused by the next batch", () => {
  it('lends the kept blocks to one batch at a time, and fresh ones to a batch that starts while they are out', () => {
    const first = lendSlab(3);
    const a = first.take(4);
    const nested = lendSlab(3);
    const b = nested.take(4);
    expect(b.buffer).not.toBe(a.buffer);
    nested.done();
    first.done();
    const again = lendSlab(3);
    expect(again.take(4).buffer).toBe(a.buffer);
    again.done();
  });

  it('keeps every stored vector whole when the next batch writes over the blocks, in the indexes and in SQLite', async () => {
    const next = rng(8);
    const mem = await HybridMemory.open({ embedder: null, dim: DIM, ann: false });
    const first = batch('a', 1_500, next);
    const second = batch('b', 1_500, next);
    await mem.storeMany(first);
    await mem.storeMany(second);
    expect(await misplaced(mem, [...first, ...second])).toEqual([]);
    const reopened = await HybridMemory.open({ storage: await SqliteWasmDriver.open({ bytes: await mem.exportDatabase() }), embedder: null, ann: false });
    expect(await misplaced(reopened, [...first, ...second])).toEqual([]);
    await Promise.all([mem.close(), reopened.close()]);
  });

  it('keeps the rest of a batch whole when its progress callback starts another write', async () => {
    const next = rng(9);
    const mem = await HybridMemory.open({ embedder: null, dim: DIM, ann: false });
    const first = batch('a', 1_500, next);
    const second = batch('b', 1_500, next);
    let nested: Promise<string[]> | null = null;
    await mem.storeMany(first, {
      onProgress: ({ done }) => {
        // At 1,000 of 1,500: the rows after it are still to be indexed from the batch's blocks.
        if (done === 1_000) nested = mem.storeMany(second);
      },
    });
    expect(nested).not.toBeNull();
    await nested;
    expect(await misplaced(mem, [...first, ...second])).toEqual([]);
    await mem.close();
  });
});
