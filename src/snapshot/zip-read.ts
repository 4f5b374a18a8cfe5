/**
 * A deliberately strict ZIP reader. It trusts nothing in the archive: the central directory is
 * read and every entry checked (name, method, declared sizes, ratio, overlap) before a single
 * byte is inflated, and inflation stops the moment an entry produces more than it declared or
 * its running ratio passes the limit (`ratioGuard`).
 * fflate does the DEFLATE decoding; the container is parsed here so that every check sees the
 * raw fields (fflate's `unzipSync` keys entries by name, hiding duplicates, and inflates into a
 * buffer of the declared size, silently dropping any excess it still spends time decoding).
 */
import { Inflate } from 'fflate';
import { HybridMindError, messageOf } from '../errors.js';
import { corrupt, type ResolvedLimits } from './format.js';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: 0 | 8;
  compressedSize: number;
  size: number;
  /** Offset of the entry's local header. */
  headerStart: number;
  /** Offset of the entry's data (after its local header). */
  dataStart: number;
}

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
const MAX_COMMENT = 0xffff;
/** Far more than a snapshot has; bounds the work spent on a directory of junk. */
const MAX_ENTRIES = 64;
/** Input per inflate step: bounds what one step can emit to ~1032× this (DEFLATE's maximum ratio). */
const INFLATE_CHUNK = 16 * 1024;
/** Input of the first step when the head is judged: at most ~260 KiB of output before the check. */
const FIRST_CHUNK = 256;

export type RatioLimits = Pick<ResolvedLimits, 'maxRatio' | 'ratioFloorBytes'>;

const u16 = (b: Uint8Array, at: number): number => b[at]! | (b[at + 1]! << 8);
const u32 = (b: Uint8Array, at: number): number => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

/**
 * Lists the archive's entries after checking its structure, every name (`checkName`) and the
 * declared sizes against `limits`. Nothing is inflated.
 */
export function readDirectory(
  method: string,
  zip: Uint8Array,
  checkName: (name: string) => void,
  limits: ResolvedLimits,
  maxSizeOf: (name: string) => number,
): ZipEntry[] {
  const eocd = findEndOfDirectory(method, zip);
  if (eocd >= 20 && u32(zip, eocd - 20) === ZIP64_LOCATOR_SIG) throw corrupt(method, 'ZIP64 archives are not snapshots');
  const diskEntries = u16(zip, eocd + 8);
  const count = u16(zip, eocd + 10);
  const dirSize = u32(zip, eocd + 12);
  const dirStart = u32(zip, eocd + 16);
  if (u16(zip, eocd + 4) !== 0 || u16(zip, eocd + 6) !== 0 || diskEntries !== count) throw corrupt(method, 'multi-disk archives are not snapshots');
  if (count > MAX_ENTRIES) throw corrupt(method, `the archive lists ${count} entries, a snapshot has ${MAX_ENTRIES} at most`);
  if (dirStart + dirSize !== eocd) throw corrupt(method, `the central directory (${dirStart}+${dirSize}) does not end where the end record starts (${eocd})`);

  const entries: ZipEntry[] = [];
  const seen = new Set<string>();
  let total = 0;
  let at = dirStart;
  for (let i = 0; i < count; i++) {
    if (at + 46 > eocd || u32(zip, at) !== CENTRAL_SIG) throw corrupt(method, `central directory record ${i} is damaged`);
    const flags = u16(zip, at + 8);
    const kind = u16(zip, at + 10);
    const compressedSize = u32(zip, at + 20);
    const size = u32(zip, at + 24);
    const nameLength = u16(zip, at + 28);
    const next = at + 46 + nameLength + u16(zip, at + 30) + u16(zip, at + 32);
    const localAt = u32(zip, at + 42);
    if (next > eocd) throw corrupt(method, `central directory record ${i} runs past the directory`);
    const rawName = zip.subarray(at + 46, at + 46 + nameLength);
    const name = decodeName(method, rawName);
    checkName(name);
    if (seen.has(name)) throw corrupt(method, `duplicate entry ${JSON.stringify(name)}`);
    seen.add(name);
    if (flags & 1) throw corrupt(method, `entry ${JSON.stringify(name)} is encrypted`);
    if (kind !== 0 && kind !== 8) throw corrupt(method, `entry ${JSON.stringify(name)} uses compression method ${kind}; only stored (0) and deflate (8) are read`);
    if (compressedSize === 0xffffffff || size === 0xffffffff || localAt === 0xffffffff) throw corrupt(method, `entry ${JSON.stringify(name)} needs ZIP64, which snapshots never use`);
    if (kind === 0 && compressedSize !== size) throw corrupt(method, `stored entry ${JSON.stringify(name)} declares ${compressedSize} bytes stored but ${size} uncompressed`);
    const max = maxSizeOf(name);
    if (size > max) throw corrupt(method, `entry ${JSON.stringify(name)} declares ${size} bytes uncompressed, over the limit of ${max} (raise limits to accept it)`);
    total += size;
    if (total > limits.maxTotalBytes) throw corrupt(method, `the entries declare over ${limits.maxTotalBytes} bytes uncompressed in total (limits.maxTotalBytes); refusing a possible zip bomb`);
    if (kind === 8 && size > limits.ratioFloorBytes && size / Math.max(compressedSize, 1) > limits.maxRatio) {
      throw corrupt(method, `entry ${JSON.stringify(name)} would inflate ${compressedSize} bytes to ${size}, a ratio over ${limits.maxRatio} (limits.maxRatio); refusing a possible zip bomb`);
    }
    entries.push({ name, method: kind, compressedSize, size, headerStart: localAt, dataStart: localData(method, zip, localAt, rawName, kind, compressedSize, dirStart, name) });
    at = next;
  }
  if (at !== eocd) throw corrupt(method, 'the central directory holds bytes after its last record');
  checkTiling(method, entries, dirStart);
  return entries;
}

/**
 * Apache POI's ZipSecureFile rule, applied while inflating: once `ratioFloorBytes` have come out,
 * output over input consumed so far may not pass `maxRatio`. The declared sizes bound the whole
 * entry; this bounds every prefix of it, so a stream that front-loads its expansion (a dense bomb
 * followed by incompressible filler to make the declared ratio look honest) stops after about
 * `maxRatio` × the bytes it has consumed rather than after its declared size. The writer checks
 * its own output with it (`withinRatio`, from `write.ts`), so an export never trips it.
 */
function ratioGuard(method: string, name: string, limits: RatioLimits): (inflated: number, consumed: number) => void {
  return (inflated, consumed) => {
    if (inflated <= limits.ratioFloorBytes) return;
    const ratio = inflated / Math.max(consumed, 1);
    if (ratio > limits.maxRatio) {
      throw corrupt(
        method,
        `entry ${JSON.stringify(name)} inflated ${inflated} bytes from its first ${consumed} compressed bytes, a ratio of ${ratio.toFixed(1)} over the limit of ${limits.maxRatio} (limits.maxRatio); refusing a possible zip bomb (raise limits.maxRatio for an archive you trust)`,
      );
    }
  };
}

/**
 * Inflates `data` in steps of at most `INFLATE_CHUNK` input bytes, handing each output chunk to
 * `sink` with the input consumed so far, until `enough`. The first step is small, so a head check
 * runs before a highly compressed stream has produced much.
 */
function inflateSteps(data: Uint8Array, sink: (chunk: Uint8Array, consumed: number) => void, enough = (_consumed: number) => false): void {
  let consumed = 0;
  const inflater = new Inflate((chunk) => sink(chunk, consumed));
  if (data.length === 0) inflater.push(data, true);
  for (let at = 0, step = FIRST_CHUNK; at < data.length && !enough(consumed); at += step, step = INFLATE_CHUNK) {
    consumed = Math.min(at + step, data.length);
    inflater.push(data.subarray(at, at + step), at + step >= data.length);
  }
}

/**
 * Whether `inflateEntry` with `limits` would let the entry pass its ratio checks. Only the prefix
 * where it could fail is inflated: once the input consumed passes size ÷ `maxRatio`, no later
 * prefix (at most `size` bytes out) can be over the ratio.
 */
export function withinRatio(method: string, zip: Uint8Array, entry: ZipEntry, limits: RatioLimits): boolean {
  if (entry.method === 0) return true;
  const guard = ratioGuard(method, entry.name, limits);
  let inflated = 0;
  try {
    inflateSteps(
      zip.subarray(entry.dataStart, entry.dataStart + entry.compressedSize),
      (chunk, consumed) => guard((inflated += chunk.length), consumed),
      (consumed) => consumed > entry.size / limits.maxRatio,
    );
  } catch (error) {
    if (error instanceof HybridMindError) return false;
    throw error;
  }
  return true;
}

/**
 * The entry's bytes, streamed through the inflater with its declared size as a hard ceiling and
 * `ratioGuard` on every prefix: the only buffer is the declared size, and output past it or
 * over the ratio stops the inflater at once. `head`, if given, judges the first `head.bytes` bytes
 * as soon as they exist, so content that is wrong from its first bytes is refused without
 * inflating the rest.
 */
export function inflateEntry(
  method: string,
  zip: Uint8Array,
  entry: ZipEntry,
  limits: RatioLimits,
  head?: { bytes: number; check: (head: Uint8Array) => void },
): Uint8Array {
  const data = zip.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
  if (entry.method === 0) {
    head?.check(data.subarray(0, head.bytes));
    return new Uint8Array(data);
  }
  const out = new Uint8Array(entry.size);
  const guard = ratioGuard(method, entry.name, limits);
  let written = 0;
  let judged = head === undefined;
  const sink = (chunk: Uint8Array, consumed: number) => {
    if (written + chunk.length > entry.size) throw corrupt(method, `entry ${JSON.stringify(entry.name)} inflates past its declared ${entry.size} bytes`);
    out.set(chunk, written);
    written += chunk.length;
    if (!judged && written >= head!.bytes) {
      judged = true;
      head!.check(out.subarray(0, head!.bytes));
    }
    guard(written, consumed);
  };
  try {
    inflateSteps(data, sink);
  } catch (cause) {
    if (cause instanceof HybridMindError) throw cause;
    throw corrupt(method, `entry ${JSON.stringify(entry.name)} does not inflate: ${messageOf(cause)}`, cause);
  }
  if (written !== entry.size) throw corrupt(method, `entry ${JSON.stringify(entry.name)} is truncated: it inflates to ${written} of its declared ${entry.size} bytes`);
  return out;
}

function findEndOfDirectory(method: string, zip: Uint8Array): number {
  const lowest = Math.max(0, zip.length - 22 - MAX_COMMENT);
  for (let at = zip.length - 22; at >= lowest; at--) {
    // The comment length must reach exactly to the end, so a signature inside a comment or inside data is not taken.
    if (u32(zip, at) === EOCD_SIG && at + 22 + u16(zip, at + 20) === zip.length) return at;
  }
  throw corrupt(method, `not a ZIP archive (no end-of-directory record in ${zip.length} bytes; truncated?)`);
}

function decodeName(method: string, raw: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch (cause) {
    throw corrupt(method, 'an entry name is not valid UTF-8', cause);
  }
}

function localData(method: string, zip: Uint8Array, at: number, rawName: Uint8Array, kind: number, compressedSize: number, dirStart: number, name: string): number {
  if (at + 30 > dirStart || u32(zip, at) !== LOCAL_SIG) throw corrupt(method, `entry ${JSON.stringify(name)} has no local header at offset ${at}`);
  const nameLength = u16(zip, at + 26);
  const start = at + 30 + nameLength + u16(zip, at + 28);
  const localName = zip.subarray(at + 30, at + 30 + nameLength);
  // A local header naming another file is how some archives show different contents to different tools.
  if (nameLength !== rawName.length || localName.some((b, i) => b !== rawName[i])) throw corrupt(method, `entry ${JSON.stringify(name)}'s local header names another file`);
  if (u16(zip, at + 8) !== kind) throw corrupt(method, `entry ${JSON.stringify(name)}'s local header disagrees on the compression method`);
  if (start + compressedSize > dirStart) throw corrupt(method, `entry ${JSON.stringify(name)}'s data runs past the start of the central directory`);
  return start;
}

/**
 * The entries must tile the archive from its first byte to the central directory. Overlapping
 * entries let a small archive expand the same bytes many times (a non-recursive bomb); bytes
 * before or between them are data outside the entries, which FORMAT.md forbids (a polyglot file
 * hides a second format there).
 */
function checkTiling(method: string, entries: ZipEntry[], dirStart: number): void {
  const spans = entries.map((e) => ({ name: e.name, start: e.headerStart, end: e.dataStart + e.compressedSize })).sort((a, b) => a.start - b.start);
  let at = 0;
  for (const [i, span] of spans.entries()) {
    if (i > 0 && span.start < at) throw corrupt(method, `entries ${JSON.stringify(spans[i - 1]!.name)} and ${JSON.stringify(span.name)} overlap`);
    if (span.start !== at) throw corrupt(method, `${span.start - at} bytes at offset ${at} belong to no entry (data outside the entries)`);
    at = span.end;
  }
  if (at !== dirStart) throw corrupt(method, `${dirStart - at} bytes at offset ${at} belong to no entry (data outside the entries)`);
}
