import { HybridMindError } from '../errors.js';

/**
 * The `.mind.zip` vocabulary: entry names, the manifest's shape and the limits a reader enforces.
 * FORMAT.md next to this file is the specification; this file is its machine-readable half.
 */

export const SNAPSHOT_FORMAT = 'hybridmind.mind.zip';
/** Major version: a reader refuses a greater one. See FORMAT.md, "Versioning". */
export const FORMAT_MAJOR = 1;
/** Minor version: additive manifest fields only; a reader accepts any minor of its major. */
export const FORMAT_MINOR = 0;

export const MANIFEST = 'manifest.json';

/** Every entry besides the manifest, in the order they are written and listed in `parts`. */
export const PART_NAMES = ['store.db', 'vectors.ids.json', 'vectors.f32', 'graph.jsonl', 'bm25.jsonl'] as const;
export type PartName = (typeof PART_NAMES)[number];

export interface PartEntry {
  name: PartName;
  /** Uncompressed size. */
  bytes: number;
  /** Lower-case hex SHA-256 of the uncompressed bytes. */
  sha256: string;
}

export interface SnapshotManifest {
  format: typeof SNAPSHOT_FORMAT;
  /** `"<major>.<minor>"`, e.g. `"1.0"`. */
  formatVersion: string;
  /** ISO-8601 UTC time of the export, from the store's clock. */
  createdAt: string;
  library: { name: 'hybridmind'; version: string };
  /** The SQLite schema version of store.db. */
  schemaVersion: number;
  counts: { memories: number; edges: number; vectors: number };
  /** Vector dimension, or null when the store has never held a vector. */
  dim: number | null;
  /** The embedder that made the vectors, or null (vectors given explicitly, or none yet). */
  embedderId: string | null;
  normalization: 'l2';
  /** Tokenizer version bm25.jsonl was written with; another version's tokens are not compared. */
  tokenizerVersion: number;
  parts: PartEntry[];
}

/** What a reader accepts before it spends memory or time on an archive. */
export interface SnapshotLimits {
  /** Sum of the entries' uncompressed sizes, declared and actual. Default 1 GiB. */
  maxTotalBytes?: number | undefined;
  /**
   * Largest uncompressed/compressed ratio of a deflated entry, declared and while inflating (output
   * so far over input consumed so far, once `ratioFloorBytes` have come out). Default 100, Apache
   * POI's; exports never pass it (a part that would is written stored).
   */
  maxRatio?: number | undefined;
  /** Entries up to this uncompressed size, and the first this many bytes of any entry, are exempt from `maxRatio`. Default 1 MiB. */
  ratioFloorBytes?: number | undefined;
  /** Largest manifest.json. Default 1 MiB. */
  maxManifestBytes?: number | undefined;
}

export type ResolvedLimits = Required<SnapshotLimits>;

export const SNAPSHOT_LIMITS: Readonly<ResolvedLimits> = Object.freeze({
  maxTotalBytes: 1024 * 1024 * 1024,
  maxRatio: 100,
  ratioFloorBytes: 1024 * 1024,
  maxManifestBytes: 1024 * 1024,
});

/** Every refusal of an archive's content is CORRUPT; the message names the entry and the problem. */
export function corrupt(method: string, message: string, cause?: unknown): HybridMindError {
  return new HybridMindError('CORRUPT', method, `invalid snapshot: ${message}`, cause === undefined ? undefined : { cause });
}
