import { zipSync, type DeflateOptions, type Zippable } from 'fflate';
import { HybridMindError } from '../errors.js';
import { TOKENIZER_VERSION } from '../legs/lexical/tokenizer.js';
import type { Repository } from '../storage/repository.js';
import { SCHEMA_VERSION } from '../storage/schema.js';
import { VERSION } from '../version.js';
import { readContent } from './content.js';
import {
  FORMAT_MAJOR, FORMAT_MINOR, MANIFEST, PART_NAMES, SNAPSHOT_FORMAT, SNAPSHOT_LIMITS, type PartName, type SnapshotManifest,
} from './format.js';
import { encodeBm25 } from './part-bm25.js';
import { encodeGraph } from './part-graph.js';
import { encodeVectors } from './part-vectors.js';
import { sha256Hex } from './sha256.js';
import { readDirectory, withinRatio } from './zip-read.js';

/**
 * Deflate level per entry. Text parts: 6, fflate's default balance. store.db: 1, because its
 * vector blobs barely compress and level 6 took ~3× as long for ~20% less (17 MB database,
 * 10k × 384-d). vectors.f32: stored, raw floats do not compress.
 */
const LEVELS: Readonly<Record<PartName, NonNullable<DeflateOptions['level']>>> = { 'store.db': 1, 'vectors.ids.json': 6, 'vectors.f32': 0, 'graph.jsonl': 6, 'bm25.jsonl': 6 };
const MANIFEST_LEVEL = 6 as const;
// DOS timestamps in ZIP cannot leave 1980–2099; outside that the entry time is clamped.
const MIN_MTIME = Date.UTC(1980, 0, 2);
const MAX_MTIME = Date.UTC(2099, 11, 30);

/**
 * Writes a `.mind.zip` of the store behind `repo` (FORMAT.md). The database and the derived
 * parts are read synchronously, before the first await, so they describe one state even if
 * writes are queued meanwhile. Memories still waiting for their embedding are exported
 * without a vector (a store opened from the snapshot with an embedder embeds them).
 */
export async function writeSnapshot(method: string, repo: Repository, createdAtMs: number): Promise<Uint8Array> {
  if (!repo.db.serialize) throw new HybridMindError('UNSUPPORTED', method, `storage ${repo.db.name} cannot serialise itself`);
  const database = repo.db.serialize();
  const content = readContent(repo);
  const schemaVersion = Number(repo.getMeta('schema_version') ?? SCHEMA_VERSION);

  const vectors = encodeVectors(content);
  const parts: Record<PartName, Uint8Array> = {
    'store.db': database,
    'vectors.ids.json': vectors.ids,
    'vectors.f32': vectors.floats,
    'graph.jsonl': encodeGraph(content),
    'bm25.jsonl': encodeBm25(content),
  };
  const createdAt = Number.isFinite(createdAtMs) ? createdAtMs : Date.now();
  const manifest: SnapshotManifest = {
    format: SNAPSHOT_FORMAT,
    formatVersion: `${FORMAT_MAJOR}.${FORMAT_MINOR}`,
    createdAt: new Date(createdAt).toISOString(),
    library: { name: 'hybridmind', version: VERSION },
    schemaVersion,
    counts: { memories: content.memories.length, edges: content.edges.length, vectors: content.vectors.length },
    dim: content.dim,
    embedderId: content.embedderId,
    normalization: 'l2',
    tokenizerVersion: TOKENIZER_VERSION,
    parts: [],
  };
  for (const name of PART_NAMES) manifest.parts.push({ name, bytes: parts[name].byteLength, sha256: await sha256Hex(method, parts[name]) });

  const manifestBytes = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
  const zip = (stored: ReadonlySet<string>) => {
    const files: Zippable = { [MANIFEST]: [manifestBytes, { level: MANIFEST_LEVEL }] };
    for (const name of PART_NAMES) files[name] = [parts[name], { level: stored.has(name) ? 0 : LEVELS[name] }];
    return zipSync(files, { mtime: Math.min(Math.max(createdAt, MIN_MTIME), MAX_MTIME) });
  };
  const first = zip(new Set());
  const over = overRatio(method, first);
  return over.size === 0 ? first : zip(over);
}

/**
 * The entries of our own archive that a reader with the default limits would refuse as possible
 * bombs (highly repetitive text can pass `maxRatio`, overall or in a prefix): the export writes
 * them stored, so every export imports with the default limits. It is the reader's own check on
 * the exact bytes written, over the prefix where it could fail (the first size ÷ 100 bytes).
 */
function overRatio(method: string, zip: Uint8Array): Set<string> {
  const unbounded = { ...SNAPSHOT_LIMITS, maxTotalBytes: Infinity, maxRatio: Infinity };
  const over = new Set<string>();
  for (const entry of readDirectory(method, zip, () => {}, unbounded, () => Infinity)) {
    if (entry.size > SNAPSHOT_LIMITS.ratioFloorBytes && !withinRatio(method, zip, entry, SNAPSHOT_LIMITS)) over.add(entry.name);
  }
  return over;
}
