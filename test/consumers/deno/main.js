import { HybridMemory } from 'hybridmind';

// Deno with the package from node_modules; vectors come from the caller here (any embedder works the same way).
const mem = await HybridMemory.open({ embedder: null });
await mem.storeMany([
  { id: 'adr-007', text: 'ADR-007: SQLite-WASM on OPFS is the source of truth', embedding: new Float32Array([0.9, 0.1, 0]) },
  { id: 'lunch', text: 'The team lunch moved to Thursday', embedding: new Float32Array([0, 0.2, 0.9]) },
]);
const { hits, legsRun } = await mem.recallReport('where does memory live?', { queryEmbedding: new Float32Array([1, 0, 0]) });
const bytes = await mem.exportSnapshot();
const copy = await HybridMemory.importSnapshot(bytes, { embedder: null });
console.log(JSON.stringify({ legsRun, ids: hits.map((h) => h.id), copied: (await copy.stats()).memories }));
await copy.close();
await mem.close();
