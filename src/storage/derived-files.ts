/**
 * Derived values in files beside the database, one file per name: what a browser worker's store
 * uses on OPFS, where one file read lands the 41 MB of a 100k store's vector codes in ~16 ms and
 * SQLite-WASM's pager took ~50 ms to hand the same bytes over from `derived_index`, and what the
 * Node file store uses on disk (`node-derived-files.ts`). The database binds them to itself
 * (`derived-lineage.ts`).
 *
 * Layout of a file: "HMDF", format version, the stamp's UTF-8 length and a zero word, as
 * little-endian u32; the value's length as an f64; the stamp; the value from byte {@link DATA}.
 * A stamp length of 0 means no value. A write first marks the file empty and flushes, then writes
 * the chunks of the value that differ from what the file holds and flushes, and only then writes
 * the stamp: a write cut short leaves no value, never a stamp over bytes it was not written with.
 */
import { HybridMindError } from '../errors.js';
import type { PartedBytes } from '../util/parted-bytes.js';
import type { DerivedStore } from './driver.js';

/** The synchronous file operations used here: those of OPFS's `FileSystemSyncAccessHandle`. */
export interface SyncFile {
  read(into: Uint8Array, options: { at: number }): number;
  write(bytes: Uint8Array, options: { at: number }): number;
  truncate(size: number): void;
  getSize(): number;
  flush(): void;
  close(): void;
}

const MAGIC = [0x48, 0x4d, 0x44, 0x46] as const;
const VERSION = 1;
const FIXED = 24;
/** Where a value starts; the header and its stamp fit before it. */
export const DATA = 256;
const MAX_STAMP = DATA - FIXED;
/** Bytes per read of a value: each piece is handed on before the next is read into the same buffer. */
const PIECE = 1 << 20;
/** Bytes a write compares with what the file holds, and rewrites only when they differ. */
const CHUNK = 1 << 16;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A derived store over one open file per name in `files`. A name outside them is refused, or,
 * given `openMore`, holds no value until its first write opens (creates) its file, kept in
 * `files` from then on. Every read and write is synchronous, as the index saves and loads that
 * use it are.
 */
export function fileDerivedStore(files: Map<string, SyncFile>, openMore?: (name: string, method: string) => SyncFile): DerivedStore {
  function fileOf(method: string, name: string, create: true): SyncFile;
  function fileOf(method: string, name: string, create: false): SyncFile | null;
  function fileOf(method: string, name: string, create: boolean): SyncFile | null {
    let file = files.get(name);
    if (!file && openMore) {
      if (!create) return null;
      files.set(name, (file = openMore(name, method)));
    }
    if (!file) throw new HybridMindError('STORAGE', method, `no derived file is open for ${JSON.stringify(name)}; open ones: ${[...files.keys()].join(', ')}`);
    return file;
  }
  const header = (stamp: Uint8Array, length: number): Uint8Array => {
    const head = new Uint8Array(FIXED + stamp.length);
    const view = new DataView(head.buffer);
    head.set(MAGIC, 0);
    view.setUint32(4, VERSION, true);
    view.setUint32(8, stamp.length, true);
    view.setFloat64(16, length, true);
    head.set(stamp, FIXED);
    return head;
  };
  return {
    stampOf(name) {
      const file = fileOf('DerivedStore.stampOf', name, false);
      return file && (saved(file)?.stamp ?? null);
    },
    read(name, stamp) {
      const file = fileOf('DerivedStore.read', name, false);
      if (!file) return null;
      const value = saved(file);
      return value && value.stamp === stamp ? pieces(file, value.length) : null;
    },
    write(name, stamp, bytes) {
      const method = 'DerivedStore.write';
      const file = fileOf(method, name, true);
      const encoded = utf8.encode(stamp);
      if (encoded.length === 0 || encoded.length > MAX_STAMP) throw new HybridMindError('STORAGE', method, `a stamp must be 1 to ${MAX_STAMP} UTF-8 bytes, received ${encoded.length}`);
      const before = file.getSize();
      writeAll(file, header(new Uint8Array(0), 0), 0);
      file.flush();
      writeChanged(file, bytes, before);
      file.truncate(DATA + bytes.length);
      file.flush();
      writeAll(file, header(encoded, bytes.length), 0);
      file.flush();
    },
    clear() {
      for (const file of files.values()) {
        file.truncate(0);
        file.flush();
      }
    },
    close() {
      for (const file of files.values()) file.close();
    },
  };
}

/** The stamp and length a file's header gives its value, or null when it holds none that reads. */
function saved(file: SyncFile): { stamp: string; length: number } | null {
  const size = file.getSize();
  if (size < DATA) return null;
  const head = new Uint8Array(DATA);
  if (file.read(head, { at: 0 }) !== DATA || MAGIC.some((byte, i) => head[i] !== byte)) return null;
  const view = new DataView(head.buffer);
  const stampBytes = view.getUint32(8, true);
  const length = view.getFloat64(16, true);
  if (view.getUint32(4, true) !== VERSION || stampBytes === 0 || stampBytes > MAX_STAMP) return null;
  if (!Number.isSafeInteger(length) || length < 0 || DATA + length !== size) return null;
  try {
    return { stamp: fromUtf8.decode(head.subarray(FIXED, FIXED + stampBytes)), length };
  } catch {
    return null;
  }
}

/** The value as pieces read one after another into one buffer, or as ranges read where they go. */
function pieces(file: SyncFile, length: number): PartedBytes {
  return {
    length,
    readRange(into, at) {
      if (at < 0 || at + into.length > length) return false;
      for (let done = 0; done < into.length; ) {
        const got = file.read(into.subarray(done), { at: DATA + at + done });
        if (got <= 0) return false;
        done += got;
      }
      return true;
    },
    read(visit) {
      const buffer = new Uint8Array(Math.min(PIECE, length));
      for (let at = 0; at < length; at += buffer.length) {
        const piece = buffer.subarray(0, Math.min(buffer.length, length - at));
        if (file.read(piece, { at: DATA + at }) !== piece.length) return false;
        if (visit(piece, at) === false) return false;
      }
      return true;
    },
  };
}

/**
 * Writes the value, leaving alone each chunk the file already holds byte for byte: a save after a
 * few new memories changes a few places of values that lay out room to grow (the codes, the
 * lexical index's layers), and rewriting all ~60 MB of a 100k store's values at every quiet save
 * would wear the disk that SQLite's in-place overwrite of `derived_index` rows spared.
 */
function writeChanged(file: SyncFile, bytes: Uint8Array, sizeBefore: number): void {
  const held = new Uint8Array(CHUNK);
  for (let from = 0; from < bytes.length; from += CHUNK) {
    const piece = bytes.subarray(from, from + CHUNK);
    const at = DATA + from;
    const old = held.subarray(0, piece.length);
    if (at + piece.length <= sizeBefore && file.read(old, { at }) === piece.length && sameBytes(old, piece)) continue;
    writeAll(file, piece, at);
  }
}

/** Whether two equally long byte runs are equal, compared four bytes at a time where both allow it. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  const words = a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0 ? a.length >> 2 : 0;
  const wa = new Int32Array(a.buffer, a.byteOffset, words);
  const wb = new Int32Array(b.buffer, b.byteOffset, words);
  for (let i = 0; i < words; i++) if (wa[i] !== wb[i]) return false;
  for (let i = words << 2; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Writes all of `bytes` at `at`: a sync handle may write fewer bytes than asked. */
function writeAll(file: SyncFile, bytes: Uint8Array, at: number): void {
  for (let done = 0; done < bytes.length; ) {
    const wrote = file.write(bytes.subarray(done), { at: at + done });
    if (wrote <= 0) throw new HybridMindError('STORAGE', 'DerivedStore.write', `the file took ${wrote} of ${bytes.length - done} bytes`);
    done += wrote;
  }
}
