/**
 * Calls a caller does not await one by one: the API fuzz's seeded calls go to one store in groups
 * started together (`Promise.all`), and to another one at a time. Each call must end as it does
 * when awaited alone, and both stores must end holding the same memories, edges and readiness: a
 * store takes its calls in the order they were made, whatever each awaits (the embedder answers
 * after a delay, so writes land while batches are at the embedder).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HybridMemory } from '../../src/index.js';
import { DIM, wellFormedCall, type Call } from '../support/api-calls.js';
import { SlowHashEmbedder } from '../support/hash-embedder.js';
import { held, shared, togetherAndAlone } from '../support/side-by-side.js';

const SEED = 20261209;
const NOW = Date.parse('2026-06-01T00:00:00Z');
const RUNS = 3;
const CALLS = 300;
const GROUP = 8;

const open = () => HybridMemory.open({ embedder: new SlowHashEmbedder(1, DIM), now: () => NOW });

/** What a store ended holding: memories with their readiness, and the counts. */
async function state(mem: HybridMemory): Promise<unknown> {
  const records = (await mem.list({ limit: 1000 })).records.map((r) => `${r.text} ${r.readiness}`).sort();
  const { memories, edges, current } = await mem.stats();
  return { held: await held(mem), records, memories, edges, current };
}

async function run(calls: Call[]): Promise<string[]> {
  const [together, alone] = [await open(), await open()];
  try {
    const differences = await togetherAndAlone(calls, [together, alone], GROUP);
    await Promise.all([together.ready(), alone.ready()]);
    const [a, b] = [await state(together), await state(alone)];
    if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`the stores ended apart:\n  together ${JSON.stringify(a).slice(0, 400)}\n  alone ${JSON.stringify(b).slice(0, 400)}`);
    return differences;
  } finally {
    await together.close();
    await alone.close();
  }
}

describe('calls started together end as they do one at a time', () => {
  for (const [kind, calls] of [['hostile', shared], ['well-formed', wellFormedCall]] as const) {
    it(`${RUNS} runs × ${CALLS} seeded ${kind} calls in groups of ${GROUP}`, async () => {
      const differences: string[] = [];
      await fc.assert(fc.asyncProperty(fc.array(calls, { minLength: CALLS, maxLength: CALLS }), async (generated) => {
        differences.push(...(await run(generated)));
      }), { seed: SEED, numRuns: RUNS, endOnFailure: true });
      expect(differences.join('\n')).toBe('');
    });
  }

  it('an export started together with writes holds exactly the writes made before it', async () => {
    const mem = await open();
    await mem.store({ id: 'a', text: 'alpha' });
    const [snapshot, , database] = await Promise.all([
      mem.exportSnapshot(),
      mem.store({ id: 'b', text: 'beta' }),
      mem.exportDatabase(),
      mem.store({ id: 'c', text: 'gamma' }),
    ]);
    await mem.close();
    const ids = async (m: HybridMemory) => {
      const found = (await m.list()).records.map((r) => r.id);
      await m.close();
      return found;
    };
    expect(await ids(await HybridMemory.importSnapshot(snapshot, { embedder: new SlowHashEmbedder(1, DIM) }))).toEqual(['a']);
    expect(await ids(await HybridMemory.open({ storage: { bytes: database }, embedder: new SlowHashEmbedder(1, DIM) }))).toEqual(['a', 'b']);
  });

  it('close() does not wait: writes made before it land, a recall still embedding its query ends CLOSED, later calls are CLOSED', async () => {
    const mem = await open();
    const ended = await Promise.allSettled([
      mem.store({ id: 'a', text: 'alpha' }),
      mem.recall('alpha'),
      mem.close(),
      mem.get('a'),
    ]);
    expect(ended.map((e) => (e.status === 'fulfilled' ? 'ok' : (e.reason as { code: string }).code))).toEqual(['ok', 'CLOSED', 'ok', 'CLOSED']);
  });
});
