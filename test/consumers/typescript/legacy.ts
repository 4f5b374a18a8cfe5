// A CommonJS TypeScript app under the resolution `module: commonjs` implies (node10), which reads
// no `exports` map: every entry's declarations are found through `typesVersions` instead.
import { HybridMemory, type MemoryInput } from 'hybridmind';
import { connect } from 'hybridmind/client';
import { openDurableMemory } from 'hybridmind/edge';
import { SqliteFileDriver } from 'hybridmind/node';
import { PostgresMemory } from 'hybridmind/postgres';

export async function legacy(file: string): Promise<number> {
  const mem = await HybridMemory.open({ storage: file, embedder: null });
  const input: MemoryInput = { text: 'from a CommonJS app', kind: 'note' };
  await mem.store(input);
  // @ts-expect-error a memory's text is a string
  await mem.store({ text: 42 });
  const entries: unknown[] = [connect, openDurableMemory, SqliteFileDriver, PostgresMemory];
  return (await mem.stats()).memories + entries.length;
}
