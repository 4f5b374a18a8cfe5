import { MultiDirectedGraph } from 'graphology';
import { compareHits, type Accept, type Direction, type GraphEdgeAttributes, type GraphHit, type GraphLeg, type Reached, type WalkOptions } from '../types.js';

/**
 * The graph leg over graphology: a directed multigraph (several typed edges between the same
 * two memories), nodes keyed by memory number, edges by edge id. Every memory is a node of the
 * leg, but graphology holds only those an edge has touched: most memories have no edge, and a
 * graphology node is a few objects to build at every open (100k of them: ~0.2 s and ~20 MB).
 */
export class GraphIndex implements GraphLeg {
  readonly #graph = new MultiDirectedGraph<Record<string, never>, GraphEdgeAttributes>();
  readonly #nodes = new Set<number>();

  get size(): number {
    return this.#graph.size;
  }

  addNode(no: number): void {
    this.#nodes.add(no);
  }

  removeNode(no: number): void {
    this.#nodes.delete(no);
    const key = String(no);
    if (this.#graph.hasNode(key)) this.#graph.dropNode(key);
  }

  addEdge(id: string, from: number, to: number, attributes: GraphEdgeAttributes): void {
    this.#nodes.add(from);
    this.#nodes.add(to);
    this.#graph.mergeNode(String(from));
    this.#graph.mergeNode(String(to));
    this.#graph.addDirectedEdgeWithKey(id, String(from), String(to), attributes);
  }

  removeEdge(id: string): void {
    if (this.#graph.hasEdge(id)) this.#graph.dropEdge(id);
  }

  clear(): void {
    this.#graph.clear();
    this.#nodes.clear();
  }

  /**
   * Breadth-first walk from several anchors at once, so each node gets its distance to the
   * nearest anchor. At equal distance the heavier arrival edge wins, then the smaller node number,
   * which keeps results deterministic.
   */
  walk(anchors: readonly number[], options: WalkOptions): Map<number, Reached> {
    const reached = new Map<number, Reached>();
    const types = options.edgeTypes && options.edgeTypes.length > 0 ? new Set(options.edgeTypes) : null;
    let frontier: number[] = [];
    for (const no of anchors) {
      if (!this.#nodes.has(no) || reached.has(no)) continue;
      reached.set(no, { no, distance: 0, weight: Infinity, via: [], edges: [] });
      frontier.push(no);
    }
    for (let d = 1; d <= options.depth && frontier.length > 0; d++) {
      const next = new Map<number, Reached>();
      for (const from of frontier) {
        const origin = reached.get(from)!;
        this.#forEachStep(from, options.direction, (edge, attrs, neighbour) => {
          if (types && !types.has(attrs.type)) return;
          if (options.recordedBy !== undefined && attrs.createdAt > options.recordedBy) return;
          if (reached.has(neighbour)) return;
          if (options.traversable && !options.traversable(neighbour)) return;
          const prior = next.get(neighbour);
          if (prior && (prior.weight > attrs.weight || (prior.weight === attrs.weight && prior.via[prior.via.length - 1]! <= from))) return;
          next.set(neighbour, { no: neighbour, distance: d, weight: attrs.weight, via: [...origin.via, from], edges: [...origin.edges, edge] });
        });
      }
      for (const [no, r] of next) reached.set(no, r);
      frontier = [...next.keys()].sort((a, b) => a - b);
    }
    return reached;
  }

  /**
   * The graph leg's ranked list: memories near the anchors, by distance, then by how strong the
   * anchor they were reached from is (`anchors` come best first), then arrival weight, then number.
   * Each anchor is walked on its own and a node keeps its best arrival, so an anchor is listed
   * only when another anchor leads to it: listing every anchor at distance 0 would just repeat
   * the votes that made them anchors.
   */
  search(anchors: readonly number[], options: WalkOptions & { accept?: Accept; k: number }): GraphHit[] {
    const best = new Map<number, GraphHit>();
    [...new Set(anchors)].forEach((anchor, anchorRank) => {
      for (const r of this.walk([anchor], options).values()) {
        if (r.no === anchor || (options.accept && !options.accept(r.no))) continue;
        const hit: GraphHit = { ...r, anchorRank, score: 1 / (1 + r.distance) };
        const prior = best.get(r.no);
        if (!prior || compareHits(hit, prior) < 0) best.set(r.no, hit);
      }
    });
    return [...best.values()].sort(compareHits).slice(0, options.k);
  }

  /** Shortest path as node numbers (both ends included), or null when none within `maxDepth`. */
  path(from: number, to: number, options: Omit<WalkOptions, 'depth'> & { maxDepth?: number }): number[] | null {
    if (!this.#nodes.has(from) || !this.#nodes.has(to)) return null;
    if (from === to) return [from];
    const found = this.walk([from], { ...options, depth: options.maxDepth ?? this.#nodes.size }).get(to);
    return found ? [...found.via, to] : null;
  }

  /** Memories with an edge of `type` pointing at `no` (e.g. what supersedes it). */
  sources(no: number, type: string): number[] {
    const key = String(no);
    if (!this.#graph.hasNode(key)) return [];
    const out: number[] = [];
    this.#graph.forEachInEdge(key, (_edge, attrs, source) => {
      if (attrs.type === type) out.push(Number(source));
    });
    return out;
  }

  #forEachStep(no: number, direction: Direction, visit: (edge: string, attrs: GraphEdgeAttributes, neighbour: number) => void): void {
    const key = String(no);
    if (!this.#graph.hasNode(key)) return;
    if (direction !== 'in') {
      this.#graph.forEachOutEdge(key, (edge, attrs, _source, target) => visit(edge, attrs, Number(target)));
    }
    if (direction !== 'out') {
      this.#graph.forEachInEdge(key, (edge, attrs, source) => visit(edge, attrs, Number(source)));
    }
  }
}
