/**
 * The two engines under the same hostile calls: a seeded run of the API fuzz's calls goes to an
 * embedded store and to a Postgres memory side by side. They share the argument rules, so each
 * call must end the same way in both, succeeding or failing with the same code from the same
 * method, and what they then hold must agree: the same text for every id, the same counts. Each
 * then moves to the other engine by snapshot and must arrive unchanged.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridMemory } from '../../src/index.js';
import { PostgresMemory } from '../../src/postgres/index.js';
import { DIM, wellFormedCall, type Call } from '../support/api-calls.js';
import { held, shared, sideBySide } from '../support/side-by-side.js';
import { HashEmbedder } from '../support/hash-embedder.js';
import { NOW } from '../support/memory.js';
import { openPg, useCluster } from './fixture.js';

const SEED = 20261206;
const RUNS = 10;
const CALLS_PER_RUN = 400;
const WELL_FORMED_RUNS = 3;
const WELL_FORMED_CALLS = 600;

const cluster = useCluster();
const open: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const m of open) await m.close();
});

/** The calls of one run, side by side on a fresh pair of stores; then each store moves to the other engine. */
async function run(calls: Call[], tally: Map<string, number>): Promise<void> {
  const embedded = await HybridMemory.open({ embedder: new HashEmbedder(DIM), now: () => NOW });
  const pg: PostgresMemory = await openPg(cluster(), { embedder: new HashEmbedder(DIM) });
  open.push(embedded, pg);
  // The Postgres engine embeds as it stores; the embedded store in the background, so each call waits for that first.
  const differences = await sideBySide(calls, [embedded, pg], ['embedded', 'postgres'], () => embedded.ready(), tally);
  expect(differences.join('\n')).toBe('');
  const memories = await held(embedded);
  expect(await held(pg)).toEqual(memories);
  // Whatever either engine accepted moves to the other by snapshot, unchanged.
  const intoPg = await PostgresMemory.importSnapshot(await embedded.exportSnapshot(), { connection: cluster().connection, schema: cluster().schema('moved'), embedder: new HashEmbedder(DIM), now: () => NOW });
  const intoEmbedded = await HybridMemory.importSnapshot(await pg.exportSnapshot(), { embedder: new HashEmbedder(DIM), now: () => NOW });
  open.push(intoPg, intoEmbedded);
  expect(await held(intoPg)).toEqual(memories);
  expect(await held(intoEmbedded)).toEqual(memories);
  expect((await intoPg.stats()).edges).toBe((await embedded.stats()).edges);
  expect((await intoEmbedded.stats()).edges).toBe((await pg.stats()).edges);
}

describe('the embedded store and the Postgres engine under the same calls', () => {
  it(`${RUNS} runs × ${CALLS_PER_RUN} seeded hostile calls end alike in both, and leave the same memories`, async () => {
    const tally = new Map<string, number>();
    await fc.assert(fc.asyncProperty(fc.array(shared, { minLength: CALLS_PER_RUN, maxLength: CALLS_PER_RUN }), (calls) => run(calls, tally)), { seed: SEED, numRuns: RUNS, endOnFailure: true });
    console.info(`differential fuzz, seed ${SEED}:`, Object.fromEntries(tally));
    expect([...tally.values()].reduce((sum, n) => sum + n, 0)).toBe(RUNS * CALLS_PER_RUN);
  }, 300_000);

  it(`${WELL_FORMED_RUNS} runs × ${WELL_FORMED_CALLS} seeded well-formed calls: stores of ~170 memories rank alike in both`, async () => {
    const tally = new Map<string, number>();
    await fc.assert(fc.asyncProperty(fc.array(wellFormedCall, { minLength: WELL_FORMED_CALLS, maxLength: WELL_FORMED_CALLS }), (calls) => run(calls, tally)), { seed: SEED, numRuns: WELL_FORMED_RUNS, endOnFailure: true });
    console.info(`differential fuzz, well-formed calls, seed ${SEED}:`, Object.fromEntries(tally));
    expect(tally.get('ok') ?? 0).toBeGreaterThan((WELL_FORMED_RUNS * WELL_FORMED_CALLS) / 2);
  }, 300_000);
});
