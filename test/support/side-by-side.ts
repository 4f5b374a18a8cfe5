/**
 * Two stores under the same seeded calls (`api-calls.ts`), side by side: each call's outcome on
 * each, and where they part ways. The methods every store offers, the embedded one and the
 * Postgres engine alike; what a successful answer must agree on is `agreed`'s. Node and browser
 * alike: the worker client's differential runs it in a page.
 */
import { HybridMindError } from '../../src/index.js';
import { call, type Call } from './api-calls.js';

/** What both engines offer; snapshots, reembed, compaction and `open` are the embedded store's own. */
const SHARED = new Set<Call['m']>([
  'store', 'storeMany', 'update', 'forget', 'get', 'list', 'edges', 'relate', 'relateMany', 'unrelate',
  'recall', 'recallReport', 'compare', 'context', 'checkCitations', 'trace', 'path', 'stats',
]);
export const shared = call.filter((c) => SHARED.has(c.m));

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
    case 'compare': {
      const legs = value as Record<'vector' | 'lexical' | 'graph' | 'hybrid', Array<{ text: string }>>;
      return Object.fromEntries((['vector', 'lexical', 'graph', 'hybrid'] as const).map((leg) => [leg, legs[leg].map((h) => h.text)]));
    }
    case 'context': {
      const ctx = value as { items: Array<{ text: string }>; tokens: number; dropped: unknown };
      return { texts: ctx.items.map((i) => i.text), tokens: ctx.tokens, dropped: ctx.dropped };
    }
    case 'trace': return (value as { nodes: Array<{ text: string; distance: number }> }).nodes.map((n) => [n.text, n.distance]);
    case 'checkCitations': return value;
    case 'path': return value;
    default: return null;
  }
}

/** How a call ended: ok, or the code and the method that raised it. */
function ending(o: Outcome): string {
  return o.ok ? 'ok' : `${o.code} from ${o.method}`;
}

/** Where two stores part ways on one call: what each answered, or null when they agree. */
function difference(c: Call, a: Outcome, b: Outcome, names: readonly [string, string]): string | null {
  const what = `${JSON.stringify(c, (_, v: unknown) => (typeof v === 'string' && v.length > 40 ? `${v.slice(0, 40)}…` : v)).slice(0, 300)}`;
  if (ending(a) !== ending(b)) return `${what}\n  ${names[0]}: ${a.ok ? 'ok' : a.message}\n  ${names[1]}: ${b.ok ? 'ok' : b.message}`;
  // What `agreed` keeps is plain data, compared as JSON so this also runs in a browser page (e2e).
  if (a.ok && b.ok && JSON.stringify(agreed(c, a.value)) !== JSON.stringify(agreed(c, b.value))) return `${what}\n  ${names[0]}: ${JSON.stringify(agreed(c, a.value))}\n  ${names[1]}: ${JSON.stringify(agreed(c, b.value))}`;
  return null;
}

/** A store's memories as comparable lines, sorted: ids a store drew itself differ between stores, the memories may not. */
export async function held(mem: { list(options: { limit: number }): Promise<{ records: Array<{ text: string; kind: string | null; domain: string | null; validTo: number | null }> }> }): Promise<string[]> {
  return (await mem.list({ limit: 1000 })).records.map((r) => JSON.stringify([r.text, r.kind, r.domain, r.validTo])).sort();
}

/**
 * Sends each call to both stores in turn, after `settle()` (what a store must finish first, such
 * as its background embedding), counts how the first store's calls ended in `tally`, and returns
 * where the two parted ways. The second store gets `copy(call)`: one that takes its arguments'
 * buffers (the worker client transfers them) must not empty those the calls share.
 */
export async function sideBySide(calls: readonly Call[], stores: readonly [unknown, unknown], names: readonly [string, string], settle: () => Promise<unknown>, tally: Map<string, number>, copy: (c: Call) => Call = (c) => c): Promise<string[]> {
  const sides: [Side, Side] = [{ api: stores[0] as Api, edgeIds: [] }, { api: stores[1] as Api, edgeIds: [] }];
  const differences: string[] = [];
  for (const [i, c] of calls.entries()) {
    await settle();
    const [a, b] = [await perform(sides[0], c), await perform(sides[1], copy(c))];
    tally.set(a.ok ? 'ok' : a.code, (tally.get(a.ok ? 'ok' : a.code) ?? 0) + 1);
    const found = difference(c, a, b, names);
    if (found !== null) differences.push(`call ${i}: ${found}`);
  }
  return differences;
}

/**
 * The calls sent to `stores[0]` in groups of `group` started together and to `stores[1]` one at a
 * time; returns each call that ended differently. `unrelate` is left out: which edge it picks
 * depends on the relate calls already answered, which a group changes.
 */
export async function togetherAndAlone(calls: readonly Call[], stores: readonly [unknown, unknown], group: number, copy: (c: Call) => Call = (c) => c): Promise<string[]> {
  const kept = calls.filter((c) => c.m !== 'unrelate');
  const [together, alone]: [Side, Side] = [{ api: stores[0] as Api, edgeIds: [] }, { api: stores[1] as Api, edgeIds: [] }];
  const grouped: Outcome[] = [];
  for (let i = 0; i < kept.length; i += group) grouped.push(...(await Promise.all(kept.slice(i, i + group).map((c) => perform(together, copy(c))))));
  const differences: string[] = [];
  for (const [i, c] of kept.entries()) {
    const one = await perform(alone, c);
    if (ending(grouped[i]!) !== ending(one)) differences.push(`call ${i} ${JSON.stringify(c).slice(0, 200)}: together ${ending(grouped[i]!)}, alone ${ending(one)}`);
  }
  return differences;
}
