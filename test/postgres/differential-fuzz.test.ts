/**
 * The two engines under the same hostile calls: a seeded run of the API fuzz's calls goes to an
 * embedded store and to a Postgres memory side by side. They share the argument rules, so each
 * call must end the same way in both, succeeding or failing with the same code from the same
 * method, and what they then hold must agree: the same text for every id, the same counts. Each
 * then moves to the other engine by snapshot and must arrive unchanged.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridMemory, HybridMindError } from '../../src/index.js';
import { PostgresMemory } from '../../src/postgres/index.js';
import { call, DIM, type Call } from '../support/api-calls.js';
import { HashEmbedder } from '../support/hash-embedder.js';
import { NOW } from '../support/memory.js';
import { openPg, useCluster } from './fixture.js';

const SEED = 20261206;
const RUNS = 10;
const CALLS_PER_RUN = 400;

/** What both engines offer; snapshots, reembed, compaction and `open` are the embedded store's own. */
const SHARED = new Set<Call['m']>([
  'store', 'storeMany', 'update', 'forget', 'get', 'list', 'edges', 'relate', 'relateMany', 'unrelate',
  'recall', 'recallReport', 'compare', 'context', 'checkCitations', 'trace', 'path', 'stats',
]);
const shared = call.filter((c) => SHARED.has(c.m));

type Api = Record<string, (...args: unknown[]) => Promise<unknown>>;
type Outcome = { ok: true; value: unknown } | { ok: false; code: string; method: string; message: string };

/** One engine under fuzz with the edge ids it acknowledged, in order, so `unrelate` picks the same edge in both. */
interface Side {
  api: Api;
  edgeIds: string[];
}

async function perform(side: Side, c: Call): Promise<Outcome> {
  const { api } = side;
  try {
    let value: unknown;
    switch (c.m) {
      case 'store': value = await api['store']!(c.input); break;
      case 'storeMany': value = await api['storeMany']!(c.inputs); break;
      case 'update': value = await api['update']!(c.id, c.patch); break;
      case 'forget': case 'get': value = await api[c.m]!(c.id); break;
      case 'list': value = await api['list']!(c.options); break;
      case 'edges': value = await api['edges']!(c.id, c.options); break;
      case 'relate': value = await api['relate']!(c.from, c.to, c.type, c.options); side.edgeIds.push(value as string); break;
      case 'relateMany': value = await api['relateMany']!(c.edges); side.edgeIds.push(...(value as string[])); break;
      case 'unrelate': value = await api['unrelate']!(side.edgeIds.length > 0 && c.pick % 4 !== 0 ? side.edgeIds[c.pick % side.edgeIds.length] : c.junk); break;
      case 'recall': case 'recallReport': case 'compare': case 'context': value = await api[c.m]!(c.query, c.options); break;
      case 'checkCitations': value = await api['checkCitations']!(c.text, c.evidence); break;
      case 'trace': value = await api['trace']!(c.target, c.options); break;
      case 'path': value = await api['path']!(c.from, c.to, c.options); break;
      case 'stats': value = await api['stats']!(); break;
      default: throw new Error(`${c.m} is not shared`);
    }
    return { ok: true, value };
  } catch (error) {
    if (!(error instanceof HybridMindError)) throw new Error(`${c.m} threw a non-HybridMindError: ${String(error)}`, { cause: error });
    return { ok: false, code: error.code, method: error.method, message: error.message };
  }
}

/** The part of a successful answer both engines must give alike. */
function agreed(c: Call, value: unknown): unknown {
  switch (c.m) {
    case 'get': case 'update': {
      const r = value as { id: string; text: string; kind: string | null; domain: string | null; status: string } | null;
      return r && { id: r.id, text: r.text, kind: r.kind, domain: r.domain, status: r.status };
    }
    case 'list': {
      // In storage order; ids the engines drew themselves differ, so by text.
      const page = value as { records: Array<{ text: string }>; total: number };
      return { texts: page.records.map((r) => r.text), total: page.total };
    }
    case 'stats': {
      const s = value as { memories: number; edges: number; current: number };
      return { memories: s.memories, edges: s.edges, current: s.current };
    }
    case 'recall': return (value as Array<{ text: string }>).map((h) => h.text);
    case 'recallReport': return (value as { hits: Array<{ text: string }> }).hits.map((h) => h.text);
    case 'trace': return (value as { nodes: Array<{ text: string; distance: number }> }).nodes.map((n) => [n.text, n.distance]);
    case 'checkCitations': return value;
    case 'path': return value;
    default: return null;
  }
}

const cluster = useCluster();
const open: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const m of open) await m.close();
});

describe('the embedded store and the Postgres engine under the same hostile calls', () => {
  it(`${RUNS} runs × ${CALLS_PER_RUN} seeded calls end alike in both, and leave the same memories`, async () => {
    const tally = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(shared, { minLength: CALLS_PER_RUN, maxLength: CALLS_PER_RUN }), async (calls) => {
        const embedded = await HybridMemory.open({ embedder: new HashEmbedder(DIM), now: () => NOW });
        const pg: PostgresMemory = await openPg(cluster(), { embedder: new HashEmbedder(DIM) });
        open.push(embedded, pg);
        const sides: [Side, Side] = [{ api: embedded as unknown as Api, edgeIds: [] }, { api: pg as unknown as Api, edgeIds: [] }];
        const differences: string[] = [];
        for (const [i, c] of calls.entries()) {
          // The Postgres engine embeds as it stores; the embedded store in the background, so it waits for that first.
          await embedded.ready();
          const [a, b] = [await perform(sides[0], c), await perform(sides[1], c)];
          const ending = (o: Outcome) => (o.ok ? 'ok' : `${o.code} from ${o.method}`);
          tally.set(a.ok ? 'ok' : a.code, (tally.get(a.ok ? 'ok' : a.code) ?? 0) + 1);
          const where = () => `call ${i}: ${JSON.stringify(c, (_, v: unknown) => (typeof v === 'string' && v.length > 40 ? `${v.slice(0, 40)}…` : v)).slice(0, 300)}`;
          if (ending(a) !== ending(b)) differences.push(`${where()}\n  embedded: ${a.ok ? 'ok' : a.message}\n  postgres: ${b.ok ? 'ok' : b.message}`);
          else if (a.ok && b.ok && !isDeepStrictEqual(agreed(c, a.value), agreed(c, b.value))) differences.push(`${where()}\n  embedded: ${JSON.stringify(agreed(c, a.value))}\n  postgres: ${JSON.stringify(agreed(c, b.value))}`);
        }
        expect(differences.join('\n')).toBe('');
        // Ids the engines drew themselves differ; the memories behind them may not.
        const held = async (mem: HybridMemory | PostgresMemory) => (await mem.list({ limit: 1000 })).records.map((r) => JSON.stringify([r.text, r.kind, r.domain, r.validTo])).sort();
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
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.info(`differential fuzz, seed ${SEED}:`, Object.fromEntries(tally));
    expect([...tally.values()].reduce((sum, n) => sum + n, 0)).toBe(RUNS * CALLS_PER_RUN);
  }, 300_000);
});
