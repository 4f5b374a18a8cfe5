import { HybridMemory } from 'hybridmind/client';
import MemoryWorker from 'hybridmind/worker?worker';

const mem = await HybridMemory.connect(new MemoryWorker(), { store: 'extension' });   // model from the extension's /models/
if ((await mem.stats()).memories === 0) {
  await mem.storeMany([
    { id: 'ticket', text: 'Ticket OPS-1193 is about the carrier webhook secret rotation.' },
    { id: 'coffee', text: 'The user prefers decaf after 4pm.' },
  ]);
}
await mem.ready();
const { hits, legsRun } = await mem.recallReport('which issue covers rotating the integration credentials?');
const memories = (await mem.stats()).memories;
const model = await mem.modelStatus();                      // { state: 'ready' | 'failed' | …, error }
document.getElementById('out').textContent = JSON.stringify({ legsRun, ids: hits.map((h) => h.id), memories, model });
