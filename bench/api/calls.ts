/** The calls `child.ts` times and what it hands back, apart from it: importing the child would run it. */
import type { HybridMemory } from '../../src/index.js';
import type { SpeedQuery } from '../lib/corpus.js';

export interface ApiChildOptions {
  file: string;
  n: number;
  query: { text: string; vector: number[] };
  /** Two memories of the largest group the edges connect, as far apart as any from the first. */
  path: [from: string, to: string];
}

export interface ApiChildResult {
  openMs: number;
  /** Per call, in `CALLS` order: right after the open, then again, then after `SETTLE_MS` of nothing else (the background work done). */
  first: number[];
  again: number[];
  settled: number[];
  storeMs: number;
  closeMs: number;
  /** What the process handed the kernel to write during that close (Linux `/proc/self/io` wchar); null elsewhere. */
  closeWrittenBytes: number | null;
}

/** Idle time before the third pass: at 100k memories the graph's edge fill and the catalog's id map finish well within it. */
export const SETTLE_MS = 3_000;

type Call = [name: string, run: (mem: HybridMemory, id: string, query: SpeedQuery, path: [string, string]) => Promise<unknown>];

let stored = 0;

/** What an agent or an inspector asks of a store it has just opened (the README's API table), a write first. */
export const CALLS: Call[] = [
  ['store(one memory)', (mem, _id, q) => mem.store({ id: `api-${++stored}`, text: `decision ${stored}: Order #4821 ships on Tuesday`, kind: 'decision', embedding: q.vector })],
  ['stats()', (mem) => mem.stats()],
  ['get(id)', (mem, id) => mem.get(id)],
  ['list({ limit: 50 })', (mem) => mem.list({ limit: 50 })],
  ["list({ kind: 'decision', offset: 500 })", (mem) => mem.list({ kind: 'decision', offset: 500 })],
  ['edges(id)', (mem, id) => mem.edges(id)],
  ['trace(id)', (mem, id) => mem.trace(id)],
  ['path(from, to), the farthest apart', (mem, _id, _q, [from, to]) => mem.path(from, to)],
  ['ready()', (mem) => mem.ready()],
  ['recall(query), k 10', (mem, _id, q) => mem.recall(q.text, { k: 10, queryEmbedding: q.vector })],
  ['context(query)', (mem, _id, q) => mem.context(q.text, { queryEmbedding: q.vector })],
];

