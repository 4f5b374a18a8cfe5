import { HybridMemory } from 'hybridmind';

const mem = await HybridMemory.open();                      // all-MiniLM-L6-v2 from `npx hybridmind model fetch`; { embedder: null } = no dense leg
await mem.store({ id: 'adr-003', text: 'ADR-003: memory lives in IndexedDB', createdAt: '2025-10-01' });
await mem.store({ id: 'adr-007', text: 'ADR-007: SQLite-WASM on OPFS is the source of truth' });
await mem.relate('adr-007', 'adr-003', 'SUPERSEDES');       // closes ADR-003's validity
await mem.ready();                                          // vectors are computed in the background; wait for them

const { hits, legsRun } = await mem.recallReport('where does agent memory live?', { k: 5 });
console.log(JSON.stringify({ legsRun, hits: hits.map((h) => ({ id: h.id, status: h.status, legs: Object.keys(h.legs) })) }));
// {"legsRun":["vector","lexical","graph","time"],"hits":[{"id":"adr-007","status":"current","legs":["vector","lexical","graph","time"]},
//                                                         {"id":"adr-003","status":"historical",…}]}

const then = await mem.recall('where does agent memory live?', { asOf: '2025-11-01' });   // what was true then
console.log(JSON.stringify({ asOf: then.map((h) => ({ id: h.id, status: h.status })) }));
await mem.close();
