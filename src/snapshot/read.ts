import type { Embedder } from '../embedder/types.js';
import { HybridMindError, invalid } from '../errors.js';
import { checkOptions, keysOf } from '../memory/validate.js';
import type { Repository } from '../storage/repository.js';
import { readArchive, type VerifiedArchive } from './archive.js';
import type { StoreContent } from './content.js';
import { corrupt, SNAPSHOT_LIMITS, type ResolvedLimits, type SnapshotLimits, type SnapshotManifest } from './format.js';
import { checkBm25, decodeBm25 } from './part-bm25.js';
import { checkGraph, decodeGraph } from './part-graph.js';
import { checkVectors, decodeVectors } from './part-vectors.js';
import { openStoreDb } from './store-db.js';

/** What the archive must be compatible with; omitted fields are not checked. */
export interface SnapshotExpectations {
  /** The embedder that will serve the store: its id and dim must match the snapshot's. */
  embedder?: Embedder | null;
  /** The vector dimension the caller expects. */
  dim?: number;
  limits?: SnapshotLimits;
}

export interface OpenedSnapshot {
  manifest: SnapshotManifest;
  /** store.db opened in its own in-memory SQLite; the caller closes `repository.db`. */
  repository: Repository;
}

/**
 * Validates a `.mind.zip` completely (FORMAT.md, "Validation order") and returns its database,
 * opened and checked. Nothing outside the new in-memory database is touched, whatever happens.
 */
export async function openSnapshot(method: string, bytes: unknown, expect: SnapshotExpectations = {}): Promise<OpenedSnapshot> {
  const { manifest, parts, derived } = await readParts(method, bytes, expect);
  const store = await openStoreDb(method, parts['store.db'], manifest);
  try {
    checkDerived(method, derived, store.content, manifest);
  } catch (error) {
    store.repository.db.close();
    throw error;
  }
  return { manifest, repository: store.repository };
}

/** The derived parts, decoded and checked on their own (FORMAT.md steps 1–7). */
export interface DerivedParts {
  vectors: ReturnType<typeof decodeVectors>;
  graph: ReturnType<typeof decodeGraph>;
  bm25: ReturnType<typeof decodeBm25>;
}

/**
 * FORMAT.md steps 1–7, for every import path (`openSnapshot` here, `importSnapshotInto` on
 * Durable Objects): container, limits, manifest, checksums, model, derived parts on their own.
 */
export async function readParts(method: string, bytes: unknown, expect: SnapshotExpectations): Promise<VerifiedArchive & { derived: DerivedParts }> {
  const limits = resolveLimits(method, expect.limits);
  const { manifest, parts } = await readArchive(method, bytes, limits);
  checkModel(method, manifest, expect);
  const vectors = decodeVectors(method, parts['vectors.ids.json'], parts['vectors.f32'], manifest);
  const graph = decodeGraph(method, parts['graph.jsonl']);
  const bm25 = decodeBm25(method, parts['bm25.jsonl']);
  if (graph.nodes.size !== manifest.counts.memories || graph.edges.size !== manifest.counts.edges) {
    throw corrupt(method, `graph.jsonl has ${graph.nodes.size} nodes and ${graph.edges.size} edges, the manifest counts ${manifest.counts.memories} memories and ${manifest.counts.edges} edges`);
  }
  return { manifest, parts, derived: { vectors, graph, bm25 } };
}

/** FORMAT.md step 9: the derived parts against store.db's checked rows. */
export function checkDerived(method: string, derived: DerivedParts, content: StoreContent, manifest: SnapshotManifest): void {
  checkVectors(method, derived.vectors, content, new Map(content.memories.map((m) => [m.id, Number(m.no)])));
  checkGraph(method, derived.graph, content);
  checkBm25(method, derived.bm25, content, manifest);
}

/** Validates without creating a store; resolves to the manifest. */
export async function verifySnapshot(bytes: Uint8Array, expect: SnapshotExpectations = {}): Promise<SnapshotManifest> {
  const { manifest, repository } = await openSnapshot('verifySnapshot', bytes, checkExpectations('verifySnapshot', expect));
  repository.db.close();
  return manifest;
}

const EXPECT_KEYS = keysOf<SnapshotExpectations>({ embedder: true, dim: true, limits: true });
const LIMIT_KEYS = Object.keys(SNAPSHOT_LIMITS);

export function checkExpectations(method: string, value: unknown): SnapshotExpectations {
  const o = checkOptions(method, 'options', value, EXPECT_KEYS);
  return o as SnapshotExpectations;
}

export function resolveLimits(method: string, value: unknown): ResolvedLimits {
  const o = checkOptions(method, 'options.limits', value, LIMIT_KEYS);
  const limits = { ...SNAPSHOT_LIMITS };
  for (const [key, v] of Object.entries(o)) {
    if (v === undefined) continue;
    const min = key === 'maxRatio' ? 1 : 0;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min) throw invalid(method, `options.limits.${key} must be a finite number >= ${min}`, v);
    limits[key as keyof ResolvedLimits] = v;
  }
  return limits;
}

/** The same rules `HybridMemory.open` applies to a stored database, applied before the database is opened. */
function checkModel(method: string, manifest: SnapshotManifest, expect: SnapshotExpectations): void {
  const embedder = expect.embedder ?? null;
  if (embedder !== null && (typeof embedder !== 'object' || typeof embedder.id !== 'string' || !Number.isSafeInteger(embedder.dim))) {
    throw invalid(method, 'options.embedder must be an Embedder ({ id, dim, embed }) or null', embedder);
  }
  if (expect.dim !== undefined && (!Number.isSafeInteger(expect.dim) || expect.dim < 1)) throw invalid(method, 'options.dim must be a positive integer', expect.dim);
  const wanted = expect.dim ?? embedder?.dim ?? null;
  if (manifest.dim !== null && wanted !== null && manifest.dim !== wanted) {
    const source = expect.dim !== undefined ? `options.dim ${wanted}` : `the embedder ${JSON.stringify(embedder!.id)} makes ${wanted}-d vectors`;
    throw new HybridMindError('DIMENSION_MISMATCH', method, `the snapshot holds ${manifest.dim}-d vectors; ${source}`);
  }
  if (embedder && manifest.embedderId !== null && manifest.embedderId !== embedder.id) {
    throw new HybridMindError('MODEL_MISMATCH', method, `the snapshot's vectors come from ${JSON.stringify(manifest.embedderId)}, received embedder ${JSON.stringify(embedder.id)}`);
  }
}
