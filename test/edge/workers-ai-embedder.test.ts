import { describe, expect, it } from 'vitest';
import { WorkersAiEmbedder, type WorkersAiBinding } from '../../src/edge/workers-ai-embedder.js';

/** A stand-in for `env.AI`: bge-small answers `{ shape, data }` with one 384-d row per text. */
function fakeAi(answer?: (texts: string[]) => unknown): WorkersAiBinding & { calls: Array<{ model: string; text: string[] }> } {
  const calls: Array<{ model: string; text: string[] }> = [];
  return {
    calls,
    async run(model, inputs) {
      calls.push({ model, text: inputs.text });
      return answer ? answer(inputs.text) : { shape: [inputs.text.length, 384], data: inputs.text.map((_, i) => Array.from({ length: 384 }, (__, j) => (i + j) % 7)) };
    },
  };
}

describe('WorkersAiEmbedder', () => {
  it('embeds in batches through the binding, in order, under the id workers-ai:<model>', async () => {
    const ai = fakeAi();
    const embedder = new WorkersAiEmbedder({ ai, batchSize: 2 });
    expect(embedder).toMatchObject({ id: 'workers-ai:@cf/baai/bge-small-en-v1.5', dim: 384 });
    const vectors = await embedder.embed(['a', 'b', 'c']);
    expect(vectors).toHaveLength(3);
    expect(vectors[2]).toBeInstanceOf(Float32Array);
    expect(vectors[2]![0]).toBe(0);
    expect(ai.calls.map((c) => c.text)).toEqual([['a', 'b'], ['c']]);
  });

  it('knows the bge dimensions and needs dim for other models', () => {
    expect(new WorkersAiEmbedder({ ai: fakeAi(), model: '@cf/baai/bge-m3' }).dim).toBe(1024);
    expect(() => new WorkersAiEmbedder({ ai: fakeAi(), model: '@cf/some/other' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(new WorkersAiEmbedder({ ai: fakeAi(), model: '@cf/some/other', dim: 8 }).dim).toBe(8);
    expect(() => new WorkersAiEmbedder({ ai: {} as WorkersAiBinding })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('reports a failing binding as EMBEDDER and a wrong shape as EMBEDDER or DIMENSION_MISMATCH', async () => {
    const failing = new WorkersAiEmbedder({ ai: { run: async () => { throw new Error('3040: capacity'); } } });
    await expect(failing.embed(['x'])).rejects.toMatchObject({ code: 'EMBEDDER' });
    await expect(new WorkersAiEmbedder({ ai: fakeAi(() => ({ data: [] })) }).embed(['x'])).rejects.toMatchObject({ code: 'EMBEDDER' });
    await expect(new WorkersAiEmbedder({ ai: fakeAi(() => ({ data: [[1, 2]] })) }).embed(['x'])).rejects.toMatchObject({ code: 'DIMENSION_MISMATCH' });
  });
});
