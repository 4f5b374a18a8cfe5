/**
 * `npm run bench:file-store [-- --size 10000 --kills 10]`: the SQLite file engines for Node side by
 * side, each as a `HybridMemory` storage: write latency for storeMany batches of 1 and of 1000,
 * reopen time to the first answer, and kill -9 safety. The old way of persisting in Node (an
 * in-memory store saved as a whole .mind.zip after each write) runs beside them as the baseline.
 * Results: bench/results/file-store.json and .md. Install times come from install-time.sh.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HybridMemory } from '../../src/index.js';
import { saveSnapshotFile } from '../../src/snapshot/node-files.js';
import { acknowledged, batchSizes, runAndKill } from '../../test/support/kill.js';
import { makeCorpus, type Doc } from '../lib/corpus.js';
import { machineInfo } from '../lib/machine.js';
import { rng, summarize, type Summary } from '../lib/stats.js';
import { ENGINES, openEngine, type EngineName } from './engines.js';

const { values } = parseArgs({ options: { size: { type: 'string', default: '10000' }, kills: { type: 'string', default: '10' }, singles: { type: 'string', default: '200' } } });
const SIZE = Number(values.size);
const KILLS = Number(values.kills);
const SINGLES = Number(values.singles);
const BASELINE_SINGLES = Math.min(SINGLES, 20);
const log = (line: string) => process.stderr.write(`${line}\n`);

interface EngineResult {
  engine: string;
  batch1000Ms: Summary;
  batch1Ms: Summary;
  reopenToFirstAnswerMs: Summary;
  crash: { kills: number; reopenFailures: string[]; lostAcknowledged: number; halfBatches: number };
}

const asInput = (d: Doc) => ({ id: d.id, text: d.text, embedding: d.vector, createdAt: d.createdAt });

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Fills a store in batches of 1000, then adds `singles` memories one batch each. */
async function writes(mem: HybridMemory, docs: readonly Doc[], afterBatch: () => Promise<void>, singles = SINGLES): Promise<{ batch1000: number[]; batch1: number[] }> {
  const batch1000: number[] = [];
  for (let i = 0; i + 1000 <= SIZE; i += 1000) {
    batch1000.push(await timed(async () => {
      await mem.storeMany(docs.slice(i, i + 1000).map(asInput));
      await afterBatch();
    }));
  }
  const batch1: number[] = [];
  for (let i = 0; i < singles; i++) {
    batch1.push(await timed(async () => {
      await mem.storeMany([asInput(docs[SIZE + i]!)]);
      await afterBatch();
    }));
  }
  return { batch1000, batch1 };
}

async function measureEngine(engine: EngineName, docs: readonly Doc[], dir: string, query: Float32Array): Promise<EngineResult> {
  const path = join(dir, `${engine}.db`);
  const mem = await HybridMemory.open({ storage: await openEngine(engine, path), embedder: null });
  const w = await writes(mem, docs, async () => {});
  await mem.close();
  const reopen: number[] = [];
  for (let i = 0; i < 5; i++) {
    reopen.push(await timed(async () => {
      const again = await HybridMemory.open({ storage: await openEngine(engine, path), embedder: null });
      await again.recall('first answer', { queryEmbedding: query, k: 10 });
      await again.close();
    }));
  }
  return { engine, batch1000Ms: summarize(w.batch1000), batch1Ms: summarize(w.batch1), reopenToFirstAnswerMs: summarize(reopen), crash: await crashes(engine, dir) };
}

/** `KILLS` seeded kill -9 points during storeMany, each followed by a reopen with the same engine. */
async function crashes(engine: EngineName, dir: string): Promise<EngineResult['crash']> {
  const path = join(dir, `${engine}-crash.db`);
  const random = rng(4242);
  const expected = new Map<number, number>();
  const sizes: number[][] = [];
  const result = { kills: KILLS, reopenFailures: [] as string[], lostAcknowledged: 0, halfBatches: 0 };
  for (let round = 0; round < KILLS; round++) {
    const lines = await runAndKill(['store', path, String(round), String(round * 10_000), engine], Math.floor(random() * 400)).catch((e: unknown) => [`failed ${String(e)}`]);
    if (lines[0]?.startsWith('failed')) {
      result.reopenFailures.push(`round ${round}: the writer could not open the file: ${lines[0].slice(0, 200)}`);
      continue;
    }
    sizes.push(batchSizes(round, 10_000));
    for (const { batch, size } of acknowledged(lines, 'ack')) expected.set(batch, size);
    let found: Map<number, number>;
    try {
      found = await countBatches(engine, path);
    } catch (error) {
      result.reopenFailures.push(`round ${round}: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`);
      continue;
    }
    for (const [batch, size] of expected) if (found.get(batch) !== size) result.lostAcknowledged++;
    for (const [batch, count] of found) {
      if (count !== sizes[Math.floor(batch / 10_000)]![batch % 10_000]) result.halfBatches++;
      expected.set(batch, count);
    }
  }
  return result;
}

async function countBatches(engine: EngineName, path: string): Promise<Map<number, number>> {
  const db = await openEngine(engine, path);
  try {
    const check = db.all<{ integrity_check: string }>('PRAGMA integrity_check');
    if (check[0]?.integrity_check !== 'ok') throw new Error(`integrity_check: ${JSON.stringify(check)}`);
    const counts = new Map<number, number>();
    for (const { id } of db.all<{ id: string }>('SELECT id FROM memories')) {
      const batch = Number(/^b(\d+)-/.exec(id)![1]);
      counts.set(batch, (counts.get(batch) ?? 0) + 1);
    }
    return counts;
  } finally {
    db.close();
  }
}

/** The baseline: an in-memory store written whole to a .mind.zip after every batch (the MCP server before file stores). */
async function measureSnapshotBaseline(docs: readonly Doc[], dir: string): Promise<{ batch1000Ms: Summary; batch1Ms: Summary }> {
  const zip = join(dir, 'baseline.mind.zip');
  const mem = await HybridMemory.open({ embedder: null });
  // Each save rewrites the whole store, so fewer samples keep the run short.
  const w = await writes(mem, docs, () => saveSnapshotFile(mem, zip), BASELINE_SINGLES);
  await mem.close();
  return { batch1000Ms: summarize(w.batch1000), batch1Ms: summarize(w.batch1) };
}

async function engineVersions(): Promise<Record<string, string>> {
  const { readFile } = await import('node:fs/promises');
  const names = ['better-sqlite3', 'libsql', 'node-sqlite3-wasm'];
  const read = async (name: string) => (JSON.parse(await readFile(new URL(`../../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as { version: string }).version;
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await read(n)] as const)));
}

const ms = (s: Summary) => `${s.median.toFixed(1)} / ${s.p95.toFixed(1)}`;

function report(results: EngineResult[], baseline: Awaited<ReturnType<typeof measureSnapshotBaseline>>, machine: unknown): string {
  const rows = results.map((r) => `| ${r.engine} | ${ms(r.batch1Ms)} | ${ms(r.batch1000Ms)} | ${ms(r.reopenToFirstAnswerMs)} | ${r.crash.kills} | ${r.crash.reopenFailures.length} | ${r.crash.lostAcknowledged} | ${r.crash.halfBatches} |`);
  return [
    `# File store engines (Node), ${SIZE} memories × 384-d`,
    '',
    'Write latency per storeMany batch (median / p95 ms), the batch of 1 measured on the filled store; reopen = open + first recall (median / p95 ms, 5 runs); kill -9 during storeMany, then reopen with the same engine.',
    '',
    '| engine | batch of 1 | batch of 1000 | reopen → first answer | kills | reopen failures | acknowledged lost | half batches |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    `| baseline: memory + whole .mind.zip per batch (${BASELINE_SINGLES} single batches) | ${ms(baseline.batch1Ms)} | ${ms(baseline.batch1000Ms)} | – | – | – | – | – |`,
    '',
    ...results.flatMap((r) => r.crash.reopenFailures.slice(0, 3).map((f) => `- ${r.engine}: ${f}`)),
    '',
    `Config: better-sqlite3 with locking_mode EXCLUSIVE, journal_mode WAL, synchronous FULL; libsql with journal_mode WAL, synchronous FULL (normal locking: a closed libsql connection keeps its exclusive lock until GC); node-sqlite3-wasm with synchronous FULL (its VFS refuses WAL, so it stays on the rollback journal). Size ${SIZE}, ${SINGLES} single-memory batches, ${KILLS} kills per engine.`,
    '',
    '```json',
    JSON.stringify(machine, null, 2),
    '```',
    '',
  ].join('\n');
}

const dir = await mkdtemp(join(tmpdir(), 'hybridmind-file-bench-'));
try {
  const { docs, queries } = makeCorpus(SIZE + SINGLES, 384);
  const results: EngineResult[] = [];
  for (const engine of ENGINES) {
    log(`== ${engine}`);
    results.push(await measureEngine(engine, docs, dir, queries[0]!.vector));
  }
  log('== baseline: .mind.zip per batch');
  const baseline = await measureSnapshotBaseline(docs, dir);
  const machine = { ...(await machineInfo()), engines: await engineVersions() };
  const out = new URL('../results/', import.meta.url);
  await mkdir(out, { recursive: true });
  await writeFile(new URL('file-store.json', out), JSON.stringify({ size: SIZE, singles: SINGLES, kills: KILLS, results, baseline, machine }, null, 2));
  const md = report(results, baseline, machine);
  await writeFile(new URL('file-store.md', out), md);
  process.stdout.write(md);
} finally {
  await rm(dir, { recursive: true, force: true });
}
