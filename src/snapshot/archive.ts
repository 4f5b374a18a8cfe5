import { invalid, messageOf } from '../errors.js';
import { corrupt, MANIFEST, PART_NAMES, type PartName, type ResolvedLimits, type SnapshotManifest } from './format.js';
import { parseManifest } from './manifest.js';
import { sha256Hex } from './sha256.js';
import { readSqliteHeader, SQLITE_HEADER_BYTES } from '../validation/sqlite-header.js';
import { inflateEntry, readDirectory } from './zip-read.js';

/** An archive whose container, manifest and checksums are verified; its content is not yet. */
export interface VerifiedArchive {
  manifest: SnapshotManifest;
  parts: Record<PartName, Uint8Array>;
}

const ENTRY_NAMES: ReadonlySet<string> = new Set([MANIFEST, ...PART_NAMES]);

/**
 * Steps 1–5 of FORMAT.md's validation order: ZIP structure, entry names, size and ratio limits
 * (from the central directory, then again while inflating), the manifest, and every part's size
 * and SHA-256.
 */
export async function readArchive(method: string, bytes: unknown, limits: ResolvedLimits): Promise<VerifiedArchive> {
  if (!(bytes instanceof Uint8Array)) throw invalid(method, 'bytes must be a Uint8Array holding a .mind.zip', bytes);
  // A plain view, so subclass quirks (Node's Buffer#slice shares memory) cannot reach the parser.
  const zip = bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = readDirectory(method, zip, (name) => checkEntryName(method, name), limits, (name) => (name === MANIFEST ? limits.maxManifestBytes : limits.maxTotalBytes));
  const byName = new Map(entries.map((e) => [e.name, e]));
  const missing = [...ENTRY_NAMES].filter((name) => !byName.has(name));
  if (missing.length > 0) throw corrupt(method, `the archive lacks ${missing.join(', ')}`);

  const manifest = parseManifest(method, inflateEntry(method, zip, byName.get(MANIFEST)!, limits));
  // Cheap before expensive: the sizes the directory declares must be the manifest's before anything else is inflated.
  for (const part of manifest.parts) {
    const declared = byName.get(part.name)!.size;
    if (declared !== part.bytes) throw corrupt(method, `${part.name} is ${declared} bytes in the archive, the manifest says ${part.bytes}`);
  }
  checkDeclaredSizes(method, manifest);
  const parts = {} as Record<PartName, Uint8Array>;
  for (const part of manifest.parts) {
    const data = inflateEntry(method, zip, byName.get(part.name)!, limits, part.name === 'store.db' ? storeDbHead(method, part.bytes) : undefined);
    const digest = await sha256Hex(method, data);
    if (digest !== part.sha256) throw corrupt(method, `checksum mismatch in ${part.name}: the manifest says sha256 ${part.sha256}, the content hashes to ${digest}`);
    parts[part.name] = data;
  }
  return { manifest, parts };
}

/** Sizes the manifest's own fields fix, checked before anything but the manifest is inflated. */
function checkDeclaredSizes(method: string, manifest: SnapshotManifest): void {
  const vectors = manifest.parts.find((p) => p.name === 'vectors.f32')!.bytes;
  const expected = manifest.counts.vectors * (manifest.dim ?? 0) * 4;
  if (vectors !== expected) throw corrupt(method, `vectors.f32 declares ${vectors} bytes; ${manifest.counts.vectors} vectors of ${manifest.dim ?? 0} dimensions are ${expected}`);
  const db = manifest.parts.find((p) => p.name === 'store.db')!.bytes;
  if (db < 512 || db % 512 !== 0) throw corrupt(method, `store.db declares ${db} bytes, which no SQLite database has (whole pages of at least 512 bytes)`);
}

/** store.db's header is judged against its declared size as soon as it is inflated: a padded or garbage database stops there. */
function storeDbHead(method: string, size: number): { bytes: number; check: (head: Uint8Array) => void } {
  return {
    bytes: SQLITE_HEADER_BYTES,
    check: (head) => {
      try {
        readSqliteHeader(head, size);
      } catch (cause) {
        throw corrupt(method, `store.db ${messageOf(cause)}`, cause);
      }
    },
  };
}

/** Path checks come before the known-name check so an attack is reported as one, not as an unknown file. */
function checkEntryName(method: string, name: string): void {
  const shown = JSON.stringify(name);
  if (name.length === 0) throw corrupt(method, 'an entry has an empty name');
  if (/[\u0000-\u001f\u007f]/.test(name)) throw corrupt(method, `unsafe entry name ${shown}: control characters`);
  if (name.includes('\\')) throw corrupt(method, `unsafe entry name ${shown}: backslashes are not path separators in ZIP`);
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw corrupt(method, `unsafe entry name ${shown}: absolute path`);
  if (name.split('/').some((segment) => segment === '..' || segment === '.')) throw corrupt(method, `unsafe entry name ${shown}: relative path segment`);
  if (!ENTRY_NAMES.has(name)) throw corrupt(method, `unknown entry ${shown}; a snapshot holds only ${[...ENTRY_NAMES].join(', ')}`);
}
