/**
 * The Node file store (better-sqlite3 on disk) and the in-memory store (SQLite-WASM) under the
 * same seeded calls, hostile and well-formed: the same core over two drivers, so every call must end alike and
 * answer alike. Halfway and at the end the file store is closed and reopened from its file, its
 * derived indexes loaded from the files it saved rather than rebuilt: the second half's writes go
 * to loaded indexes, and at the end it must still hold and find what the in-memory store does,
 * as must a store imported from its snapshot.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridMemory } from '../../src/index.js';
import { DIM, wellFormedCall, type Call } from '../support/api-calls.js';
import { HashEmbedder } from '../support/hash-embedder.js';
import { NOW } from '../support/memory.js';
import { held, shared, sideBySide } from '../support/side-by-side.js';

const SEED = 20261207;
const RUNS = 6;
const CALLS_PER_RUN = 400;
const WELL_FORMED_RUNS = 2;
const WELL_FORMED_CALLS = 600;
/** Words fc.lorem draws from, so the stores hold what these find. */
const QUERIES = ['lorem ipsum', 'dolor sit amet', 'consectetur adipiscing elit', 'sed do eiusmod', 'magna aliqua', 'nisi ut aliquip'];

const dir = mkdtempSync(join(tmpdir(), 'hybridmind-differential-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let runs = 0;

const open = (storage: string) => HybridMemory.open({ storage, embedder: new HashEmbedder(DIM), now: () => NOW });
const texts = async (mem: HybridMemory, query: string) => (await mem.recall(query, { k: 10 })).map((h) => h.text);

/** One run's calls on a fresh pair of stores; the file store reopened halfway and at the end. Returns how many recalls found something. */
async function run(calls: Call[], tally: Map<string, number>): Promise<number> {
  const path = join(dir, `run-${runs++}.db`);
  const memory = await open('memory');
  let file = await open(path);
  let answered = 0;
  try {
    // Halfway the file store is reopened: the second half writes to indexes loaded from its saved files.
    const half = calls.length / 2;
    for (const part of [calls.slice(0, half), calls.slice(half)]) {
      const differences = await sideBySide(part, [memory, file], ['memory', 'file'], () => Promise.all([memory.ready(), file.ready()]), tally);
      expect(differences.join('\n')).toBe('');
      await file.close();
      file = await open(path);
    }
    expect(await held(file)).toEqual(await held(memory));
    expect((await file.stats()).edges).toBe((await memory.stats()).edges);
    // And a copy made from the file store's snapshot, whose indexes are built from the archive.
    const copy = await HybridMemory.importSnapshot(await file.exportSnapshot(), { embedder: new HashEmbedder(DIM), now: () => NOW });
    try {
      expect(await held(copy)).toEqual(await held(memory));
      for (const query of QUERIES) {
        const found = await texts(memory, query);
        expect(await texts(file, query), query).toEqual(found);
        expect(await texts(copy, query), `${query}, from the snapshot`).toEqual(found);
        answered += found.length > 0 ? 1 : 0;
      }
    } finally {
      await copy.close();
    }
  } finally {
    await memory.close();
    await file.close();
  }
  return answered;
}

describe('the Node file store and the in-memory store under the same calls', () => {
  it(`${RUNS} runs × ${CALLS_PER_RUN} seeded hostile calls end alike on both drivers, and the reopened file answers alike`, async () => {
    const tally = new Map<string, number>();
    let answered = 0;
    await fc.assert(fc.asyncProperty(fc.array(shared, { minLength: CALLS_PER_RUN, maxLength: CALLS_PER_RUN }), async (calls) => {
      answered += await run(calls, tally);
    }), { seed: SEED, numRuns: RUNS, endOnFailure: true });
    console.info(`file-store differential fuzz, seed ${SEED}:`, Object.fromEntries(tally), `queries answered after the reopen: ${answered} of ${RUNS * QUERIES.length}`);
    expect([...tally.values()].reduce((sum, n) => sum + n, 0)).toBe(RUNS * CALLS_PER_RUN);
    // Not a comparison of empty answers.
    expect(answered).toBeGreaterThan(RUNS);
  }, 300_000);

  it(`${WELL_FORMED_RUNS} runs × ${WELL_FORMED_CALLS} seeded well-formed calls: stores of ~170 memories answer alike before and after each reopen`, async () => {
    const tally = new Map<string, number>();
    await fc.assert(fc.asyncProperty(fc.array(wellFormedCall, { minLength: WELL_FORMED_CALLS, maxLength: WELL_FORMED_CALLS }), async (calls) => {
      await run(calls, tally);
    }), { seed: SEED, numRuns: WELL_FORMED_RUNS, endOnFailure: true });
    console.info(`file-store differential fuzz, well-formed calls, seed ${SEED}:`, Object.fromEntries(tally));
    expect(tally.get('ok') ?? 0).toBeGreaterThan((WELL_FORMED_RUNS * WELL_FORMED_CALLS) / 2);
  }, 300_000);
});
