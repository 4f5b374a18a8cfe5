/**
 * The dense leg's HNSW graph as it serves: hnswlib's link lists (read out of the bytes it saved),
 * walked with the flat scan's int8 codes, the walk's best re-ranked exactly by the scan. hnswlib
 * itself is gone by then: its module held a float32 copy of every vector (~165 MiB at 100k), where
 * the links take ~14 MiB and the codes are the scan's own.
 *
 * Writes do not change the graph. A vector added or replaced joins the `tail`, which every search
 * scores in full; a vector removed or replaced leaves its node as a ghost, which keeps routing
 * walks with the codes it had (as hnswlib's deleted nodes do) but is never returned. The adaptive
 * index brings the graph up to date through hnswlib once they are many (`stale`).
 */
import { NumberSlots } from '../../util/number-slots.js';
import type { Accept, Scored } from '../types.js';
import { REBUILD_DELETED_RATIO, type Repair } from './ann-repair.js';
import type { FlatVectorIndex } from './flat-index.js';
import { readHnswLinks, type HnswLinks } from './hnsw-links.js';
import { HnswWalk, type NodeScores } from './hnsw-walk.js';
import { META, quantizeVector, strideOf } from './quantize.js';

/**
 * Writes a serving graph does not hold as built (its tail and the memories removed since), as a
 * share of the vectors, from which it asks to be brought up to date once writes go quiet; from
 * `FORCED_SHARE` on, at once. Every search scores the whole tail (~0.25 µs a vector in plain
 * JavaScript, less with the kernel), and bringing a graph up to date restores it into hnswlib,
 * re-adds the tail (about a millisecond a vector at 100k) and saves it (about a second).
 */
const QUIET_SHARE = 0.01;
const FORCED_SHARE = 0.05;
/** Below this many stale writes a graph never asks on their account (small graphs). */
const STALE_MIN = 16;

export class WalkedGraph {
  readonly #links: HnswLinks;
  readonly #walk: HnswWalk;
  readonly #dim: number;
  readonly #stride: number;
  /** Per memory number, its node in the saved graph (unless hnswlib had marked it deleted); live while the store holds that vector. */
  readonly #nodeOf = new NumberSlots();
  #live = 0;
  /** Per node, where its codes are in `#ghostCodes`; −1 while it is live. */
  readonly #ghostOf: Int32Array;
  #ghostCodes = new Int8Array(0);
  #ghostScales = new Float64Array(0);
  #ghosts = 0;
  /** Memories of the saved graph the store no longer holds. */
  readonly #gone = new Set<number>();
  readonly #tail = new Set<number>();
  /** A batch's live nodes: their memory numbers, places in the batch and estimates. */
  readonly #liveNos: Int32Array;
  readonly #livePlaces: Int32Array;
  readonly #liveScores: Float64Array;

  private constructor(links: HnswLinks, dim: number) {
    this.#links = links;
    this.#walk = new HnswWalk(links);
    this.#dim = dim;
    this.#stride = strideOf(dim);
    this.#ghostOf = new Int32Array(links.count).fill(-1);
    const batch = Math.max(links.maxM, links.maxM0, 1);
    this.#liveNos = new Int32Array(batch);
    this.#livePlaces = new Int32Array(batch);
    this.#liveScores = new Float64Array(batch);
  }

  /**
   * The graph saved as `graph` (`stripVectors`), for the vectors `flat` holds; `lag` says which of
   * them the graph lacks or holds with an older vector, and which of its memories are gone. Nodes
   * whose vectors the store no longer has become ghosts: one hnswlib marked deleted keeps the codes
   * of the vector saved with it, and one changed since the save those of the vector held now, or
   * none (it routes as a vector of zeros) once removed.
   */
  static read(graph: Uint8Array, dim: number, flat: FlatVectorIndex, lag: Repair = { pending: [], removed: [] }): WalkedGraph {
    const links = readHnswLinks(graph, dim);
    const walked = new WalkedGraph(links, dim);
    const pending = new Set(lag.pending);
    const removed = new Set(lag.removed);
    const meta = new Float64Array(META);
    let kept = 0;
    for (let node = 0; node < links.count; node++) {
      const no = links.labels[node]!;
      if (links.deleted[node] === 1) {
        const g = walked.#newGhost(node);
        quantizeVector(links.kept.subarray(kept * dim, ++kept * dim), walked.#ghostCodes, g * walked.#stride, walked.#stride, meta, 0);
        walked.#ghostScales[g] = meta[0]!;
        continue;
      }
      walked.#nodeOf.set(no, node);
      if (!pending.has(no) && !removed.has(no) && flat.has(no)) {
        walked.#live++;
        continue;
      }
      if (!pending.has(no)) walked.#gone.add(no);
      const g = walked.#newGhost(node);
      walked.#ghostScales[g] = flat.estimates.codesOf(no, walked.#ghostCodes, g * walked.#stride) ?? 0;
    }
    for (const no of lag.pending) walked.#tail.add(no);
    return walked;
  }

  /** Vectors the graph answers for: its live nodes and the tail. */
  get size(): number {
    return this.#live + this.#tail.size;
  }

  /** Live nodes: the vectors in the graph proper. */
  get indexed(): number {
    return this.#live;
  }

  /** Writes the graph does not hold as built (the tail, and the memories removed since hnswlib saved it): what bringing it up to date redoes. */
  get stale(): number {
    return this.#tail.size + this.#gone.size;
  }

  /** Share of the graph's nodes that only route (ghosts), which a rebuild would drop. */
  get #ghostRatio(): number {
    return this.#links.count === 0 ? 0 : this.#ghosts / this.#links.count;
  }

  /** Before `flat` stores a vector for `no`: a live node for it keeps the codes it had, as a ghost, and `no` joins the tail. */
  willAdd(no: number, flat: FlatVectorIndex): void {
    this.#bury(no, flat);
    this.#gone.delete(no);
    this.#tail.add(no);
  }

  /** Before `flat` drops `no`. */
  willRemove(no: number, flat: FlatVectorIndex): void {
    this.#bury(no, flat);
    if (this.#nodeOf.has(no)) this.#gone.add(no);
    this.#tail.delete(no);
  }

  /**
   * The exact top `k` of what the walk (a beam of `ef`) meets and of the tail, ranked by `flat`;
   * null when the query cannot be quantized (only the full scan answers it).
   */
  search(flat: FlatVectorIndex, query: Float32Array, k: number, ef: number, accept?: Accept): Scored[] | null {
    if (!flat.estimates.prepare(query)) return null;
    const labels = this.#links.labels;
    const ghostOf = this.#ghostOf;
    const score: NodeScores = (nodes, count, out) => this.#score(flat, nodes, count, out);
    const keep = accept === undefined ? (node: number) => ghostOf[node]! < 0 : (node: number) => ghostOf[node]! < 0 && accept(labels[node]!);
    const found = this.#walk.search(score, Math.max(ef, k), keep, this.#ghosts > 0 || accept !== undefined);
    const nos: number[] = [];
    for (let i = 0; i < found.count; i++) nos.push(labels[found.nodes[i]!]!);
    for (const no of this.#tail) if (accept === undefined || accept(no)) nos.push(no);
    return flat.estimates.searchAmong(nos, k, accept);
  }

  /** Whether a saved graph that lacks `lag` of `size` vectors serves as it is, the lag as its tail and ghosts. */
  static servesWith(lag: Repair, size: number): boolean {
    return lag.pending.length + lag.removed.length < Math.max(STALE_MIN, FORCED_SHARE * size);
  }

  /**
   * Whether to bring the graph up to date through hnswlib: 'now' past `FORCED_SHARE` of stale writes
   * or once ghosts are more than a rebuild tolerates, 'quiet' past `QUIET_SHARE` (once writes go quiet).
   */
  repairDue(): 'now' | 'quiet' | null {
    const stale = this.stale;
    if (this.#ghostRatio > REBUILD_DELETED_RATIO || (stale >= STALE_MIN && stale >= FORCED_SHARE * this.size)) return 'now';
    return stale >= STALE_MIN && stale >= QUIET_SHARE * this.size ? 'quiet' : null;
  }

  /**
   * The vector the ghost of memory `no` routes with, its codes scaled back: what hnswlib, restoring
   * the saved graph to bring it up to date, routes that node with once the store no longer has the
   * vector. Undefined when `no` has no such ghost, or it routes as zeros.
   */
  routingVector(no: number): Float32Array | undefined {
    const node = this.#nodeOf.get(no);
    const g = node === undefined ? -1 : this.#ghostOf[node]!;
    const scale = g < 0 ? 0 : this.#ghostScales[g]!;
    if (scale === 0) return undefined;
    const vector = new Float32Array(this.#dim);
    const at = g * this.#stride;
    for (let i = 0; i < vector.length; i++) vector[i] = this.#ghostCodes[at + i]! * scale;
    return vector;
  }

  /** Bytes held: the links, the node tables and the ghosts' codes. */
  byteSize(): number {
    const l = this.#links;
    return l.level0.byteLength + l.upper.byteLength + l.upperAt.byteLength + l.labels.byteLength + l.levels.byteLength + l.deleted.byteLength + this.#ghostOf.byteLength + this.#ghostCodes.byteLength + this.#ghostScales.byteLength;
  }

  /** Live nodes are scored by the flat scan in one batch, ghosts with the codes they kept. */
  #score(flat: FlatVectorIndex, nodes: Int32Array, count: number, out: Float64Array): void {
    const labels = this.#links.labels;
    const liveNos = this.#liveNos;
    const places = this.#livePlaces;
    let live = 0;
    for (let i = 0; i < count; i++) {
      const node = nodes[i]!;
      const g = this.#ghostOf[node]!;
      if (g < 0) {
        liveNos[live] = labels[node]!;
        places[live++] = i;
      } else {
        out[i] = flat.estimates.estimateCodes(this.#ghostCodes, g * this.#stride, this.#ghostScales[g]!);
      }
    }
    if (live === count) return flat.estimates.estimateMany(liveNos, count, out);
    flat.estimates.estimateMany(liveNos, live, this.#liveScores);
    for (let j = 0; j < live; j++) out[places[j]!] = this.#liveScores[j]!;
  }

  /** Makes the node of `no`, while live, a ghost with the codes `flat` holds for it (the saved vector). */
  #bury(no: number, flat: FlatVectorIndex): void {
    const node = this.#nodeOf.get(no);
    if (node === undefined || this.#ghostOf[node]! >= 0) return;
    const g = this.#newGhost(node);
    this.#ghostScales[g] = flat.estimates.codesOf(no, this.#ghostCodes, g * this.#stride) ?? 0;
    this.#live--;
  }

  #newGhost(node: number): number {
    const g = this.#ghosts++;
    if (g === this.#ghostScales.length) {
      const room = Math.max(16, g * 2);
      const codes = new Int8Array(room * this.#stride);
      codes.set(this.#ghostCodes);
      const scales = new Float64Array(room);
      scales.set(this.#ghostScales);
      this.#ghostCodes = codes;
      this.#ghostScales = scales;
    }
    this.#ghostOf[node] = g;
    return g;
  }
}
