/**
 * A child process for the kill -9 tests and the file-store benchmark: it writes to a file store
 * and prints one line per acknowledged step, so the parent that kills it at a random moment
 * knows exactly what was promised. Usage:
 *
 *   store   <db> <seed> <first> [engine]   storeMany batches of 1–40 memories forever: `ack <batch> <size>`
 *   export  <db> <zip> <seed> <first>      a batch, then saveSnapshotFile(zip), forever: `saved <batch> <size>`
 *   derive  <db> <seed> <first>            a batch with embeddings (`embeddingOf`), then exportDatabase()
 *                                          (which saves the derived files first), forever: `derived <batch> <size>`
 *   restore <db> <zipA> <zipB>             restoreSnapshot of A, then B, forever: `restored <A|B>`
 *
 * Memory ids are `b<batch>-<i>`, batches numbered from <first> (the parent keeps runs apart).
 */
import { HybridMemory } from '../../src/index.js';
import { saveSnapshotFile } from '../../src/snapshot/node-files.js';
import type { SqlDriver } from '../../src/storage/driver.js';
import { embeddingOf } from './kill.js';
import { rng } from './random.js';

const [mode, db, ...rest] = process.argv.slice(2);
const say = (line: string) => process.stdout.write(`${line}\n`);

async function openStore(engine: string | undefined): Promise<HybridMemory> {
  if (engine === undefined || engine === 'better-sqlite3') return HybridMemory.open({ storage: db!, embedder: null });
  const { openEngine } = (await import('../../bench/file-store/engines.js')) as { openEngine: (e: string, p: string) => Promise<SqlDriver> };
  return HybridMemory.open({ storage: await openEngine(engine, db!), embedder: null });
}

export function batchOf(batch: number, size: number): Array<{ id: string; text: string }> {
  return Array.from({ length: size }, (_, i) => ({ id: `b${batch}-${i}`, text: `batch ${batch} item ${i} ${'lorem ipsum dolor '.repeat(1 + (i % 5))}` }));
}

async function main(): Promise<void> {
  if (mode === 'store' || mode === 'export' || mode === 'derive') {
    const [zip, seed, first, engine] = mode === 'export' ? rest : [undefined, ...rest];
    const random = rng(Number(seed));
    const mem = await openStore(engine);
    let batch = Number(first);
    say('open');
    for (;;) {
      const size = 1 + Math.floor(random() * 40);
      const memories = batchOf(batch, size);
      await mem.storeMany(mode === 'derive' ? memories.map((m, i) => ({ ...m, embedding: embeddingOf(batch, i) })) : memories);
      if (zip) {
        await saveSnapshotFile(mem, zip);
        say(`saved ${batch} ${size}`);
      } else if (mode === 'derive') {
        await mem.exportDatabase();
        say(`derived ${batch} ${size}`);
        // A pause with the files current, so that some kills leave them so and the parent's opens
        // from them are checked too, not only rebuilds after a kill in the next write.
        await new Promise((resolve) => setTimeout(resolve, 15));
      } else {
        say(`ack ${batch} ${size}`);
      }
      batch++;
    }
  }
  if (mode === 'restore') {
    const { readFile } = await import('node:fs/promises');
    const snapshots = { A: await readFile(rest[0]!), B: await readFile(rest[1]!) };
    const mem = await openStore(undefined);
    say('open');
    for (let i = 0; ; i++) {
      const which = i % 2 === 0 ? 'A' : 'B';
      await mem.restoreSnapshot(snapshots[which]);
      say(`restored ${which}`);
    }
  }
  throw new Error(`crash-writer: unknown mode ${String(mode)}`);
}

await main();
