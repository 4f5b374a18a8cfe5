import type { EdgeRow, MemoryRow, Repository } from '../storage/repository.js';
import { readRows } from '../validation/database.js';
import { LITTLE_ENDIAN } from '../util/endian.js';

/** Everything a snapshot is made of, read from one database in one synchronous pass. */
export interface StoreContent {
  memories: MemoryRow[];
  edges: EdgeRow[];
  /** Raw blobs as SQLite holds them (platform-order float32), by ascending memory number. */
  vectors: Array<{ no: number; bytes: Uint8Array }>;
  dim: number | null;
  embedderId: string | null;
}

/**
 * No await may separate these reads from each other or from serialising the database: in one
 * turn of the event loop no write can slip in, so every part describes the same state.
 */
export function readContent(repo: Repository): StoreContent {
  return { ...readRows(repo), embedderId: repo.getMeta('embedder_id') };
}

/** float32 bytes between this platform's order and little-endian (the same swap both ways). */
export function platformToLittleEndian(bytes: Uint8Array): Uint8Array {
  if (LITTLE_ENDIAN) return bytes;
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i + 3 < bytes.length; i += 4) {
    out[i] = bytes[i + 3]!;
    out[i + 1] = bytes[i + 2]!;
    out[i + 2] = bytes[i + 1]!;
    out[i + 3] = bytes[i]!;
  }
  return out;
}

/** An aligned Float32Array over little-endian float32 bytes (copied: the source may be unaligned). */
export function floatsFromLittleEndian(bytes: Uint8Array): Float32Array {
  // `new Uint8Array(view)` always copies into a fresh, aligned buffer (`slice` on a Node Buffer does not copy).
  const copy = platformToLittleEndian(new Uint8Array(bytes));
  return new Float32Array(copy.buffer, copy.byteOffset, copy.byteLength / 4);
}
