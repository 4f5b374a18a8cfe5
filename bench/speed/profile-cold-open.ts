/**
 * Cold open alone, for profiling: `node --expose-gc --import tsx bench/speed/profile-cold-open.ts
 * [n] [build] [opens]` (add `--cpu-prof` before `--import` for a profile). Builds the speed
 * corpus's store of `n` memories once into the temp folder (again with `build`), then opens it
 * `opens` times as the speed benchmark's cold open does: SqliteWasmDriver.open({ bytes }),
 * HybridMemory.open({ storage: driver }) and one hybrid recall, each timed with the garbage
 * collector's share.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { HybridMemory, SqliteWasmDriver } from '../../src/index.js';
import { makeCorpus, makeEdges } from '../lib/corpus.js';

const n = Number(process.argv[2] ?? 10_000);
const file = join(tmpdir(), `hybridmind-cold-open-${n}.db`);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

if (!existsSync(file) || process.argv[3] === 'build') {
  const { docs, queries } = makeCorpus(n, 384);
  const mem = await HybridMemory.open({ embedder: null, dim: 384, ann: false });
  for (let i = 0; i < docs.length; i += 1000) await mem.storeMany(docs.slice(i, i + 1000).map((d) => ({ id: d.id, text: d.text, embedding: d.vector, createdAt: d.createdAt })));
  await mem.relateMany(makeEdges(docs).map(([from, to]) => ({ from, to, type: 'DEPENDS_ON' })));
  await writeFile(file, await mem.exportDatabase());
  await writeFile(`${file}.queries.json`, JSON.stringify(queries.slice(0, 10).map((q) => ({ text: q.text, vector: Array.from(q.vector) }))));
  await mem.close();
}

const queries = (JSON.parse(await readFile(`${file}.queries.json`, 'utf8')) as Array<{ text: string; vector: number[] }>).map((q) => ({ text: q.text, vector: Float32Array.from(q.vector) }));
const bytes = new Uint8Array(await readFile(file));
let gcMs = 0;
new PerformanceObserver((list) => list.getEntries().forEach((e) => (gcMs += e.duration))).observe({ entryTypes: ['gc'] });
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
for (let i = 0; i < Number(process.argv[4] ?? 5); i++) {
  const q = queries[i % queries.length]!;
  gc();
  await settle();
  gcMs = 0;
  const t0 = performance.now();
  const driver = await SqliteWasmDriver.open({ bytes });
  const t1 = performance.now();
  const mem = await HybridMemory.open({ storage: driver, embedder: null, ann: false });
  const t2 = performance.now();
  await mem.recall(q.text, { k: 10, queryEmbedding: q.vector, explain: false });
  const t3 = performance.now();
  await settle();
  console.log(`n=${n} cold open ${(t3 - t0).toFixed(0)} ms: driver ${(t1 - t0).toFixed(0)}, open ${(t2 - t1).toFixed(0)}, first hybrid recall ${(t3 - t2).toFixed(0)}; GC ${gcMs.toFixed(0)} ms`);
  await mem.close();
}
