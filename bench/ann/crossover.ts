/**
 * Where HNSW starts to beat the exact WASM-SIMD scan, and what recall it keeps.
 * `npx tsx bench/ann/crossover.ts [sizes] [--real]`: per size, build time, flat and HNSW query
 * latency (median of 200 queries), recall@10 vs exact at several efSearch values.
 * `--real` mixes in all-MiniLM-L6-v2 vectors of generated sentences (needs `npm run model:fetch`).
 */
import { FlatVectorIndex } from '../../src/legs/vector/flat-index.js';
import { HnswVectorIndex } from '../../src/legs/vector/hnsw-index.js';
import { loadHnswlib } from '../../src/legs/vector/hnswlib-loader.js';
import { loadVectorKernel } from '../../src/legs/vector/kernel.js';
import { clusteredVectors } from '../../test/support/clustered-vectors.js';
import { realModelVectors } from './real-vectors.js';

const args = process.argv.slice(2);
const sizes = (args.find((a) => /^\d/.test(a)) ?? '1000,2000,5000,10000,20000,40000').split(',').map(Number);
const real = args.includes('--real');
const lib = await loadHnswlib();
const kernel = await loadVectorKernel();
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const pool = real ? await realModelVectors(Math.max(...sizes) + 200) : clusteredVectors(Math.max(...sizes) + 200, { seed: 5 });
const queries = pool.slice(pool.length - 200);
console.log(`vectors: ${real ? 'all-MiniLM-L6-v2 (generated sentences)' : 'clustered synthetic'}, 384-d, kernel ${kernel ? 'wasm-simd' : 'js'}`);
console.log('size\tbuild s\tflat ms\thnsw ms (ef 32/64/128/200)\trecall@10 (ef 32/64/128/200)');
for (const n of sizes) {
  const data = pool.slice(0, n);
  const flat = new FlatVectorIndex(384, kernel, { capacity: n });
  data.forEach((v, i) => flat.add(i, v));
  const truth = queries.map((q) => new Set(flat.search(q, 10).map((h) => h.no)));
  const flatMs = median(queries.map((q) => { const t = performance.now(); flat.search(q, 10); return performance.now() - t; }));
  const hnsw = new HnswVectorIndex(lib, 384, {}, n);
  let t = performance.now();
  for (let i = 0; i < n; i += 256) hnsw.addMany(data.slice(i, i + 256).map((_, j) => i + j), data.slice(i, i + 256));
  const buildS = (performance.now() - t) / 1000;
  const lat: string[] = [];
  const rec: string[] = [];
  for (const ef of [32, 64, 128, 200]) {
    hnsw.setEfSearch(ef);
    let found = 0;
    const times = queries.map((q, qi) => {
      t = performance.now();
      const hits = hnsw.search(q, 10);
      const ms = performance.now() - t;
      found += hits.filter((h) => truth[qi]!.has(h.no)).length;
      return ms;
    });
    lat.push(median(times).toFixed(2));
    rec.push((found / (queries.length * 10)).toFixed(3));
  }
  t = performance.now();
  const bytes = hnsw.save();
  const saveMs = performance.now() - t;
  t = performance.now();
  HnswVectorIndex.load(lib, 384, bytes, hnsw.nos(), hnsw.deletedNos()).dispose();
  const loadMs = performance.now() - t;
  console.log(`${n}\t${buildS.toFixed(1)}\t${flatMs.toFixed(2)}\t${lat.join('/')}\t${rec.join('/')}\tbytes ${(bytes.length / 1e6).toFixed(1)} MB save ${saveMs.toFixed(0)} ms load ${loadMs.toFixed(0)} ms`);
  hnsw.dispose();
}
