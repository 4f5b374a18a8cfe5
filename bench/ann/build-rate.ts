/**
 * How fast HNSW builds as the graph grows, and what recall each efConstruction keeps, on the speed
 * benchmark's corpus (so recall matches the `hybridmind vector leg, HNSW` row of speed.md).
 * `npx tsx bench/ann/build-rate.ts [n] [efConstruction,...] [efSearch,...]`, e.g. `100000 100,50 64,96`.
 * Inserts go through `HnswVectorIndex.addMany` in the background build's batch size; the rate is
 * printed per tenth of the build, so the rate at the end extrapolates to larger stores.
 */
import { makeCorpus } from '../lib/corpus.js';
import { FlatVectorIndex } from '../../src/legs/vector/flat-index.js';
import { HnswVectorIndex } from '../../src/legs/vector/hnsw-index.js';
import { loadHnswlib } from '../../src/legs/vector/hnswlib-loader.js';
import { loadVectorKernel } from '../../src/legs/vector/kernel.js';

const [nArg, efcArg, efsArg] = process.argv.slice(2);
const n = Number(nArg ?? 100_000);
const efcs = (efcArg ?? '100').split(',').map(Number);
const efSearches = (efsArg ?? '64').split(',').map(Number);
const BATCH = 32;
const K = 10;

const lib = await loadHnswlib();
const kernel = await loadVectorKernel();
const { docs, queries } = makeCorpus(n, 384);
const flat = new FlatVectorIndex(384, kernel, { capacity: n });
docs.forEach((d, i) => flat.add(i, d.vector));
const truth = queries.map((q) => new Set(flat.search(q.vector, K).map((h) => h.no)));
flat.clear();

for (const efConstruction of efcs) {
  const hnsw = new HnswVectorIndex(lib, 384, { efConstruction }, n);
  const t0 = performance.now();
  let last = t0;
  const tenth = Math.ceil(n / 10);
  for (let i = 0; i < n; i += BATCH) {
    const nos: number[] = [];
    const vectors: Float32Array[] = [];
    for (let j = i; j < Math.min(n, i + BATCH); j++) {
      nos.push(j);
      vectors.push(docs[j]!.vector);
    }
    hnsw.addMany(nos, vectors);
    const done = Math.min(n, i + BATCH);
    if (Math.floor(done / tenth) !== Math.floor(i / tenth) || done === n) {
      const t = performance.now();
      console.log(`efC ${efConstruction}: ${done} inserted, ${((t - t0) / 1000).toFixed(1)} s, last slice ${(tenth / ((t - last) / 1000)).toFixed(0)} vectors/s`);
      last = t;
    }
  }
  const buildS = (performance.now() - t0) / 1000;
  for (const ef of efSearches) {
    hnsw.setEfSearch(ef);
    let found = 0;
    const times: number[] = [];
    queries.forEach((q, qi) => {
      const t = performance.now();
      const hits = hnsw.search(q.vector, K);
      times.push(performance.now() - t);
      found += hits.filter((h) => truth[qi]!.has(h.no)).length;
    });
    times.sort((a, b) => a - b);
    console.log(`n ${n} efC ${efConstruction} build ${buildS.toFixed(1)} s (${(n / buildS).toFixed(0)}/s) efSearch ${ef}: recall@10 ${(found / (queries.length * K)).toFixed(3)}, p50 ${times[times.length >> 1]!.toFixed(3)} ms`);
  }
  hnsw.dispose();
}
