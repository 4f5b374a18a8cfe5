import type { RemoteMemory } from '../src/client/index.js';
import type { MemoryInput } from '../src/types.js';
import { yieldToUi } from './dom.js';

/**
 * Memories per storeMany call: one transaction each. Each call waits its turn behind the worker's
 * embedding batches, so fewer, larger batches import faster; four steps still show progress.
 */
export const IMPORT_BATCH = 250;

export interface ImportProgress {
  done: number;
  total: number;
  stored: number;
  skipped: number;
}

/**
 * Stores `memories` in batches, reporting after each and yielding to the page in between, so a
 * large import shows progress and the page stays usable. A batch that hits an id already in the
 * store (the same note imported again) is retried one memory at a time, skipping the duplicates.
 */
export async function importMemories(mem: RemoteMemory, memories: MemoryInput[], onProgress: (p: ImportProgress) => void): Promise<ImportProgress> {
  const p: ImportProgress = { done: 0, total: memories.length, stored: 0, skipped: 0 };
  onProgress({ ...p });
  for (let i = 0; i < memories.length; i += IMPORT_BATCH) {
    const batch = memories.slice(i, i + IMPORT_BATCH);
    try {
      p.stored += (await mem.storeMany(batch)).length;
    } catch (error) {
      if ((error as { code?: string }).code !== 'CONFLICT') throw error;
      for (const m of batch) {
        try {
          await mem.store(m);
          p.stored++;
        } catch (e) {
          if ((e as { code?: string }).code !== 'CONFLICT') throw e;
          p.skipped++;
        }
      }
    }
    p.done += batch.length;
    onProgress({ ...p });
    await yieldToUi();
  }
  return p;
}
