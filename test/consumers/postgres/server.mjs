// A server keeps its agents' memory in PostgreSQL with pgvector through `hybridmind/postgres`,
// syncs a device's embedded store with it, and moves it out as a .mind.zip. The connection comes as
// JSON in argv (a unix socket folder and port); the report is the last line of stdout.
import { HybridMemory } from 'hybridmind';
import { PostgresMemory } from 'hybridmind/postgres';

const connection = JSON.parse(process.argv[2]);
const v = (...xs) => new Float32Array(xs);

const server = await PostgresMemory.open({ connection, schema: 'consumer', embedder: null });
await server.storeMany([
  { id: 'adr-003', text: 'ADR-003: agent memory lives in IndexedDB', kind: 'decision', createdAt: '2025-10-01', embedding: v(1, 0, 0, 0) },
  { id: 'adr-007', text: 'ADR-007: agent memory lives in SQLite-WASM on OPFS', kind: 'decision', createdAt: '2025-11-01', embedding: v(0.9, 0.1, 0, 0) },
  { id: 'sync', text: 'The sync service replicates the storage layer', createdAt: '2025-11-02', embedding: v(0, 0, 1, 0) },
]);
await server.relate('adr-007', 'adr-003', 'SUPERSEDES');
await server.relate('sync', 'adr-007', 'DEPENDS_ON');
const hits = await server.recall('where does agent memory live?', { queryEmbedding: v(1, 0, 0, 0), k: 3 });
const dependsOn = await server.recall('what does the sync service depend on?', { queryEmbedding: v(0, 0, 1, 0), k: 3 });

const device = await HybridMemory.open({ embedder: null });
const first = await server.syncWith(device, null);
await device.store({ id: 'offline', text: 'Written on the device while offline', embedding: v(0, 1, 0, 0) });
const second = await server.syncWith(device, first.cursor);

const moved = await HybridMemory.importSnapshot(await server.exportSnapshot());
const report = {
  hits: hits.map((h) => [h.id, h.status]),
  dependsOn: dependsOn[0]?.id,
  pulled: first.pulled,
  pushed: second.pushed,
  onServer: (await server.get('offline'))?.text ?? null,
  device: (await device.recall('ADR-007', { mode: 'lexical' })).map((h) => [h.id, h.status]),
  moved: (await moved.stats()).memories,
  movedEdges: (await moved.edges('adr-007')).map((e) => `${e.from} ${e.type} ${e.to}`).sort(),
};
await Promise.all([server.close(), device.close(), moved.close()]);
console.log(JSON.stringify(report));
