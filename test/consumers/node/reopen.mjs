// A store large enough that its saved vector codes take several 1 MiB parts (its HNSW graph, saved
// without the vectors, takes one), exported and reopened from the installed package: what the
// reopen loaded (the dense leg from its saved codes, without reading the vectors, and the saved
// graph), and whether it answers as the store that saved it.
import { HybridMemory, SqliteWasmDriver } from 'hybridmind';

const DIM = 384;
let seed = 7;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) - 0.5;
const vectors = Array.from({ length: 3_000 }, () => Float32Array.from({ length: DIM }, random));
const waitFor = async (logs, text) => {
  while (!logs.some((m) => m.includes(text))) await new Promise((r) => setTimeout(r, 20));
};

const logs = [];
const first = await HybridMemory.open({ embedder: null, ann: { threshold: 1_000 }, logger: (_level, message) => logs.push(message) });
await first.storeMany(vectors.map((embedding, i) => ({ id: `m${i}`, text: `note ${i} on topic ${i % 97}`, embedding })));
await waitFor(logs, 'HNSW built');
const bytes = await first.exportDatabase();

const driver = await SqliteWasmDriver.open({ bytes });
const parts = (table) => driver.all(`SELECT name FROM ${table}`).map((r) => r.name).sort();
const saved = { ann: parts('ann_index'), derived: parts('derived_index') };
const reopenLogs = [];
const again = await HybridMemory.open({ storage: driver, embedder: null, ann: { threshold: 1_000 }, logger: (_level, message) => reopenLogs.push(message) });
await waitFor(reopenLogs, 'HNSW restored');
let same = true;
for (const i of [5, 1_234, 2_999]) {
  const options = { mode: 'hybrid', k: 10, queryEmbedding: vectors[i], explain: false };
  const answer = async (mem) => JSON.stringify((await mem.recall(`topic ${i % 97}`, options)).map((h) => [h.id, h.score]));
  same &&= (await answer(again)) === (await answer(first));
}
console.log(JSON.stringify({ saved, reopen: reopenLogs, same }));
await again.close();
await first.close();
