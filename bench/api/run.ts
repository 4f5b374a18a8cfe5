/**
 * `npm run bench -- --part api`: what the calls other than a recall cost on a large store, right
 * after it opens and once it has settled. Per size, a store is built once on the Node file store
 * (the speed harness's corpus, every tenth memory of kind `decision`, its DEPENDS_ON edges), then
 * each round copies the file and reopens the copy in a fresh process (`child.ts`); medians over
 * the rounds go to bench/results/api.json and .md.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { HybridMemory } from '../../src/index.js';
import { makeCorpus, makeEdges, type Doc } from '../lib/corpus.js';
import { describeMachine, ms, table } from '../lib/format.js';
import type { Machine } from '../lib/machine.js';
import { quantile } from '../lib/stats.js';
import { CALLS, SETTLE_MS, type ApiChildOptions, type ApiChildResult } from './calls.js';

export interface ApiSize {
  n: number;
  edges: number;
  /** The two memories `path()` is asked about (see `farthestApart`). */
  path: [string, string];
  fileBytes: number;
  rounds: ApiChildResult[];
  load: [number, number];
}

export interface ApiReport {
  createdAt: string;
  commit: string;
  machine: Machine;
  settings: { sizes: number[]; rounds: number };
  sizes: ApiSize[];
}

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));
const run = promisify(execFile);

/**
 * From the smallest-numbered memory of the largest group the edges connect (either way), the one
 * farthest from it: a `path()` between them walks most of that group.
 */
export function farthestApart(edges: ReadonlyArray<[string, string]>): [string, string] {
  const links = new Map<string, string[]>();
  const link = (from: string, to: string) => {
    const list = links.get(from);
    if (list) list.push(to);
    else links.set(from, [to]);
  };
  for (const [a, b] of edges) {
    link(a, b);
    link(b, a);
  }
  const byNumber = (a: string, b: string) => Number(a.slice(1)) - Number(b.slice(1));
  const reach = (start: string): string[] => {
    const order = [start];
    const seen = new Set(order);
    for (let i = 0; i < order.length; i++) {
      for (const next of links.get(order[i]!) ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          order.push(next);
        }
      }
    }
    return order;
  };
  let largest: string[] = [];
  const grouped = new Set<string>();
  for (const id of [...links.keys()].sort(byNumber)) {
    if (grouped.has(id)) continue;
    const group = reach(id);
    for (const member of group) grouped.add(member);
    if (group.length > largest.length) largest = group;
  }
  // Breadth-first order ends at a farthest memory.
  return [largest[0]!, largest.at(-1)!];
}

async function build(file: string, docs: readonly Doc[], edges: ReadonlyArray<[string, string]>): Promise<void> {
  const mem = await HybridMemory.open({ storage: file, embedder: null, dim: 384, ann: false });
  for (let i = 0; i < docs.length; i += 1000) {
    await mem.storeMany(docs.slice(i, i + 1000).map((d, j) => ({ id: d.id, text: d.text, embedding: d.vector, createdAt: d.createdAt, kind: (i + j) % 10 === 0 ? 'decision' : 'note' })));
  }
  await mem.relateMany(edges.map(([from, to]) => ({ from, to, type: 'DEPENDS_ON' })));
  await mem.close();
}

export async function runApi(o: { sizes: number[]; rounds: number; log: (line: string) => void; onSize: (done: ApiSize[]) => Promise<void> }): Promise<ApiSize[]> {
  const dir = await mkdtemp(join(os.tmpdir(), 'hybridmind-api-'));
  const done: ApiSize[] = [];
  try {
    for (const n of o.sizes) {
      const load: [number, number] = [os.loadavg()[0]!, 0];
      const built = join(dir, `built-${n}.db`);
      o.log(`api: n = ${n}, building`);
      const { docs, queries } = makeCorpus(n, 384);
      const edges = makeEdges(docs);
      await build(built, docs, edges);
      const q = queries[0]!;
      const path = farthestApart(edges);
      const rounds: ApiChildResult[] = [];
      for (let r = 1; r <= o.rounds; r++) {
        const file = join(dir, `round-${n}-${r}.db`);
        await copyFile(built, file);
        const options: ApiChildOptions = { file, n, query: { text: q.text, vector: [...q.vector] }, path };
        const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, JSON.stringify(options)], { maxBuffer: 1 << 20 });
        rounds.push(JSON.parse(stdout) as ApiChildResult);
        await rm(file, { force: true });
        o.log(`  round ${r}: open ${rounds[r - 1]!.openMs.toFixed(0)} ms, close after one write ${rounds[r - 1]!.closeMs.toFixed(0)} ms, ${((rounds[r - 1]!.closeWrittenBytes ?? Number.NaN) / 1e6).toFixed(1)} MB written`);
      }
      load[1] = os.loadavg()[0]!;
      done.push({ n, edges: edges.length, path, fileBytes: (await stat(built)).size, rounds, load });
      await o.onSize(done);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return done;
}

const median = (values: number[]) => quantile([...values].sort((a, b) => a - b), 0.5);

export function renderApi(r: ApiReport): string {
  const sections = r.sizes.map((s) => {
    const rows = CALLS.map(([name], i) => [name, ...(['first', 'again', 'settled'] as const).map((pass) => ms(median(s.rounds.map((x) => x[pass][i]!))))]);
    rows.unshift(['open (HybridMemory.open of the file)', ms(median(s.rounds.map((x) => x.openMs))), '', '']);
    rows.push(['store(one memory), after the calls above', ms(median(s.rounds.map((x) => x.storeMs))), '', ''], ['close() after that write (saves the derived indexes)', ms(median(s.rounds.map((x) => x.closeMs))), '', '']);
    const written = s.rounds.map((x) => x.closeWrittenBytes).filter((b): b is number => b !== null);
    if (written.length > 0) rows.push(['bytes that close() wrote, MB (/proc/self/io wchar)', (median(written) / 1e6).toFixed(2), '', '']);
    return [`## n = ${s.n.toLocaleString('en')} memories, ${s.edges.toLocaleString('en')} edges (${(s.fileBytes / 2 ** 20).toFixed(0)} MiB file; load ${s.load[0].toFixed(2)} → ${s.load[1].toFixed(2)}; path() from ${s.path[0]} to ${s.path[1]})`, '', table(['call', 'right after the open, ms', 'again, ms', `after ${SETTLE_MS / 1000} s idle, ms`], rows)].join('\n');
  });
  return [
    '# HybridMind: the calls besides recall on a large store',
    '',
    `${r.createdAt}, commit ${r.commit.slice(0, 12)}. Machine: ${describeMachine(r.machine)}.`,
    '',
    `Method: per size, one store built on the Node file store (the speed harness's corpus and edges, every tenth memory of kind \`decision\`, 384-d precomputed vectors, \`ann: false\`), closed, then copied and reopened ${r.settings.rounds} times, each in a fresh Node process (\`bench/api/child.ts\`). Each call runs once right after the open, before any background work (the graph's edge fill, the catalog's id map) had a turn, once more after the first pass, and again after ${SETTLE_MS / 1000} s idle (the background work done); then one \`store()\` and the \`close()\` that saves what it changed, with the bytes the process wrote during it (Linux's count of bytes passed to write calls: the WAL frames and the checkpoint that copies them into the file). Medians over the rounds. The id asked about is the middle memory's; \`path()\` is asked from the smallest-numbered memory of the largest group the edges connect to the memory of that group farthest from it; the query is the speed harness's first, with its vector.`,
    '',
    ...sections,
    '',
  ].join('\n');
}
