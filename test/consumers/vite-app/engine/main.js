import { HybridMemory } from 'hybridmind';                  // the engine itself in the page: no worker, no model

const mem = await HybridMemory.open({ embedder: null });    // in-memory SQLite-WASM
await mem.storeMany([
  { id: 'adr-007', text: 'ADR-007: SQLite-WASM on OPFS is the source of truth' },
  { id: 'lunch', text: 'The team lunch moved to Thursday' },
]);
const { hits, legsRun } = await mem.recallReport('which ADR chose SQLite?');
const memories = (await mem.stats()).memories;
document.getElementById('out').textContent = JSON.stringify({ legsRun, ids: hits.map((h) => h.id), memories });
