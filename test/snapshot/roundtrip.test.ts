import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HybridMemory, HybridMindError, type Embedder, type RecallMode, type RecallOptions } from '../../src/index.js';
import { HashEmbedder, hashVector } from '../support/hash-embedder.js';
import { DAY, NOW } from '../support/memory.js';
import { unpack } from './support/archive.js';

const VOCAB = ['adr-007', 'sqlite', 'opfs', 'quokka', 'ferry', 'order', '#4821', 'vite', 'build', 'release', 'v1.2.3', 'island',
  'store', 'graph', 'vector', 'agent', 'decision', 'café', '東京', 'superseded', 'timetable'] as const;
const EXPLICIT_DIM = 8;

type VectorSource = 'embedder' | 'explicit' | 'none';

const words = (max: number) => fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: max }).map((w) => w.join(' '));

const storeSpec = fc.record({
  vectors: fc.constantFrom<VectorSource>('embedder', 'explicit', 'none'),
  memories: fc.array(
    fc.record({
      text: words(6),
      kind: fc.constantFrom(undefined, 'note', 'decision'),
      ageDays: fc.integer({ min: 0, max: 120 }),
      lifeDays: fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined, freq: 3 }),
    }),
    { minLength: 2, maxLength: 12 },
  ),
  edges: fc.array(
    fc.record({ from: fc.nat(40), to: fc.nat(40), type: fc.constantFrom('SUPERSEDES', 'DEPENDS_ON', 'RELATES_TO', 'REFERENCES'), weight: fc.constantFrom(0.5, 1, 2) }),
    { maxLength: 10 },
  ),
  forget: fc.array(fc.nat(40), { maxLength: 1 }),
  queries: fc.array(
    fc.record({ text: words(3), mode: fc.constantFrom<RecallMode>('hybrid', 'vector', 'lexical', 'graph'), asOfDays: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }) }),
    { minLength: 2, maxLength: 4 },
  ),
});

type StoreSpec = typeof storeSpec extends fc.Arbitrary<infer T> ? T : never;

function embedderFor(source: VectorSource): Embedder | null {
  return source === 'embedder' ? new HashEmbedder(32) : null;
}

async function build(spec: StoreSpec): Promise<HybridMemory> {
  const mem = await HybridMemory.open({ embedder: embedderFor(spec.vectors), now: () => NOW });
  const n = spec.memories.length;
  await mem.storeMany(spec.memories.map((m, i) => {
    const createdAt = NOW - m.ageDays * DAY;
    return {
      id: `m${i}`,
      text: m.text,
      ...(m.kind ? { kind: m.kind } : {}),
      createdAt,
      ...(m.lifeDays ? { validTo: createdAt + m.lifeDays * DAY } : {}),
      ...(spec.vectors === 'explicit' ? { embedding: hashVector(m.text, EXPLICIT_DIM) } : {}),
    };
  }));
  for (const e of spec.edges) {
    try {
      await mem.relate(`m${e.from % n}`, `m${e.to % n}`, e.type, { weight: e.weight });
    } catch (error) {
      // Self-loops, duplicates and supersession cycles are refused; the store stays as it was.
      if (!(error instanceof HybridMindError)) throw error;
    }
  }
  for (const k of spec.forget) if (await mem.get(`m${k % n}`)) await mem.forget(`m${k % n}`);
  await mem.ready();
  return mem;
}

async function observe(mem: HybridMemory, spec: StoreSpec): Promise<unknown> {
  const { enrichment: _, ...stats } = await mem.stats();
  const records = await Promise.all(spec.memories.map((_m, i) => mem.get(`m${i}`)));
  const answers = [];
  for (const q of spec.queries) {
    const options: RecallOptions = { mode: q.mode, k: 20 };
    if (q.asOfDays !== undefined) options.asOf = NOW - q.asOfDays * DAY;
    if (spec.vectors === 'explicit') options.queryEmbedding = hashVector(q.text, EXPLICIT_DIM);
    answers.push(await mem.recall(q.text, options));
  }
  const compared = await mem.compare(spec.queries[0]!.text, spec.vectors === 'explicit' ? { queryEmbedding: hashVector(spec.queries[0]!.text, EXPLICIT_DIM) } : {});
  return { stats, records, answers, compared };
}

describe('export → import round trip', () => {
  it('gives the same stats, records and recall (every mode, with asOf) — imported and restored alike', async () => {
    await fc.assert(
      fc.asyncProperty(storeSpec, async (spec) => {
        const original = await build(spec);
        const zip = await original.exportSnapshot();
        const imported = await HybridMemory.importSnapshot(zip, { embedder: embedderFor(spec.vectors), now: () => NOW });
        // A live store with other content, of the same model, restored in place.
        const live = await HybridMemory.open({ embedder: embedderFor(spec.vectors), now: () => NOW });
        await live.store({ id: 'm0', text: 'content that the restore replaces', ...(spec.vectors === 'explicit' ? { embedding: hashVector('x', EXPLICIT_DIM) } : {}) });
        await live.restoreSnapshot(zip);
        try {
          const expected = await observe(original, spec);
          expect(await observe(imported, spec)).toEqual(expected);
          expect(await observe(live, spec)).toEqual(expected);
          // The derived parts are a function of the content: a second generation writes them identically.
          const first = unpack(zip);
          for (const again of [unpack(await imported.exportSnapshot()), unpack(await live.exportSnapshot())]) {
            for (const part of ['vectors.ids.json', 'vectors.f32', 'graph.jsonl', 'bm25.jsonl']) expect(again.parts.get(part), part).toEqual(first.parts.get(part));
            expect(again.manifest['counts']).toEqual(first.manifest['counts']);
          }
        } finally {
          await Promise.all([original.close(), imported.close(), live.close()]);
        }
      }),
      { numRuns: 40, seed: 20261130 },
    );
  });
});
