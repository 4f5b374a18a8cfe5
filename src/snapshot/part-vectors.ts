/**
 * vectors.ids.json + vectors.f32: the dense vectors as one raw little-endian float32 matrix
 * (row i belongs to the memory id at index i of the JSON id list), so a reader in any language
 * can map them without SQLite. store.db holds the same vectors; import checks they agree.
 */
import type { SnapshotManifest } from './format.js';
import { corrupt } from './format.js';
import type { StoreContent } from './content.js';
import { floatsFromLittleEndian, platformToLittleEndian } from './content.js';
import { decodeJson } from './jsonl.js';

/** Stored vectors are L2-normalised; more drift than float32 rounding means they were altered. */
const NORM_TOLERANCE = 1e-3;

export interface VectorsPart {
  ids: string[];
  floats: Float32Array;
}

export function encodeVectors(content: StoreContent): { ids: Uint8Array; floats: Uint8Array } {
  const idOf = new Map(content.memories.map((m) => [Number(m.no), m.id]));
  const ids = content.vectors.map((v) => idOf.get(v.no)!);
  const floats = new Uint8Array(content.vectors.reduce((n, v) => n + v.bytes.byteLength, 0));
  let at = 0;
  for (const v of content.vectors) {
    floats.set(platformToLittleEndian(v.bytes), at);
    at += v.bytes.byteLength;
  }
  return { ids: new TextEncoder().encode(JSON.stringify(ids)), floats };
}

/** Checks the two vector parts on their own: shape, count, finiteness, normalisation. */
export function decodeVectors(method: string, idBytes: Uint8Array, floatBytes: Uint8Array, manifest: SnapshotManifest): VectorsPart {
  const ids = decodeJson(method, 'vectors.ids.json', idBytes);
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) throw corrupt(method, 'vectors.ids.json must be a JSON array of memory ids');
  const count = manifest.counts.vectors;
  if (ids.length !== count) throw corrupt(method, `vectors.ids.json lists ${ids.length} ids, the manifest counts ${count} vectors`);
  if (new Set(ids).size !== ids.length) throw corrupt(method, 'vectors.ids.json lists a memory twice');
  const dim = manifest.dim ?? 0;
  const expected = count * dim * 4;
  if (floatBytes.byteLength !== expected) {
    throw corrupt(method, `vectors.f32 is ${floatBytes.byteLength} bytes; ${count} vectors × dim ${manifest.dim} × 4 bytes make ${expected}`);
  }
  const floats = floatsFromLittleEndian(floatBytes);
  for (let row = 0; row < count; row++) {
    let norm = 0;
    for (let i = row * dim; i < (row + 1) * dim; i++) {
      const x = floats[i]!;
      if (!Number.isFinite(x)) throw corrupt(method, `vectors.f32 holds ${x} in the vector of ${JSON.stringify(ids[row])} (component ${i - row * dim})`);
      norm += x * x;
    }
    if (Math.abs(Math.sqrt(norm) - 1) > NORM_TOLERANCE) throw corrupt(method, `the vector of ${JSON.stringify(ids[row])} in vectors.f32 is not L2-normalised (norm ${Math.sqrt(norm)})`);
  }
  return { ids: ids as string[], floats };
}

/** The parts must hold exactly store.db's vectors, bit for bit. */
export function checkVectors(method: string, part: VectorsPart, content: StoreContent, noOf: Map<string, number>): void {
  const dim = content.dim ?? 0;
  const blobOf = new Map(content.vectors.map((v) => [v.no, v.bytes]));
  const floatBytes = new Uint8Array(part.floats.buffer, part.floats.byteOffset, part.floats.byteLength);
  part.ids.forEach((id, row) => {
    const no = noOf.get(id);
    if (no === undefined) throw corrupt(method, `vectors.ids.json names ${JSON.stringify(id)}, which store.db does not hold`);
    const blob = blobOf.get(no);
    if (!blob) throw corrupt(method, `vectors.f32 has a vector for ${JSON.stringify(id)}, store.db has none`);
    // Both sides are in platform order here: the floats were decoded, the blob is as SQLite holds it.
    const mine = floatBytes.subarray(row * dim * 4, (row + 1) * dim * 4);
    if (mine.length !== blob.length || mine.some((b, i) => b !== blob[i])) throw corrupt(method, `the vector of ${JSON.stringify(id)} differs between vectors.f32 and store.db`);
  });
}
