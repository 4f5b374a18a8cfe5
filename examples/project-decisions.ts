/**
 * A coding agent's memory of one project: decisions (one ADR superseded by a later one), an order
 * number, and a chain of DEPENDS_ON edges. Each query prints the fused hits with the rank every
 * leg gave them, so you can see why a hit is there and whether it is still true.
 *
 *   npm run example
 */
import { HybridMemory, type Hit } from '../src/index.js';

const day = 86_400_000;
const now = Date.parse('2026-11-30T12:00:00Z');
const ago = (days: number) => now - days * day;

// No embedder given: all-MiniLM-L6-v2 from the folder `npm run model:fetch` filled.
const mem = await HybridMemory.open({ now: () => now });

await mem.storeMany([
  { id: 'adr-003', kind: 'decision', createdAt: ago(420), text: 'ADR-003: store agent memory in IndexedDB through Dexie; simple and available everywhere.' },
  { id: 'adr-007', kind: 'decision', createdAt: ago(60), text: 'ADR-007: SQLite-WASM on OPFS is the source of truth for agent memory; IndexedDB was too slow for bulk writes.' },
  { id: 'order-4821', kind: 'order', createdAt: ago(12), text: 'Order #4821: 40 GPU hours for the embedding backfill, approved by finance.' },
  { id: 'order-4812', kind: 'order', createdAt: ago(15), text: 'Order #4812: a second monitor for the design team.' },
  { id: 'search', kind: 'component', createdAt: ago(50), text: 'The hybrid search endpoint answers the agent within 50 ms.' },
  { id: 'hnsw', kind: 'component', createdAt: ago(45), text: 'The HNSW index is rebuilt in a background worker after bulk imports.' },
  { id: 'backfill', kind: 'task', createdAt: ago(12), text: 'Embedding backfill job: re-encode two million chunks with MiniLM.' },
  { id: 'tkt-1234', kind: 'ticket', createdAt: ago(3), text: 'TKT-1234: tail latency spikes every night at 02:00.' },
]);
await mem.relate('adr-007', 'adr-003', 'SUPERSEDES');
await mem.relate('search', 'hnsw', 'DEPENDS_ON');
await mem.relate('hnsw', 'backfill', 'DEPENDS_ON');
await mem.relate('backfill', 'order-4821', 'DEPENDS_ON');
await mem.relate('tkt-1234', 'search', 'REFERENCES');
await mem.ready();

function show(query: string, hits: Hit[]): void {
  console.log(`\n? ${query}`);
  for (const [i, h] of hits.entries()) {
    const legs = Object.entries(h.legs)
      .map(([leg, e]) => {
        const extra = 'distance' in e ? ` d=${e.distance}${e.via.length ? ` via ${e.via.join('→')}` : ''}` : 'matched' in e ? ` [${e.matched.join(' ')}]` : '';
        return `${leg} #${e.rank}${extra}`;
      })
      .join(', ');
    console.log(`  ${i + 1}. ${h.id.padEnd(11)} ${h.status.padEnd(10)} ${h.score.toFixed(4)}  ${h.text.slice(0, 70)}`);
    console.log(`     ${legs}`);
  }
}

show('Which storage did we decide on for agent memory?', await mem.recall('Which storage did we decide on for agent memory?', { k: 4 }));
show('Order #4821', await mem.recall('Order #4821', { k: 2 }));
show('What could make the search endpoint slow at night?', await mem.recall('What could make the search endpoint slow at night?', { k: 5, depth: 3 }));
show('Storage decision as of a year ago', await mem.recall('Which storage did we decide on for agent memory?', { k: 2, asOf: ago(365) }));

const path = await mem.path('tkt-1234', 'order-4821');
console.log(`\npath tkt-1234 → order-4821: ${path?.join(' → ') ?? 'none'}`);
const stats = await mem.stats();
console.log(`\n${stats.memories} memories, ${stats.edges} edges, ${stats.current} current, dense leg: ${stats.dim ? `${stats.dim}-d, ${stats.embedderId}` : 'off (no embedder)'}`);
await mem.close();
