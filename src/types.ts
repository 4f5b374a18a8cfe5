/**
 * Public data shapes. Times are epoch milliseconds everywhere on output; inputs also accept a
 * `Date` or an ISO-8601 string. Vectors are `Float32Array`s of the store's dimension.
 */
import type { Direction, LegName, MemoryStatus } from './legs/types.js';

export type { Direction, LegName, MemoryStatus };
export type TimeInput = number | string | Date;
/**
 * Stored as JSON: null, booleans, finite numbers, strings, arrays and plain objects, with a Date
 * kept as its ISO-8601 string. Anything JSON would drop or change is INVALID_ARGUMENT.
 */
export type Metadata = Record<string, unknown>;

/** What `recall` searches with: every leg fused, or one leg alone. */
export const RECALL_MODES = ['hybrid', 'vector', 'lexical', 'graph'] as const;
export type RecallMode = (typeof RECALL_MODES)[number];
export type FusionMethod = 'convex' | 'rrf' | 'linear';

/**
 * How far a memory has been indexed: `stored` (committed), `lexical` (BM25, graph and time see it),
 * `semantic` (its vector is in the dense leg).
 */
export type Readiness = 'stored' | 'lexical' | 'semantic';

export interface MemoryInput {
  text: string;
  /** Your identifier; when omitted, a UUID version 7 (time-ordered) is generated. */
  id?: string | undefined;
  /** `null` or omitted: none. A record's `kind`, `domain` and `metadata` can be stored as they are. */
  kind?: string | null | undefined;
  domain?: string | null | undefined;
  /** `null` or omitted: `{}`. */
  metadata?: Metadata | null | undefined;
  /** When the memory was recorded. Default: `now()`. */
  createdAt?: TimeInput | undefined;
  /** When the fact became true. Default: `createdAt`. */
  validFrom?: TimeInput | undefined;
  /** When the fact stopped being true; `null` or omitted: still true. */
  validTo?: TimeInput | null | undefined;
  /** A precomputed vector; skips the embedder for this memory. */
  embedding?: Float32Array | undefined;
}

/** What every answer shows of a memory: `get()`'s record and each recall hit. */
export interface MemoryFields {
  id: string;
  text: string;
  kind: string | null;
  domain: string | null;
  metadata: Metadata;
  createdAt: number;
  validFrom: number;
  validTo: number | null;
  /** Status at the reference time: now (see `HybridMemory.open({ now })`), or a recall's `asOf`. */
  status: MemoryStatus;
}

export interface MemoryRecord extends MemoryFields {
  readiness: Readiness;
}

/**
 * Fields `update()` may change. A field that is absent or `undefined` is left as it is, so
 * `update(id, { text, kind: maybeKind })` keeps the kind when `maybeKind` is undefined; `null`
 * clears what can be cleared: `kind` and `domain` to none, `metadata` to `{}`, and `validTo`
 * reopens a closed validity window. `text`, `validFrom` and `embedding` cannot be cleared.
 */
export interface MemoryPatch {
  text?: string | undefined;
  kind?: string | null | undefined;
  domain?: string | null | undefined;
  metadata?: Metadata | null | undefined;
  validFrom?: TimeInput | undefined;
  validTo?: TimeInput | null | undefined;
  embedding?: Float32Array | undefined;
}

export interface Edge {
  id: string;
  from: string;
  to: string;
  type: string;
  weight: number;
  metadata: Metadata;
  validFrom: number;
  createdAt: number;
}

export interface RelateOptions {
  /** Strength in (0, ∞); breaks ties between equally distant graph hits. Default 1. */
  weight?: number | undefined;
  metadata?: Metadata | undefined;
  validFrom?: TimeInput | undefined;
}

/** Canonical edge types. Any non-empty string is accepted; these are the ones the library knows. */
export const EDGE_TYPES = {
  /** `relate(newer, older, SUPERSEDES)` closes `older`'s validity at `newer.validFrom`. */
  SUPERSEDES: 'SUPERSEDES',
  DEPENDS_ON: 'DEPENDS_ON',
  DERIVED_FROM: 'DERIVED_FROM',
  RELATES_TO: 'RELATES_TO',
  IMPLEMENTS: 'IMPLEMENTS',
  EXTENDS: 'EXTENDS',
  REFERENCES: 'REFERENCES',
  CONTRADICTS: 'CONTRADICTS',
  SUPPORTS: 'SUPPORTS',
} as const;

export interface LegWeights {
  vector: number;
  lexical: number;
  graph: number;
  time: number;
}

export interface RecallFilter {
  /** Only these kinds; `null`, alone or among them, keeps the memories without a kind. */
  kind?: string | null | Array<string | null> | undefined;
  /** Only these domains; `null` keeps the memories without a domain. */
  domain?: string | null | Array<string | null> | undefined;
  /** Every key must equal (strict equality on JSON scalars) the memory's metadata value. */
  metadata?: Metadata | undefined;
}

export interface RecallOptions {
  /** Number of hits. Default 10. */
  k?: number | undefined;
  mode?: RecallMode | undefined;
  /** Per-leg weights in the fusion. Default vector 1, lexical 1, graph 4, time 0.1. */
  weights?: { [L in keyof LegWeights]?: number | undefined } | undefined;
  /** RRF constant: score = Σ w / (rrfK + rank). Default 60. */
  rrfK?: number | undefined;
  /**
   * `convex` (default): weighted sum of each leg's min-max normalised scores. `rrf`: weighted
   * Reciprocal Rank Fusion. `linear`: α·cosine + β·graph proximity.
   */
  fusion?: FusionMethod | undefined;
  /** Linear fusion: weight of the dense (or, without vectors, lexical) score. Default 0.7. */
  alpha?: number | undefined;
  /** Linear fusion: weight of the graph proximity. Default 0.3. */
  beta?: number | undefined;
  /** Graph anchors; default the top 3 of the fused vector+lexical list. */
  anchors?: string[] | undefined;
  /** Graph hops from the anchors. Default 2. */
  depth?: number | undefined;
  /** Edge types the graph walk may follow; default all. */
  edgeTypes?: string[] | undefined;
  /** Answer as of this time: only memories recorded by then, validity judged then. */
  asOf?: TimeInput | undefined;
  /** Recency half-life in days for exp(−age/halfLife). Default 180. */
  halfLifeDays?: number | undefined;
  /**
   * Hybrid mode: factor applied to the fused score of memories that are not true at the
   * reference time (superseded, expired or not yet valid). Default 0.8; 1 turns it off. A memory
   * that supersedes a hit is first lifted to at least that hit's score.
   */
  historicalWeight?: number | undefined;
  filter?: RecallFilter | undefined;
  /** Include memories that are no longer valid (marked `historical`). Default true. */
  includeHistorical?: boolean | undefined;
  /** Attach per-leg ranks and scores (`legs`). Default true. */
  explain?: boolean | undefined;
  /**
   * Hybrid mode: rerank the fused top candidates by query-term coverage and verbatim matches of
   * identifiers, numbers, dates and versions (deterministic, no model). Default false.
   */
  rerank?: boolean | undefined;
  /**
   * Graph leg: also walk the entity graph (memories linked by the names, identifiers and quoted
   * phrases their texts share, and conversation turns by their neighbours) by personalized
   * PageRank from the best vector+lexical candidates and the query's own entities. Default true.
   */
  entityGraph?: boolean | undefined;
  /**
   * Graph leg: read questions about a typed relation ("what does X depend on?", "what replaced
   * X?", "what is X ultimately derived from?") and put the memories that relation reaches from X
   * first, nearest first, or its far ends first when the question says "ultimately", "eventually",
   * "in the end" or "root". A query that names no relation, or one the store has no such edge
   * for, is unaffected. Default true.
   */
  relationQuestions?: boolean | undefined;
  /**
   * Hybrid score fusion: a memory said by a person the query names (its `metadata.speaker`, or a
   * transcript label opening its text, "Maria: …") gets one more vote, as strong as a leg's best
   * candidate's. Default true.
   */
  speakers?: boolean | undefined;
  /** Precomputed query vector; skips embedding the query. */
  queryEmbedding?: Float32Array | undefined;
}

export type RecallDefaults = Omit<RecallOptions, 'anchors' | 'asOf' | 'filter' | 'queryEmbedding'>;

export interface HitLegs {
  vector?: { rank: number; score: number } | undefined;
  lexical?: { rank: number; score: number; matched: string[] } | undefined;
  /** `relation`: the edge type of the question the query asks ("what does X depend on?"); the hit is one of its answers, `via` the path from X. */
  graph?: { rank: number; distance: number; via: string[]; relation?: string | undefined } | undefined;
  time?: { rank: number; weight: number } | undefined;
  /** Said by this person, whom the query names: a vote in the fusion (see `speakers`). */
  speaker?: string | undefined;
}

export interface Hit extends MemoryFields {
  score: number;
  legs: HitLegs;
}

/** What a recall could and could not search. */
export interface RecallReport {
  hits: Hit[];
  /** Memories not yet searchable by the dense leg (embedding pending or failed). */
  pendingSemantic: number;
  legsRun: LegName[];
}

export interface CompareResult {
  vector: Hit[];
  lexical: Hit[];
  graph: Hit[];
  hybrid: Hit[];
}

export interface TraceOptions {
  depth?: number | undefined;
  edgeTypes?: string[] | undefined;
  direction?: Direction | undefined;
}

export interface TraceNode {
  id: string;
  text: string;
  distance: number;
  status: MemoryStatus;
}

export interface TraceResult {
  nodes: TraceNode[];
  edges: Edge[];
}

export interface Stats {
  memories: number;
  edges: number;
  current: number;
  historical: number;
  readiness: Record<Readiness, number>;
  dim: number | null;
  embedderId: string | null;
  schemaVersion: number;
  edgeTypes: Record<string, number>;
  /** Bytes held by the dense index (vectors only). */
  vectorBytes: number;
  storage: string;
}
