/**
 * The entity index's saved bytes. Version 2: MAGIC and one section: u32 extractor version, key
 * count, memory count, entity-id count, key bytes and bytes per memory number (4, or 8 where one is
 * not a u32), then the memory numbers, u32 entity counts per memory, u32 entity ids, and the keys'
 * UTF-8 joined by NUL (no key holds one, see `entityKeys`), all little-endian. Version 3: a base
 * section as version 2's, then the changes since it in two more sections (keys added after the
 * base's and the memories added since; the base's memories removed since), so a save after a few
 * writes leaves the base's bytes as they were and SQLite rewrites only the pages after it. Both
 * end in zeros up to `capacityOf` their length.
 * Version 1 was one JSON text (`{ format, version, extractor, keys, of }`, `of` the entries
 * `[no, count, ids…]` back to back): parsing its numbers was ~10 of ~25 ms of loading a 100k
 * store's index. All are read; nothing here is trusted: sizes are checked against the bytes and
 * `LoadedEntities` and `EntityIndex.load` check what the numbers mean.
 */
import { capacityOf } from '../../util/capacity.js';
import { readLE, writeLE } from '../../util/endian.js';
import type { EntityColumns } from './loaded-entities.js';

const FORMAT = 'hybridmind.entities';
/** A leading NUL: no JSON text (version 1) starts with one. */
const MAGIC = Uint8Array.of(0x00, 0x68, 0x6d, 0x65, 0x6e, 0x74, 0x32, 0x0a);
const MAGIC_CHANGES = Uint8Array.of(0x00, 0x68, 0x6d, 0x65, 0x6e, 0x74, 0x33, 0x0a);
/** A section's header: six u32. */
const HEAD = 6 * 4;

/** What a save holds: the entity keys in id order and each memory's entity ids, in the order they were last added. */
export interface SavedEntities extends EntityColumns {
  keys: string[];
}

/** What changed since a save's base (version 3): keys added after its own, memories added since, and its memories removed since. */
export interface EntityChanges extends SavedEntities {
  removed: Float64Array;
}

/** `saved` in version 2, or with `changes` after it in version 3: the base's bytes stay as they were. */
export function encodeEntities(extractor: number, saved: SavedEntities, changes?: EntityChanges): Uint8Array {
  const sections = [saved, ...(changes ? [changes, { keys: [], nos: changes.removed, counts: new Uint32Array(changes.removed.length), ids: new Uint32Array(0) }] : [])].map((section) => encodeSection(extractor, section));
  // Zeros after, up to the room `capacityOf` leaves: a save a few changes later has the same length,
  // so SQLite overwrites the value in place and writes only the pages that differ (a value whose
  // length changed was written whole: ~1 MB at 100k memories).
  const out = new Uint8Array(capacityOf(MAGIC.length + sections.reduce((sum, section) => sum + section.length, 0)));
  out.set(changes ? MAGIC_CHANGES : MAGIC, 0);
  let at = MAGIC.length;
  for (const section of sections) {
    out.set(section, at);
    at += section.length;
  }
  return out;
}

/** One section: u32 extractor version, key count, memory count, entity-id count, key bytes, bytes per memory number, then the arrays and keys. */
function encodeSection(extractor: number, { keys, nos, counts, ids }: SavedEntities): Uint8Array {
  const keyBytes = new TextEncoder().encode(keys.join('\0'));
  // Four bytes where every number is a whole one that fits them: written as it is, a crafted one stays what it was.
  const width = nos.every((no) => no >>> 0 === no) ? 4 : 8;
  const out = new Uint8Array(HEAD + width * nos.length + 4 * (counts.length + ids.length) + keyBytes.length);
  const view = new DataView(out.buffer);
  [extractor, keys.length, nos.length, ids.length, keyBytes.length, width].forEach((n, i) => view.setUint32(4 * i, n, true));
  let at = HEAD;
  writeLE(out, at, width === 8 ? nos : Uint32Array.from(nos));
  writeLE(out, (at += width * nos.length), counts);
  writeLE(out, (at += 4 * counts.length), ids);
  out.set(keyBytes, at + 4 * ids.length);
  return out;
}

/** The save in `bytes` (any version) of an index made by extractor `extractor`, and its changes (version 3); throws on anything else. */
export function decodeEntities(bytes: Uint8Array, extractor: number): { saved: SavedEntities; changes: EntityChanges | null } {
  const magic = [MAGIC, MAGIC_CHANGES].find((m) => bytes.length >= m.length && m.every((b, i) => bytes[i] === b));
  if (!magic) return { saved: decodeJson(bytes, extractor), changes: null };
  const base = decodeSection(bytes, MAGIC.length, extractor);
  if (magic === MAGIC) return { saved: finished(bytes, base), changes: null };
  const added = decodeSection(bytes, base.end, extractor);
  const removed = decodeSection(bytes, added.end, extractor);
  if (removed.keys.length !== 0 || removed.ids.length !== 0 || removed.counts.some((n) => n !== 0)) throw new Error('removed memories with entities');
  finished(bytes, removed);
  return { saved: base, changes: { keys: added.keys, nos: added.nos, counts: added.counts, ids: added.ids, removed: removed.nos } };
}

/** `section` when only the zeros of the room `encodeEntities` leaves follow it. */
function finished<T extends { end: number }>(bytes: Uint8Array, section: T): T {
  if (bytes.length !== capacityOf(section.end) || bytes.subarray(section.end).some((b) => b !== 0)) throw new Error(`${bytes.length - section.end} bytes past the end of the save that are not its room`);
  return section;
}

function decodeSection(bytes: Uint8Array, from: number, extractor: number): SavedEntities & { end: number } {
  if (bytes.length < from + HEAD) throw new Error('a section header is cut off');
  const view = new DataView(bytes.buffer, bytes.byteOffset + from, HEAD);
  const [savedExtractor, keyCount, count, idCount, keyLength, width] = [0, 1, 2, 3, 4, 5].map((i) => view.getUint32(4 * i, true)) as [number, number, number, number, number, number];
  if (savedExtractor !== extractor) throw new Error(`entities of extractor v${savedExtractor}, not v${extractor}`);
  if (width !== 4 && width !== 8) throw new Error(`memory numbers of ${width} bytes`);
  const end = from + HEAD + (width + 4) * count + 4 * idCount + keyLength;
  if (end > bytes.length) throw new Error(`a section runs ${end - bytes.length} bytes past the ${bytes.length} saved`);
  const nos = new Float64Array(count);
  const counts = new Uint32Array(count);
  const ids = new Uint32Array(idCount);
  let at = from + HEAD;
  if (width === 8) readLE(bytes, at, nos);
  else {
    const narrow = new Uint32Array(count);
    readLE(bytes, at, narrow);
    nos.set(narrow);
  }
  readLE(bytes, (at += width * count), counts);
  readLE(bytes, (at += 4 * count), ids);
  at += 4 * idCount;
  const joined = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(at, at + keyLength));
  const keys = keyCount === 0 && joined === '' ? [] : joined.split('\0');
  if (keys.length !== keyCount) throw new Error(`${keys.length} keys where the header says ${keyCount}`);
  return { keys, nos, counts, ids, end };
}

function decodeJson(bytes: Uint8Array, extractor: number): SavedEntities {
  const saved = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as { format?: unknown; version?: unknown; extractor?: unknown; keys?: unknown; of?: unknown };
  if (saved.format !== FORMAT || saved.version !== 1 || saved.extractor !== extractor || !Array.isArray(saved.keys) || !Array.isArray(saved.of)) {
    throw new Error(`not a ${FORMAT} snapshot of extractor v${extractor}`);
  }
  if (!saved.keys.every((key) => typeof key === 'string')) throw new Error('entity keys must be strings');
  return { keys: saved.keys as string[], ...entriesAsColumns(saved.of) };
}

/** Version 1's entries, `[no, count, ids…]` back to back in one array of JSON values, as columns. */
function entriesAsColumns(of: readonly unknown[]): EntityColumns {
  const nos: number[] = [];
  const counts: number[] = [];
  const ids: number[] = [];
  for (let i = 0; i < of.length; ) {
    const no = of[i];
    const n = of[i + 1];
    // `x >>> 0 === x` holds for whole numbers from 0 below 2^32 only (never for a string or NaN).
    if (!Number.isSafeInteger(no) || (no as number) < 0 || (n as number) >>> 0 !== n || (n as number) > of.length - i - 2) throw new Error(`malformed entry at ${i}`);
    const end = i + 2 + (n as number);
    for (let j = i + 2; j < end; j++) {
      const id = of[j];
      if ((id as number) >>> 0 !== id) throw new Error(`entity id ${String(id)} out of range`);
      ids.push(id as number);
    }
    nos.push(no as number);
    counts.push(n as number);
    i = end;
  }
  return { nos: Float64Array.from(nos), counts: Uint32Array.from(counts), ids: Uint32Array.from(ids) };
}
