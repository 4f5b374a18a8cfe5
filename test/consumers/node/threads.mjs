// A store past the size from which the exact scan splits its int8 pass with a helper thread, from
// the installed package: the helper starts (the kernel's threads variant and the helper's program
// found in the install) and takes part, the answers are those of a store that keeps every pass on
// one thread, and the process ends on its own once both stores are closed.
import { HybridMemory } from 'hybridmind';

const DIM = 32;
const N = 33_000;
let seed = 11;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) - 0.5;
const vector = () => Float32Array.from({ length: DIM }, random);

const logs = [];
const split = await HybridMemory.open({ embedder: null, dim: DIM, ann: false, logger: (level, message) => logs.push(`${level}: ${message}`) });
const single = await HybridMemory.open({ embedder: null, dim: DIM, ann: false, vectorThreads: false });
for (let from = 0; from < N; from += 1_000) {
  const batch = Array.from({ length: 1_000 }, (_, i) => ({ id: `m${from + i}`, text: `note ${from + i}`, embedding: vector() }));
  await split.storeMany(batch);
  await single.storeMany(batch);
}
const ask = async (mem, queryEmbedding) => JSON.stringify((await mem.recall('note', { mode: 'vector', k: 10, queryEmbedding, explain: false })).map((h) => [h.id, h.score]));
const joined = () => logs.some((m) => m.includes('a helper thread shares'));
for (let tries = 0; tries < 500 && !joined(); tries++) {
  await ask(split, vector());
  await new Promise((resolve) => setTimeout(resolve, 20));
}
let same = true;
for (let q = 0; q < 20; q++) {
  const query = vector();
  same &&= (await ask(split, query)) === (await ask(single, query));
}
await split.close();
await single.close();
console.log(JSON.stringify({ helper: logs.filter((m) => m.includes('helper thread') || m.includes('one thread')), same }));
