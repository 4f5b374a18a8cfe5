/**
 * hnswlib's search (`searchKnn`: a greedy descent through the upper levels, then a beam of width
 * `ef` over level 0) on link lists read out of its saved bytes (`hnsw-links.ts`), scoring nodes
 * with whatever estimate the caller gives: the dense leg's int8 codes, re-ranked exactly after.
 * Scores are inner products, higher is better (hnswlib minimises `1 − q·v`, the same order).
 */
import { heapPush } from '../../util/top-heap.js';
import type { HnswLinks } from './hnsw-links.js';

/** Writes the estimated inner products with the query of `nodes[0…count)` to `out`: a batch per step of the walk, so one kernel call scores a node's neighbours. */
export type NodeScores = (nodes: Int32Array, count: number, out: Float64Array) => void;

/** The walk's answer: `nodes[0…count)` with their `scores`, in no particular order. */
export interface WalkResult {
  nodes: Int32Array;
  scores: Float64Array;
  count: number;
}

export class HnswWalk {
  readonly links: HnswLinks;
  /** Per node, the search that last met it: one increment forgets every visit. */
  readonly #visited: Uint32Array;
  #epoch = 0;
  /** Candidates to expand, as a min-heap of negated scores (the best on top), grown as needed. */
  #candidateScores = new Float64Array(256);
  #candidateNodes = new Int32Array(256);
  #scores = new Float64Array(0);
  #nodes = new Int32Array(0);
  /** A node's neighbours being scored, and their scores. */
  readonly #batch: Int32Array;
  readonly #batchScores: Float64Array;

  constructor(links: HnswLinks) {
    this.links = links;
    this.#visited = new Uint32Array(links.count);
    this.#batch = new Int32Array(Math.max(links.maxM, links.maxM0, 1));
    this.#batchScores = new Float64Array(this.#batch.length);
  }

  /**
   * Up to `ef` nodes that `keep` accepts, the best the walk meets; nodes it refuses (deleted,
   * filtered out) still route the walk, as in hnswlib. `filtering` says whether `keep` can refuse
   * any, which lets the beam stop as hnswlib's does when nothing is filtered.
   */
  search(score: NodeScores, ef: number, keep: (node: number) => boolean, filtering: boolean): WalkResult {
    const { links } = this;
    if (this.#scores.length < ef) {
      this.#scores = new Float64Array(ef);
      this.#nodes = new Int32Array(ef);
    }
    const scores = this.#scores;
    const nodes = this.#nodes;
    if (links.count === 0) return { nodes, scores, count: 0 };
    const batch = this.#batch;
    const batchScores = this.#batchScores;
    let current = links.entry;
    batch[0] = current;
    score(batch, 1, batchScores);
    let best = batchScores[0]!;
    const width = 1 + links.maxM;
    for (let level = links.maxLevel; level > 0; level--) {
      for (let changed = true; changed; ) {
        changed = false;
        const at = links.upperAt[current]! + (level - 1) * width;
        const n = links.upper[at]!;
        batch.set(links.upper.subarray(at + 1, at + 1 + n));
        score(batch, n, batchScores);
        for (let j = 0; j < n; j++) {
          if (batchScores[j]! > best) {
            best = batchScores[j]!;
            current = batch[j]!;
            changed = true;
          }
        }
      }
    }
    return this.#beam(score, ef, keep, filtering, current, best);
  }

  #beam(score: NodeScores, ef: number, keep: (node: number) => boolean, filtering: boolean, start: number, startScore: number): WalkResult {
    const { level0, level0Width: width } = this.links;
    const visited = this.#visited;
    const epoch = this.#nextEpoch();
    const scores = this.#scores;
    const nodes = this.#nodes;
    const batch = this.#batch;
    const batchScores = this.#batchScores;
    let size = 0;
    let bar = -Infinity;
    let pending = 0;
    visited[start] = epoch;
    pending = this.#pushCandidate(pending, startScore, start);
    if (keep(start)) {
      size = heapPush(scores, nodes, size, ef, startScore, start);
      bar = scores[0]!;
    }
    while (pending > 0) {
      const top = -this.#candidateScores[0]!;
      if (top < bar && (size === ef || !filtering)) break;
      const node = this.#candidateNodes[0]!;
      pending = this.#popCandidate(pending);
      const at = node * width;
      const n = level0[at]! & 0xffff;
      let count = 0;
      for (let j = 1; j <= n; j++) {
        const next = level0[at + j]!;
        if (visited[next] === epoch) continue;
        visited[next] = epoch;
        batch[count++] = next;
      }
      if (count === 0) continue;
      score(batch, count, batchScores);
      for (let j = 0; j < count; j++) {
        const s = batchScores[j]!;
        if (size < ef || s > bar) {
          const next = batch[j]!;
          pending = this.#pushCandidate(pending, s, next);
          if (keep(next)) {
            size = heapPush(scores, nodes, size, ef, s, next);
            bar = scores[0]!;
          }
        }
      }
    }
    return { nodes, scores, count: size };
  }

  #nextEpoch(): number {
    if (++this.#epoch === 0x1_0000_0000) {
      this.#visited.fill(0);
      this.#epoch = 1;
    }
    return this.#epoch;
  }

  #pushCandidate(size: number, s: number, node: number): number {
    if (size === this.#candidateScores.length) {
      const scores = new Float64Array(size * 2);
      scores.set(this.#candidateScores);
      const nodes = new Int32Array(size * 2);
      nodes.set(this.#candidateNodes);
      this.#candidateScores = scores;
      this.#candidateNodes = nodes;
    }
    return heapPush(this.#candidateScores, this.#candidateNodes, size, size + 1, -s, node);
  }

  #popCandidate(size: number): number {
    const last = size - 1;
    if (last > 0) heapPush(this.#candidateScores, this.#candidateNodes, last, last, this.#candidateScores[last]!, this.#candidateNodes[last]!);
    return last;
  }
}
