// A durable file store from the installed package (better-sqlite3 installed beside it, as the README
// asks): written, closed and reopened through `hybridmind/node`, with the page size a new file gets,
// its derived values saved in files beside it and loaded from them by the reopen.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HybridMemory } from 'hybridmind';
import { SqliteFileDriver } from 'hybridmind/node';

const dir = mkdtempSync(join(tmpdir(), 'consumer-file-'));
const path = join(dir, 'data', 'memory.db');
const first = await HybridMemory.open({ storage: path, embedder: null });
await first.storeMany([
  { id: 'adr-007', text: 'ADR-007: retries use exponential backoff', metadata: { team: 'core' } },
  { id: 'adr-008', text: 'ADR-008: retries are capped at five' },
  { id: 'note-1', text: 'the billing export runs nightly' },
]);
await first.relate('adr-008', 'adr-007', 'DEPENDS_ON');
await first.close();

const derivedFiles = readdirSync(`${path}-derived`).sort();
const reopen = [];
const driver = await SqliteFileDriver.open(path);
const again = await HybridMemory.open({ storage: driver, embedder: null, logger: (_level, message) => reopen.push(message) });
const pageSize = Number(driver.all('PRAGMA page_size')[0].page_size);
const hits = (await again.recall('ADR-007 retries', { k: 3, mode: 'lexical' })).map((h) => h.id);
const own = await again.get('adr-008');
own.metadata.changed = true;
const report = {
  pageSize,
  derivedFiles,
  reopen,
  memories: (await again.stats()).memories,
  edges: (await again.edges('adr-008')).map((e) => [e.from, e.to, e.type]),
  hits,
  metadata: [(await again.get('adr-007')).metadata, (await again.get('adr-008')).metadata, (await again.get('note-1')).metadata],
};
await again.close();
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(report));
