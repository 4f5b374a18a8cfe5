// A Deno app in TypeScript, type-checked by `deno check` against the packed declarations (Deno's
// own libs, strict). The @ts-expect-error line is a call they must refuse.
import { HybridMemory, type Hit } from 'hybridmind';
import { openDurableMemory, type DurableObjectStorageLike } from 'hybridmind/edge';

export async function recallUnlabelled(kind?: string): Promise<Hit[]> {
  const mem = await HybridMemory.open({ embedder: null, dim: 4, vectorKernel: undefined });
  await mem.store({ text: 'ADR-007: SQLite-WASM on OPFS', kind, embedding: new Float32Array(4) });
  // @ts-expect-error k is a number
  await mem.recall('ADR', { k: '3' });
  const hits = await mem.recall('ADR', { filter: { kind: [null] } });
  await mem.close();
  return hits;
}

export async function durable(storage: DurableObjectStorageLike): Promise<number> {
  const mem = await openDurableMemory(storage, { embedder: null });
  return (await mem.stats()).memories;
}
