// A web app's and an edge worker's use of the package, type-checked against the packed
// declarations with none of the optional peers installed, strictly (`exactOptionalPropertyTypes`
// too). Each @ts-expect-error is a call the declarations must refuse.
import sqlite3InitModule from '@sqlite.org/sqlite-wasm';
import { EDGE_TYPES, HybridMemory, HybridMindError, SqliteWasmDriver, type ErrorCode, type Hit, type MemoryInput, type MemoryPatch, type MemoryRecord } from 'hybridmind';
import { connect, type RemoteMemory } from 'hybridmind/client';
import { openDurableMemory, type DurableObjectStorageLike } from 'hybridmind/edge';

export async function tour(): Promise<string[]> {
  const mem = await HybridMemory.open({ embedder: null, dim: 4 });
  await mem.store({ id: 'adr-007', text: 'ADR-007: SQLite-WASM on OPFS', kind: 'decision', embedding: new Float32Array(4) });
  const record: MemoryRecord | null = await mem.get('adr-007');
  if (record) {
    // A record's fields store as they are, nulls included.
    const copy: MemoryInput = { id: 'copy', text: record.text, kind: record.kind, domain: record.domain, metadata: record.metadata, validFrom: record.validFrom, validTo: record.validTo };
    await mem.store(copy);
  }
  const patch: MemoryPatch = { kind: null, domain: undefined, metadata: null, validTo: null };
  await mem.update('adr-007', patch);
  // @ts-expect-error text cannot be cleared
  await mem.update('adr-007', { text: null });
  // @ts-expect-error an id is not a field update changes
  await mem.update('adr-007', { id: 'other' });
  // @ts-expect-error a kind is a string
  await mem.store({ text: 'x', kind: 7 });
  await mem.relate('copy', 'adr-007', EDGE_TYPES.SUPERSEDES, { weight: 2 });
  const hits: Hit[] = await mem.recall('ADR-007', { k: 5, mode: 'hybrid', filter: { kind: ['decision'] } });
  try {
    await mem.get('');
  } catch (error) {
    if (error instanceof HybridMindError) {
      const code: ErrorCode = error.code;
      return [code];
    }
  }
  await mem.close();
  return hits.map((h) => `${h.id} ${h.status} ${h.legs.lexical?.matched.join(',') ?? ''}`);
}

export async function ownModules(kernel: WebAssembly.Module): Promise<void> {
  const storage = await SqliteWasmDriver.open({ sqlite3: await sqlite3InitModule() });
  await (await HybridMemory.open({ storage, embedder: null, vectorKernel: kernel })).close();
  // @ts-expect-error a kernel is a module or its bytes, not a URL
  await HybridMemory.open({ embedder: null, vectorKernel: './kernel.wasm' });
  // @ts-expect-error the sqlite3 option is the initialised module, not its factory
  await SqliteWasmDriver.open({ sqlite3: sqlite3InitModule });
}

export async function page(worker: Worker): Promise<number> {
  const mem: RemoteMemory = await connect(worker, { store: 'notes', onEvent: (event) => event.type });
  await (await connect(new MessageChannel().port1)).close();
  // @ts-expect-error a worker, not its script's URL
  await connect('./worker.js');
  const id: string = await mem.store({ text: 'from the page' });
  // @ts-expect-error recall takes options, not a number
  await mem.recall('page', 5);
  return (await mem.stats()).memories + id.length;
}

export async function durable(storage: DurableObjectStorageLike): Promise<number> {
  const mem = await openDurableMemory(storage, { embedder: null });
  return (await mem.stats()).memories;
}
