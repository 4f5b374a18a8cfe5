/**
 * The API fuzz: seeded random calls with hostile arguments to every public method of one store
 * per run. Only `HybridMindError`s may come out, and afterwards the store must agree with a model
 * of the acknowledged writes: every id readable by `get` with the text last acknowledged, stats
 * counting exactly those memories, every memory with a vector after `ready()`, and the store
 * exporting to a snapshot that imports again (what the API accepted, the snapshot rules accept).
 * The test hash embedder keeps it fast; the real model is not what is under test here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HybridMemory, HybridMindError } from '../../src/index.js';
import { HashEmbedder } from '../support/hash-embedder.js';
import { call, DIM, type Call } from '../support/api-calls.js';

const SEED = 20261130;
const RUNS = 10;
const CALLS_PER_RUN = 1000;
/** The store's clock is pinned so validity windows, and so the outcomes, do not depend on the day the suite runs. */
const NOW = Date.parse('2026-11-30T12:00:00Z');

/** What the acknowledged writes say the store holds: id → text. */
type Model = Map<string, string>;

interface Run {
  mem: HybridMemory;
  model: Model;
  edgeIds: string[];
  snapshots: Array<{ bytes: Uint8Array; model: Model }>;
}

const textOf = (value: unknown): string => (value as { text: string }).text;

/** Runs one call; returns normally on success or a HybridMindError, throws anything else. */
async function perform(run: Run, c: Call): Promise<void> {
  const { mem, model } = run;
  // The API is typed; the fuzz calls it the way untyped callers (JSON, tool calls) do.
  const api = mem as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  switch (c.m) {
    case 'store': {
      const stored = await api['store']!(c.input) as string;
      model.set(stored, textOf(c.input));
      return;
    }
    case 'storeMany': {
      const stored = await api['storeMany']!(c.inputs) as string[];
      stored.forEach((sid, i) => model.set(sid, textOf((c.inputs as unknown[])[i])));
      return;
    }
    case 'update': {
      const record = await api['update']!(c.id, c.patch) as { id: string; text: string };
      model.set(record.id, record.text);
      const given = (c.patch as { text?: unknown }).text;
      if (typeof given === 'string') expect(record.text).toBe(given);
      return;
    }
    case 'forget':
      await api['forget']!(c.id);
      model.delete(c.id as string);
      return;
    case 'get': {
      const record = await api['get']!(c.id) as { text: string } | null;
      expect(record?.text ?? null).toBe(model.get(c.id as string) ?? null);
      return;
    }
    case 'list': {
      const page = await api['list']!(c.options) as { records: Array<{ id: string; text: string }>; total: number };
      for (const r of page.records) expect(r.text, `listed ${JSON.stringify(r.id)}`).toBe(model.get(r.id));
      const o = c.options as { kind?: unknown; domain?: unknown; idPrefix?: unknown } | undefined;
      if (o === undefined || (o.kind === undefined && o.domain === undefined && o.idPrefix === undefined)) expect(page.total).toBe(model.size);
      return;
    }
    case 'edges': await api['edges']!(c.id, c.options); return;
    case 'relate': run.edgeIds.push(await api['relate']!(c.from, c.to, c.type, c.options) as string); return;
    case 'relateMany': run.edgeIds.push(...(await api['relateMany']!(c.edges) as string[])); return;
    case 'unrelate': await api['unrelate']!(run.edgeIds.length > 0 && c.pick % 4 !== 0 ? run.edgeIds[c.pick % run.edgeIds.length] : c.junk); return;
    case 'autoEdges': case 'removeAutoEdges': await api[c.m]!(c.options); return;
    case 'recall': case 'recallReport': case 'compare': case 'context': await api[c.m]!(c.query, c.options); return;
    case 'checkCitations': await api['checkCitations']!(c.text, c.evidence); return;
    case 'trace': await api['trace']!(c.target, c.options); return;
    case 'path': await api['path']!(c.from, c.to, c.options); return;
    case 'reembed': await api['reembed']!(c.options); return;
    case 'ready': case 'stats': case 'compact': case 'exportDatabase': await api[c.m]!(); return;
    case 'exportSnapshot': run.snapshots.push({ bytes: await mem.exportSnapshot(), model: new Map(model) }); return;
    case 'restoreSnapshot': {
      const chosen = run.snapshots.length > 0 ? run.snapshots[c.pick % run.snapshots.length]! : null;
      const bytes = chosen ? chosen.bytes.slice() : new Uint8Array(c.pick % 64);
      if (c.flip !== null && bytes.length > 0) bytes[c.flip % bytes.length] = bytes[c.flip % bytes.length]! ^ 0xff;
      await api['restoreSnapshot']!(bytes, c.options);
      // Accepted means undamaged content: a flipped byte is refused unless it fell where no reader looks (a CRC, a timestamp).
      if (chosen) {
        run.model.clear();
        for (const [k, v] of chosen.model) run.model.set(k, v);
      }
      return;
    }
    case 'importSnapshot': {
      const imported = await (HybridMemory.importSnapshot as (...args: unknown[]) => Promise<HybridMemory>)(c.junk, c.options);
      await imported.close();
      return;
    }
    case 'open': {
      // Embedder and storage from the fuzz would load the real model or a driver; the rest is fuzzed.
      const options = c.options !== null && typeof c.options === 'object' ? { ...c.options, embedder: null, storage: 'memory' } : c.options;
      const opened = await (HybridMemory.open as (...args: unknown[]) => Promise<HybridMemory>)(options);
      await opened.close();
    }
  }
}

async function checkInvariants(run: Run): Promise<void> {
  const { mem, model } = run;
  await mem.ready();
  for (const [mid, text] of model) {
    const record = await mem.get(mid);
    expect(record?.text, `memory ${JSON.stringify(mid)}`).toBe(text);
    expect(record?.readiness, `memory ${JSON.stringify(mid)} has a vector after ready()`).toBe('semantic');
  }
  const stats = await mem.stats();
  expect(stats.memories).toBe(model.size);
  expect(stats.readiness).toEqual({ stored: 0, lexical: 0, semantic: model.size });
  const copy = await HybridMemory.importSnapshot(await mem.exportSnapshot(), { embedder: new HashEmbedder(DIM) });
  expect((await copy.stats()).memories).toBe(model.size);
  await copy.close();
}

describe('API fuzz', () => {
  it(`${RUNS} stores × ${CALLS_PER_RUN} seeded hostile calls: only HybridMindErrors, and the store agrees with what was acknowledged`, async () => {
    const outcomes = new Map<string, number>();
    const sizes: number[] = [];
    let calls = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: CALLS_PER_RUN, maxLength: CALLS_PER_RUN }), async (calls_) => {
        const run: Run = { mem: await HybridMemory.open({ embedder: new HashEmbedder(DIM), now: () => NOW }), model: new Map(), edgeIds: [], snapshots: [] };
        try {
          for (const c of calls_) {
            calls++;
            try {
              await perform(run, c);
              outcomes.set('ok', (outcomes.get('ok') ?? 0) + 1);
            } catch (error) {
              if (!(error instanceof HybridMindError)) throw new Error(`${c.m} threw a non-HybridMindError: ${String(error)}`, { cause: error });
              outcomes.set(error.code, (outcomes.get(error.code) ?? 0) + 1);
            }
          }
          await checkInvariants(run);
          sizes.push(run.model.size);
        } finally {
          await run.mem.close();
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // Recorded, not asserted: how the calls ended.
    console.info(`API fuzz, seed ${SEED}: ${calls} calls`, Object.fromEntries(outcomes), 'memories at the end of each run:', sizes.join(' '));
    expect(calls).toBeGreaterThanOrEqual(RUNS * CALLS_PER_RUN);
    expect(outcomes.get('STORAGE') ?? 0).toBe(0);
  }, 300_000);
});
