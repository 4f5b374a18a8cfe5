import { HybridMemory } from 'hybridmind/client';           // the engine stays in the worker
import MemoryWorker from 'hybridmind/worker?worker';

const mem = await HybridMemory.connect(new MemoryWorker(), { store: 'notes' });   // model from /models/ (hybridmind/vite serves it)
if ((await mem.stats()).memories === 0) {                   // OPFS keeps the store across reloads
  await mem.storeMany([
    { id: 'adr-007', text: 'ADR-007: SQLite-WASM on OPFS is the source of truth' },
    { id: 'lunch', text: 'The team lunch moved to Thursday' },
  ]);
}
await mem.ready();                                          // the worker embeds in the background
const { hits, legsRun } = await mem.recallReport('where is the database stored?');   // same API as HybridMemory, all async
const memories = (await mem.stats()).memories;
document.getElementById('out').textContent = JSON.stringify({ legsRun, ids: hits.map((h) => h.id), memories });
