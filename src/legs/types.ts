/**
 * The seam every retrieval leg sits behind. Inside the engine a memory is a dense integer `no`
 * (its SQLite rowid); external ids and rows are looked up only for the final top-k.
 * Legs are synchronous: their work is CPU-bound and must not interleave with writes.
 */
import type { Logger } from '../logger.js';
import type { PartedBytes } from '../util/parted-bytes.js';

/** The retrieval legs, in the order their explanations are listed. */
export const LEG_NAMES = ['vector', 'lexical', 'graph', 'time'] as const;
export type LegName = (typeof LEG_NAMES)[number];

/** Which edges a graph walk follows, seen from the memory it stands on. */
export const DIRECTIONS = ['out', 'in', 'both'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** `current`: valid at the reference time and not superseded. `historical`: no longer (or not yet) true. */
export type MemoryStatus = 'current' | 'historical';

/** A ranked candidate, best first in any list a leg returns. */
export interface Scored {
  no: number;
  score: number;
}

/** Lets the engine restrict a search (filters, as-of) without the leg knowing why. */
export type Accept = (no: number) => boolean;

/**
 * Reads the stored vectors of `nos` into `into`, back to back in the order asked: what a dense
 * index that no longer holds full-precision copies re-scores from. Returns how many it found; a
 * number the store does not hold gets NaN components (it then scores like a NaN vector, last).
 */
export type VectorReader = (nos: readonly number[], into: Float32Array) => number;

/** Dense leg: inner product over L2-normalised vectors (the caller normalises). */
export interface VectorIndex {
  readonly kind: string;
  readonly dim: number;
  readonly size: number;
  /** Adds or replaces the vector of `no`. */
  add(no: number, vector: Float32Array): void;
  /**
   * `add` for `nos.length` vectors laid back to back in `vectors`: how an open hands over a store's
   * vectors, without a typed-array view per vector for the garbage collector to promote and trace.
   * `vectors` may be a view of the storage engine's memory, valid only during the call: copy what
   * is kept.
   */
  addPacked?(nos: ArrayLike<number>, vectors: Float32Array): void;
  /**
   * What the index derives per vector at `addPacked` (the flat scan's int8 codes and bounds), by
   * ascending number, for the store to keep beside its vectors; null when it has none to save.
   */
  saveQuantized?(): Uint8Array | null;
  /** Offers `saveQuantized` bytes for the `addPacked` calls that follow (an open), so they copy instead of recompute; null withdraws them. */
  useQuantized?(bytes: Uint8Array | null): void;
  /**
   * Fills an empty index from `saveQuantized` bytes alone, when it would not keep f32 copies
   * anyway, so an open need not read the vectors: true if it did, false to have them read and
   * added as usual. The bytes may come in parts, each copied to its place as it is read. Throws
   * `CORRUPT` on bytes that do not read.
   */
  adoptQuantized?(bytes: Uint8Array | PartedBytes): boolean;
  remove(no: number): boolean;
  has(no: number): boolean;
  /**
   * Top `k` by inner product, best first; `accept` filters candidates before the cut. `breadth`
   * (at least k) is how many candidates an approximate index weighs to find them, as if asked for
   * that many: the same top k, without re-scoring the rest. An exact index ignores it.
   */
  search(query: Float32Array, k: number, accept?: Accept, breadth?: number): Scored[];
  /**
   * Whether `search` finds the exact top k now (a scan), so its top k is the first k of any deeper
   * search; an approximate index (HNSW) finds its top k better when asked for more. Absent: not known to be exact.
   */
  readonly exact?: boolean | undefined;
  clear(): void;
  /** Bytes held for vectors (for stats and benchmarks). */
  byteSize(): number;
  /** Persistable form; `load*` on the implementation restores it without rebuilding. */
  save(): Uint8Array;
  /** Writes what it held back from a deferred store (`SavedBytes.deferred`): before an export. */
  flush?(): void;
  /** Saves what background work has not saved yet and stops it (before the store's database closes). */
  close?(): void;
  /** Stops background work without saving (before an in-memory database closes: nothing would read it). */
  dispose?(): void;
}

export interface LexicalHit extends Scored {
  /** Query terms (as indexed) that matched this memory. */
  matched: string[];
}

/** Lexical leg: BM25 over the memory text. */
export interface LexicalIndex {
  readonly size: number;
  /** Adds the text of `no`, which is not indexed yet (a changed text is removed first). */
  add(no: number, text: string): void;
  /** Removes `no`, given the text it was indexed with (the store keeps the text, the index need not); false if it was not indexed. */
  remove(no: number, text: string): boolean;
  has(no: number): boolean;
  search(query: string, k: number, accept?: Accept): LexicalHit[];
  clear(): void;
  save(): Uint8Array;
  /** Folds many changes since the last fold into the index's compact form, as a save would (for a store that does not save); whether it folded. Answers are unchanged. */
  compact?(): boolean;
}

/** Edge data the graph leg keeps. */
export interface GraphEdgeAttributes {
  type: string;
  weight: number;
  createdAt: number;
}

/** What a walk may use: which edges (by type, by recording time) and through which nodes. */
export interface WalkOptions {
  depth: number;
  direction: Direction;
  /** Edge types to follow; all when absent or empty. */
  edgeTypes?: readonly string[] | undefined;
  /** Only edges recorded at or before this time (as-of queries). */
  recordedBy?: number | undefined;
  /** Nodes the walk may enter (e.g. memories that existed as of the query time). */
  traversable?: Accept | undefined;
}

export interface Reached {
  no: number;
  distance: number;
  /** Strongest edge weight on the arrival hop; ranks nodes at equal distance. */
  weight: number;
  /** Node numbers from the anchor up to (not including) this node. */
  via: number[];
  /** Edge keys on the path, anchor first. */
  edges: string[];
}

export interface GraphHit extends Reached {
  /** Proximity 1 / (1 + distance). */
  score: number;
  /** Position of the anchor this memory was reached from, 0 for the strongest. */
  anchorRank: number;
}

/** One way a walk arrives at a node: over `edge`, from node `from`. */
export interface ArrivalEdge {
  weight: number;
  from: number;
  createdAt: number;
  edge: string;
}

/**
 * Whether arrival `a` beats `b` at the same distance: the heavier edge, then the smaller node it
 * comes from, then the edge recorded first, then the smaller edge id. Every engine's walk chooses
 * by this, so the choice depends neither on the order edges were added in nor on the engine.
 */
export function arrivesBefore(a: ArrivalEdge, b: ArrivalEdge): boolean {
  if (a.weight !== b.weight) return a.weight > b.weight;
  if (a.from !== b.from) return a.from < b.from;
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt;
  return a.edge < b.edge;
}

/** Graph leg order: nearer first, then reached from a stronger anchor, then over a heavier edge. */
export function compareHits(a: GraphHit, b: GraphHit): number {
  return a.distance - b.distance || a.anchorRank - b.anchorRank || b.weight - a.weight || a.no - b.no;
}

/** Hits the graph leg cannot tell apart: they share a rank. */
/** An edge as the graph leg takes it. */
export interface GraphEdge extends GraphEdgeAttributes {
  id: string;
  from: number;
  to: number;
}

/** Where a graph leg filled in the background takes its edges from: the store. */
export interface EdgeSource {
  /** The store held no edge when this source was made: a fill has nothing to take. */
  readonly empty: boolean;
  /** The next edges of those the store held when this source was made, in the order stored; none once all were handed out. */
  next(): GraphEdge[];
  /** Every edge the store holds now with an end in `nos`. */
  around(nos: readonly number[]): GraphEdge[];
}

export function sameGraphRank(a: GraphHit, b: GraphHit): boolean {
  return a.distance === b.distance && a.anchorRank === b.anchorRank && a.weight === b.weight;
}

/** The memories a graph leg walks between, as whoever keeps them answers for them. */
export interface NodeSet {
  has(no: number): boolean;
  readonly size: number;
}

/** Graph leg: typed, directed edges between memories (several between the same two allowed). */
export interface GraphLeg {
  /** Edges held. */
  readonly size: number;
  addNode(no: number): void;
  removeNode(no: number): void;
  addEdge(id: string, from: number, to: number, attributes: GraphEdgeAttributes): void;
  removeEdge(id: string): void;
  clear(): void;
  /** Every node within `options.depth` of an anchor, by its shortest arrival. */
  walk(anchors: readonly number[], options: WalkOptions): Map<number, Reached>;
  /** The top `k` reached nodes (anchors excluded), in `compareHits` order. */
  search(anchors: readonly number[], options: WalkOptions & { accept?: Accept | undefined; k: number }): GraphHit[];
  /** The shortest path of edges from `from` to `to`, as node numbers, or null. */
  path(from: number, to: number, options: Omit<WalkOptions, 'depth'> & { maxDepth?: number | undefined }): number[] | null;
  /** Nodes with an edge of `type` into `no`. */
  sources(no: number, type: string): number[];
  /**
   * Takes every edge of `source` in the background, in time slices, instead of at once (an open:
   * 50k edges were ~0.2 s of a cold open at 100k memories). Until it holds them all, reads are
   * answered from the edges `source` has around the nodes they start from, and changes apply
   * as usual (the store already holds them, so the rest of the fill agrees). Without it, the
   * caller adds the edges itself.
   */
  fill?(source: EdgeSource, logger: Logger): void;
  /** Stops a fill (the database is about to close). */
  stop?(): void;
}

/** How the entity walk runs. */
export interface EntityWalkOptions {
  k: number;
  accept?: Accept | undefined;
  /**
   * Probability of following a link rather than jumping back to the seeds; default 0.6. HippoRAG
   * uses 0.5; 0.6 lets a little more reach the memories a seed's rare entities lead to
   * (HotpotQA-100 all-supporting@10 0.88 → 0.92 with graph weight 4, LoCoMo-dev within 0.01).
   */
  damping?: number | undefined;
  /** Power-iteration steps; two steps are one hop memory → entity → memory. */
  steps?: number | undefined;
  /**
   * Mass below which a node passes nothing on (push-style PageRank's residual threshold); default
   * 1e-4. On SciFact's long abstracts the full walk touched most of the store (hybrid p50 16.6 ms);
   * at 1e-4 it is 5.6 ms, and the default hybrid's recall@10, all@10 and nDCG@10 are unchanged on
   * LoCoMo-dev, HotpotQA-100, SciFact and the labelled suite.
   */
  tolerance?: number | undefined;
}

/** The graph leg's entity graph: memories linked through the entities their text names. */
export interface EntityLeg {
  readonly size: number;
  /** Adds or replaces the entities of `no`; `turn` places it in a conversation. */
  add(no: number, text: string, turn?: { session: string; turn: number } | null): void;
  remove(no: number): void;
  clear(): void;
  /** The indexed entities a text names. */
  known(text: string): number[];
  /** Memories ranked by a walk from `seeds` and the query's entities. */
  walk(seeds: ReadonlyArray<{ no: number; weight: number }>, queryEntities: readonly number[], options: EntityWalkOptions): Scored[];
  /** Persistable form; `LegFactory.loadEntities` restores it without re-reading the texts. */
  save(): Uint8Array;
  /** Folds many changes since the last fold into the index's compact form, as a save would (for a store that does not save); whether it folded. Answers are unchanged. */
  compact?(): boolean;
}

/** A vector index's saved bytes, kept by the store (a blob in its own database). */
export interface SavedBytes {
  /**
   * Bytes are written only when the index is asked to (`VectorIndex.flush`, before an export), not
   * as soon as they are made: an in-memory database, which only an export outlives, would hold
   * them for nothing.
   */
  readonly deferred?: boolean | undefined;
  /** What was kept, in a buffer of its own: the index may keep views of it rather than copies. */
  read(): Uint8Array | null;
  /**
   * Keeps `bytes` (one buffer, or pieces valid for this call) in place of what was kept. A
   * property, not a method, so an implementation that takes only one buffer does not type-check.
   */
  write: (bytes: Uint8Array | PartedBytes) => void;
}

/**
 * How a store gets its legs. The memory core is handed one and never names a leg class, so an
 * entry point (or a test) chooses the implementations; `src/legs/default.ts` is the library's.
 */
export interface LegFactory {
  /**
   * A dense index of `dim`-d vectors; `saved` is where it may keep a derived form between
   * sessions, `read` where it may read the stored vectors instead of keeping its own copy.
   */
  vector(dim: number, saved: SavedBytes, read?: VectorReader): VectorIndex;
  lexical(): LexicalIndex;
  /** A lexical index from `LexicalIndex.save()`'s bytes, whole or in parts; throws when they do not load. */
  loadLexical(bytes: Uint8Array | PartedBytes): LexicalIndex;
  /** `nodes`: the store's memories, which the leg reads instead of keeping its own copy. */
  graph(nodes?: NodeSet): GraphLeg;
  entities(): EntityLeg;
  /** An entity index from `EntityLeg.save()`'s bytes; throws when they do not load. */
  loadEntities(bytes: Uint8Array): EntityLeg;
}

/** The WebAssembly SIMD kernel of the exact dense scan: a precompiled module or its bytes. */
export type VectorKernelSource = CompiledModule | ArrayBuffer | Uint8Array;

/**
 * `WebAssembly.Module`, read off the app's globals rather than named, so that the declarations
 * compile where the WebAssembly types are not declared (a Node app's types without the DOM). Its
 * declared interface is empty, so `object` keeps a string or a number from passing for one.
 */
type CompiledModule = typeof globalThis extends { WebAssembly: { Module: abstract new (...args: never[]) => infer M } } ? M & object : never;

/** What `open()` takes for `vectorKernel`: a compiled module (where WebAssembly exists) or bytes. */
export function isKernelSource(value: unknown): value is VectorKernelSource {
  return value instanceof ArrayBuffer || value instanceof Uint8Array || (typeof WebAssembly !== 'undefined' && value instanceof WebAssembly.Module);
}

/** When and how the dense leg switches from the exact scan to HNSW. */
export interface AnnOptions {
  /** Vectors at which HNSW takes over. Default `ANN_THRESHOLD`; `Infinity` keeps the exact scan. */
  threshold?: number | undefined;
  /** HNSW links per node. Default 16. */
  m?: number | undefined;
  /** HNSW build candidate list. Default 100. */
  efConstruction?: number | undefined;
  /** HNSW search candidate list. Default 64. */
  efSearch?: number | undefined;
  /**
   * Quiet time after the last change before the serving graph is brought up to date (and saved
   * again), once the writes it does not hold as built are a hundredth of it; from a twentieth on it
   * is brought up to date at once. Until then they are scored in full at every search. Default 2000 ms.
   */
  saveDelayMs?: number | undefined;
}

/** What the library's own legs are configured with (`open()`'s `vectorKernel`, `ann` and `vectorThreads`). */
export interface LegChoice {
  /** The kernel, or `false` for the plain JavaScript scan; absent: the bundled kernel. */
  vectorKernel?: VectorKernelSource | false | undefined;
  /** `false` keeps the exact scan at any size; otherwise HNSW takes over past its threshold. */
  ann?: AnnOptions | false | undefined;
  /** `false` keeps every int8 pass of the bundled kernel on the calling thread. */
  vectorThreads?: boolean | undefined;
  logger: Logger;
}

/** Builds a store's `LegFactory` as it opens (loading what the legs need, such as the vector kernel). */
export type ChooseLegs = (choice: LegChoice) => Promise<LegFactory>;
