/**
 * The seam every retrieval leg sits behind. Inside the engine a memory is a dense integer `no`
 * (its SQLite rowid); external ids and rows are looked up only for the final top-k.
 * Legs are synchronous: their work is CPU-bound and must not interleave with writes.
 */

/** The retrieval legs, in the order their explanations are listed. */
export const LEG_NAMES = ['vector', 'lexical', 'graph', 'time'] as const;
export type LegName = (typeof LEG_NAMES)[number];

/** Which edges a graph walk follows, seen from the memory it stands on. */
export type Direction = 'out' | 'in' | 'both';

/** `current`: valid at the reference time and not superseded. `historical`: no longer (or not yet) true. */
export type MemoryStatus = 'current' | 'historical';

/** A ranked candidate, best first in any list a leg returns. */
export interface Scored {
  no: number;
  score: number;
}

/** Lets the engine restrict a search (filters, as-of) without the leg knowing why. */
export type Accept = (no: number) => boolean;

/** Dense leg: inner product over L2-normalised vectors (the caller normalises). */
export interface VectorIndex {
  readonly kind: string;
  readonly dim: number;
  readonly size: number;
  /** Adds or replaces the vector of `no`. */
  add(no: number, vector: Float32Array): void;
  remove(no: number): boolean;
  has(no: number): boolean;
  /** Top `k` by inner product, best first; `accept` filters candidates before the cut. */
  search(query: Float32Array, k: number, accept?: Accept): Scored[];
  clear(): void;
  /** Bytes held for vectors (for stats and benchmarks). */
  byteSize(): number;
  /** Persistable form; `load*` on the implementation restores it without rebuilding. */
  save(): Uint8Array;
}

export interface LexicalHit extends Scored {
  /** Query terms (as indexed) that matched this memory. */
  matched: string[];
}

/** Lexical leg: BM25 over the memory text. */
export interface LexicalIndex {
  readonly size: number;
  /** Adds or replaces the text of `no`. */
  add(no: number, text: string): void;
  remove(no: number): boolean;
  has(no: number): boolean;
  search(query: string, k: number, accept?: Accept): LexicalHit[];
  clear(): void;
  save(): Uint8Array;
}
