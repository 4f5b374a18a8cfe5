/**
 * The snapshot's checks as one API, for every import path: `openSnapshot` (store.db opened in
 * SQLite-WASM) and `importSnapshotInto` (Durable Objects, store.db read by a pure-TypeScript
 * reader). Each rule is written once, here or in what this calls: the container, limits,
 * manifest and checksums (`archive.ts`), the model (`memory/model.ts`), the schema version
 * (`storage/schema.ts`), the derived tables (`validation/database.ts`) and the row rules
 * (`validation/rows.ts`, also applied to raw database bytes given to `open()`).
 */
import type { Embedder } from '../embedder/types.js';
import { invalid } from '../errors.js';
import { checkOptions } from '../memory/validate.js';
import { modelConflict } from '../memory/model.js';
import { checkSchemaVersion } from '../storage/schema.js';
import { rowProblem } from '../validation/rows.js';
import { readArchive, type VerifiedArchive } from './archive.js';
import type { StoreContent } from './content.js';
import { corrupt, SNAPSHOT_LIMITS, type ResolvedLimits, type SnapshotLimits, type SnapshotManifest } from './format.js';
import { checkBm25, decodeBm25 } from './part-bm25.js';
import { checkGraph, decodeGraph } from './part-graph.js';
import { checkVectors, decodeVectors } from './part-vectors.js';

export { readContent } from './content.js';

/** What the archive must be compatible with; omitted fields are not checked. */
export interface SnapshotExpectations {
  /** The embedder that will serve the store: its id and dim must match the snapshot's. */
  embedder?: Embedder | null | undefined;
  /** The vector dimension the caller expects. */
  dim?: number | undefined;
  limits?: SnapshotLimits | undefined;
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
export async function readSnapshotParts(method: string, bytes: unknown, expect: SnapshotExpectations): Promise<VerifiedArchive & { derived: DerivedParts }> {
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
function checkDerived(method: string, derived: DerivedParts, content: StoreContent, manifest: SnapshotManifest): void {
  checkVectors(method, derived.vectors, content, new Map(content.memories.map((m) => [m.id, Number(m.no)])));
  checkGraph(method, derived.graph, content);
  checkBm25(method, derived.bm25, content, manifest);
}

/**
 * store.db's rows against the manifest (dim, model, counts) and the derived parts (FORMAT.md
 * steps 8–9). `rowsChecked`: the row rules already ran (`adoptForeignDatabase` applies them).
 */
export function checkStoreContent(method: string, content: StoreContent, manifest: SnapshotManifest, derived: DerivedParts, { rowsChecked = false } = {}): void {
  if (!rowsChecked) checkRows(method, content);
  checkAgainstManifest(method, content, manifest);
  checkDerived(method, derived, content, manifest);
}

/** store.db's `meta.schema_version` against this library and the manifest, for every import path. */
export function checkStoreVersion(method: string, value: unknown, manifest: SnapshotManifest): void {
  const version = checkSchemaVersion(method, value, 'store.db', { corrupt: (message) => corrupt(method, message) });
  if (version !== manifest.schemaVersion) throw corrupt(method, `store.db has schema version ${version}, the manifest says ${manifest.schemaVersion}`);
}

/** The library's row rules (validation/rows.ts), the same for every door a database comes through. */
function checkRows(method: string, content: StoreContent): void {
  const problem = rowProblem(content);
  if (problem) throw corrupt(method, `store.db ${problem}`);
}

function checkAgainstManifest(method: string, content: StoreContent, manifest: SnapshotManifest): void {
  const differs = (what: string, db: unknown, m: unknown) => corrupt(method, `store.db has ${what} ${JSON.stringify(db)}, the manifest says ${JSON.stringify(m)}`);
  if (content.dim !== manifest.dim) throw differs('dim', content.dim, manifest.dim);
  if (content.embedderId !== manifest.embedderId) throw differs('embedder id', content.embedderId, manifest.embedderId);
  if (content.memories.length !== manifest.counts.memories) throw differs('memory count', content.memories.length, manifest.counts.memories);
  if (content.edges.length !== manifest.counts.edges) throw differs('edge count', content.edges.length, manifest.counts.edges);
  if (content.vectors.length !== manifest.counts.vectors) throw differs('vector count', content.vectors.length, manifest.counts.vectors);
}

/** The same rules `HybridMemory.open` applies to a stored database, applied before the database is opened. */
function checkModel(method: string, manifest: SnapshotManifest, expect: SnapshotExpectations): void {
  const embedder = expect.embedder ?? null;
  if (embedder !== null && (typeof embedder !== 'object' || typeof embedder.id !== 'string' || !Number.isSafeInteger(embedder.dim))) {
    throw invalid(method, 'options.embedder must be an Embedder ({ id, dim, embed }) or null', embedder);
  }
  if (expect.dim !== undefined && (!Number.isSafeInteger(expect.dim) || expect.dim < 1)) throw invalid(method, 'options.dim must be a positive integer', expect.dim);
  const conflict = modelConflict(method, { holder: 'the snapshot', dim: manifest.dim, embedderId: manifest.embedderId }, { dim: expect.dim, embedder });
  if (conflict) throw conflict;
}

const LIMIT_KEYS = Object.keys(SNAPSHOT_LIMITS);

function resolveLimits(method: string, value: unknown): ResolvedLimits {
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

