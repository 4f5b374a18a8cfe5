import { describe, expect, it } from 'vitest';
import { defaultLegs } from '../../src/legs/default.js';
import { Bm25Index } from '../../src/legs/lexical/bm25-index.js';
import type { ChooseLegs, LegChoice } from '../../src/legs/types.js';
import { silentLogger } from '../../src/logger.js';
import { MemoryCore, openCore } from '../../src/memory/core.js';
import type { OpenOptions } from '../../src/memory/open-options.js';
import { NOW } from '../support/memory.js';

/** The core composed the way the public facade composes it, with the legs this test chooses. */
class Core extends MemoryCore {
  static async open(options: OpenOptions, chooseLegs: ChooseLegs): Promise<Core> {
    return new Core(await openCore('Core.open', { now: () => NOW, logger: silentLogger, ...options }, chooseLegs));
  }
}

describe('the memory core takes its legs from the factory the entry point chooses', () => {
  it('hands the open options that configure the legs to the chooser', async () => {
    const choices: LegChoice[] = [];
    const core = await Core.open({ embedder: null, dim: 4, vectorKernel: false, ann: false }, async (choice) => {
      choices.push(choice);
      return defaultLegs(choice);
    });
    try {
      expect(choices).toEqual([{ vectorKernel: false, ann: false, logger: silentLogger }]);
      await core.store({ id: 'a', text: 'alpha', embedding: new Float32Array([1, 0, 0, 0]) });
      expect((await core.recall('alpha', { mode: 'vector', queryEmbedding: new Float32Array([1, 0, 0, 0]) })).map((h) => h.id)).toEqual(['a']);
    } finally {
      await core.close();
    }
  });

  it('answers from the lexical index the chooser made, not one the core names', async () => {
    const scores: number[] = [];
    for (const lexical of [() => new Bm25Index(), () => new Bm25Index({ identifierBoost: 1 })]) {
      const core = await Core.open({ embedder: null }, async (choice) => ({ ...(await defaultLegs(choice)), lexical }));
      try {
        await core.store({ id: 'ident', text: 'fixed in parse_header after review' });
        await core.store({ id: 'other', text: 'the review was slow' });
        const [hit] = await core.recall('parse_header', { mode: 'lexical', k: 1 });
        expect(hit?.id).toBe('ident');
        scores.push(hit!.legs.lexical!.score);
      } finally {
        await core.close();
      }
    }
    // The default boosts a whole-identifier match; the chooser's index without the boost scores it lower.
    expect(scores[0]).toBeGreaterThan(scores[1]!);
  });
});
