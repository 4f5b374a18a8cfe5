import { HybridMindError, show, messageOf } from '../errors.js';
import { isPlainObject } from '../memory/validate.js';
import { checkSchemaVersion } from '../storage/schema.js';
import {
  corrupt, FORMAT_MAJOR, PART_NAMES, SNAPSHOT_FORMAT, type PartEntry, type PartName, type SnapshotManifest,
} from './format.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;
const VERSION_STRING = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$/;
const MAX_DIM = 65_536;

/**
 * Reads manifest.json into a checked, clean manifest (unknown fields are dropped, so nothing
 * unchecked travels further). The format name and major version are judged before any other
 * field, because a newer major may have changed the rest: it gets UNSUPPORTED, not CORRUPT.
 */
export function parseManifest(method: string, bytes: Uint8Array): SnapshotManifest {
  let raw: unknown;
  try {
    // ignoreBOM keeps a BOM in the text, so JSON.parse refuses it: the writer never emits one.
    raw = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch (cause) {
    throw corrupt(method, `manifest.json is not valid UTF-8 JSON (${messageOf(cause)})`, cause);
  }
  if (!isPlainObject(raw)) throw corrupt(method, 'manifest.json must hold a JSON object');
  const m = new Fields(method, raw);
  if (raw['format'] !== SNAPSHOT_FORMAT) throw corrupt(method, `manifest format is ${show(raw['format'])}, expected "${SNAPSHOT_FORMAT}"`);
  const formatVersion = m.string('formatVersion');
  const match = VERSION_STRING.exec(formatVersion);
  if (!match) throw corrupt(method, `manifest formatVersion must look like "1.0", received ${show(formatVersion)}`);
  const major = Number(match[1]);
  if (major > FORMAT_MAJOR) {
    throw new HybridMindError('UNSUPPORTED', method, `the snapshot has format version ${formatVersion}; this library reads format ${FORMAT_MAJOR}.x — upgrade hybridmind to import it`);
  }
  if (major < 1) throw corrupt(method, `manifest formatVersion ${formatVersion} was never a release`);

  const createdAt = m.string('createdAt');
  if (Number.isNaN(Date.parse(createdAt)) || new Date(Date.parse(createdAt)).toISOString() !== createdAt) {
    throw corrupt(method, `manifest createdAt must be an ISO-8601 UTC time like 2026-01-31T12:00:00.000Z, received ${show(createdAt)}`);
  }
  const library = m.object('library');
  if (library['name'] !== 'hybridmind' || typeof library['version'] !== 'string' || library['version'].length > 64) {
    throw corrupt(method, `manifest library must be { name: "hybridmind", version }, received ${show(library)}`);
  }
  const schemaVersion = checkSchemaVersion(method, m.integer('schemaVersion', 1), "the snapshot's database");
  const c = new Fields(method, m.object('counts'), 'counts.');
  const counts = { memories: c.integer('memories', 0), edges: c.integer('edges', 0), vectors: c.integer('vectors', 0) };
  const dim = raw['dim'] === null ? null : m.integer('dim', 1);
  if (dim !== null && dim > MAX_DIM) throw corrupt(method, `manifest dim ${dim} is over ${MAX_DIM}`);
  const embedderId = raw['embedderId'] === null ? null : m.string('embedderId');
  if (embedderId === '') throw corrupt(method, 'manifest embedderId must be null or a non-empty string');
  if (raw['normalization'] !== 'l2') throw corrupt(method, `manifest normalization must be "l2", received ${show(raw['normalization'])}`);
  const tokenizerVersion = m.integer('tokenizerVersion', 1);
  if (counts.vectors > counts.memories) throw corrupt(method, `manifest counts ${counts.vectors} vectors for ${counts.memories} memories`);
  if (counts.vectors > 0 && dim === null) throw corrupt(method, `manifest counts ${counts.vectors} vectors but has no dim`);

  return {
    format: SNAPSHOT_FORMAT,
    formatVersion,
    createdAt,
    library: { name: 'hybridmind', version: library['version'] },
    schemaVersion,
    counts,
    dim,
    embedderId,
    normalization: 'l2',
    tokenizerVersion,
    parts: parseParts(method, raw['parts']),
  };
}

function parseParts(method: string, value: unknown): PartEntry[] {
  if (!Array.isArray(value)) throw corrupt(method, `manifest parts must be an array, received ${show(value)}`);
  const known = new Set<string>(PART_NAMES);
  const parts = new Map<PartName, PartEntry>();
  for (const [i, item] of value.entries()) {
    if (!isPlainObject(item)) throw corrupt(method, `manifest parts[${i}] must be an object`);
    const name = item['name'];
    if (typeof name !== 'string' || !known.has(name)) throw corrupt(method, `manifest parts[${i}] names an unknown part ${show(name)}`);
    if (parts.has(name as PartName)) throw corrupt(method, `manifest lists part ${name} twice`);
    const p = new Fields(method, item, `parts[${i}].`);
    const sha256 = p.string('sha256');
    if (!SHA256_HEX.test(sha256)) throw corrupt(method, `manifest parts[${i}].sha256 must be 64 lower-case hex digits, received ${show(sha256)}`);
    parts.set(name as PartName, { name: name as PartName, bytes: p.integer('bytes', 0), sha256 });
  }
  const missing = PART_NAMES.filter((n) => !parts.has(n));
  if (missing.length > 0) throw corrupt(method, `manifest parts lacks ${missing.join(', ')}`);
  return PART_NAMES.map((n) => parts.get(n)!);
}

/** Typed reads of one JSON object's fields, each failure naming the field. */
class Fields {
  constructor(readonly method: string, readonly raw: Record<string, unknown>, readonly prefix = '') {}

  string(key: string): string {
    const v = this.raw[key];
    if (typeof v !== 'string' || v.length > 1024) throw corrupt(this.method, `manifest ${this.prefix}${key} must be a string, received ${show(v)}`);
    return v;
  }

  integer(key: string, min: number): number {
    const v = this.raw[key];
    if (!Number.isSafeInteger(v) || (v as number) < min) throw corrupt(this.method, `manifest ${this.prefix}${key} must be an integer >= ${min}, received ${show(v)}`);
    return v as number;
  }

  object(key: string): Record<string, unknown> {
    const v = this.raw[key];
    if (!isPlainObject(v)) throw corrupt(this.method, `manifest ${this.prefix}${key} must be an object, received ${show(v)}`);
    return v;
  }
}
