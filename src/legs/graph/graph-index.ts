import { MultiDirectedGraph } from 'graphology';
import { messageOf } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { afterOpen, nextSlice, now, SLICE_MS } from '../../util/slices.js';
import { arrivesBefore, compareHits, type Accept, type ArrivalEdge, type Direction, type EdgeSource, type GraphEdge, type GraphEdgeAttributes, type GraphHit, type GraphLeg, type NodeSet, type Reached, type WalkOptions } from '../types.js';

/** Edges a `path()` reads from the store around its start while a fill runs before it takes the whole fill instead. */
export const PATH_NEARBY_EDGES = 10_000;

/**
 * Every node's attributes: the leg keeps none, and graphology otherwise makes an empty object per
 * node (~50 B each, 3 MiB of heap for the 63k nodes 50k edges touch). Frozen, so a write to it fails
 * loudly instead of reaching every node.
 */
const NO_ATTRIBUTES: Record<string, never> = Object.freeze({});

/**
 * The graph leg over graphology: a directed multigraph (several typed edges between the same
 * two memories), nodes keyed by memory number, edges by edge id. Every memory is a node of the
 * leg, but graphology holds only those an edge has touched: most memories have no edge, and a
 * graphology node is a few objects to build at every open (100k of them: ~0.2 s and ~20 MB).
 */
export class GraphIndex implements GraphLeg {
  readonly #graph = new MultiDirectedGraph<Record<string, never>, GraphEdgeAttributes>();
  /** The memories, when the store's catalog answers for them; else `#own`, kept by `addNode`. */
  readonly #nodes: NodeSet;
  readonly #own: Set<number> | null;
  /** Where the edges not taken yet are, while a fill runs. */
  #source: EdgeSource | null = null;

  /**
   * `nodes`: who the memories are, when the caller already keeps them (the store's catalog), so an
   * open does not copy every memory number into a set of its own (10k of them: ~3 ms of a cold
   * open); `addNode` then adds nothing. Without it the index keeps its own.
   */
  constructor(nodes?: NodeSet) {
    this.#own = nodes ? null : new Set<number>();
    this.#nodes = nodes ?? this.#own!;
  }

  get size(): number {
    this.#settle();
    return this.#graph.size;
  }

  addNode(no: number): void {
    this.#own?.add(no);
  }

  removeNode(no: number): void {
    this.#own?.delete(no);
    const key = String(no);
    if (this.#graph.hasNode(key)) this.#graph.dropNode(key);
  }

  addEdge(id: string, from: number, to: number, attributes: GraphEdgeAttributes): void {
    this.#own?.add(from);
    this.#own?.add(to);
    this.#graph.mergeNode(String(from), NO_ATTRIBUTES);
    this.#graph.mergeNode(String(to), NO_ATTRIBUTES);
    this.#graph.addDirectedEdgeWithKey(id, String(from), String(to), attributes);
  }

  removeEdge(id: string): void {
    if (this.#graph.hasEdge(id)) this.#graph.dropEdge(id);
  }

  clear(): void {
    this.#source = null;
    this.#graph.clear();
    this.#own?.clear();
  }

  /**
   * Breadth-first walk from several anchors at once, so each node gets its distance to the
   * nearest anchor. At equal distance `arrivesBefore` picks the arrival, which keeps results
   * deterministic.
   */
  walk(anchors: readonly number[], options: WalkOptions): Map<number, Reached> {
    if (this.#source) return this.#around(this.#source, anchors, options.depth).walk(anchors, options);
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
          if (prior && !arrivesBefore({ weight: attrs.weight, from, createdAt: attrs.createdAt, edge }, this.#arrival(prior))) return;
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
  search(anchors: readonly number[], options: WalkOptions & { accept?: Accept | undefined; k: number }): GraphHit[] {
    if (this.#source) return this.#around(this.#source, anchors, options.depth).search(anchors, options);
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

  /**
   * Shortest path as node numbers (both ends included), or null when none within `maxDepth`.
   * While a fill runs, the path is looked for in the edges read from the store around `from`,
   * a step further each time, and only past `PATH_NEARBY_EDGES` of them is the rest of the fill
   * taken at once (at 100k memories that took 416 ms of the first `path()` after an open).
   */
  path(from: number, to: number, options: Omit<WalkOptions, 'depth'> & { maxDepth?: number | undefined }): number[] | null {
    // Without the store's catalog, the nodes are those the edges taken so far touched.
    if (this.#own) this.#settle();
    if (!this.#nodes.has(from) || !this.#nodes.has(to)) return null;
    if (from === to) return [from];
    const depth = options.maxDepth ?? this.#nodes.size;
    let found = this.#source ? this.#nearby(this.#source, from, to, depth, options) : undefined;
    if (found === undefined) {
      this.#settle();
      found = this.walk([from], { ...options, depth }).get(to);
    }
    return found ? [...found.via, to] : null;
  }

  /**
   * A walk from `from` that reaches `to` (null: none within `depth`) on the edges read from the
   * store within ever more steps of `from`, exact as on the full graph (see `#around`); undefined
   * once that read more than `PATH_NEARBY_EDGES` edges first.
   */
  #nearby(source: EdgeSource, from: number, to: number, depth: number, options: Omit<WalkOptions, 'depth'>): Reached | null | undefined {
    const local = new GraphIndex();
    local.addNode(from);
    let frontier = [from];
    const seen = new Set(frontier);
    const taken = new Set<string>();
    for (let steps = 1; ; steps++) {
      const next = readAround(source, frontier, local, seen, taken);
      if (taken.size > PATH_NEARBY_EDGES) return undefined;
      // `local` now holds every edge with an end within `steps - 1` steps of `from` either way, so a
      // walk of `steps` is the full graph's, and a walk of any length once nothing further is left.
      const whole = next.length === 0;
      const last = whole || steps >= depth;
      if (last || seen.has(to)) {
        const found = local.walk([from], { ...options, depth: whole ? depth : Math.min(steps, depth) }).get(to);
        if (found || last) return found ?? null;
      }
      frontier = next;
    }
  }

  /** Memories with an edge of `type` pointing at `no` (e.g. what supersedes it). */
  sources(no: number, type: string): number[] {
    if (this.#source) return this.#source.around([no]).filter((e) => e.to === no && e.type === type).map((e) => e.from);
    const key = String(no);
    if (!this.#graph.hasNode(key)) return [];
    const out: number[] = [];
    this.#graph.forEachInEdge(key, (_edge, attrs, source) => {
      if (attrs.type === type) out.push(Number(source));
    });
    return out;
  }

  fill(source: EdgeSource, logger: Logger): void {
    // Nothing to wait for: walks read this graph at once. Left to a slice, a store opened empty
    // and then written and read in one run of awaits (no turn of the event loop for the slice)
    // walked by reading the store around its anchors at every recall.
    if (source.empty) return;
    this.#source = source;
    const started = now();
    const slice = () => {
      if (this.#source !== source) return;
      try {
        const until = now() + SLICE_MS;
        while (this.#take(source)) if (now() >= until) return nextSlice(slice);
      } catch (error) {
        // Walks keep reading the store around their anchors; `path` and `size` take up the fill again.
        logger('warn', `graph leg: reading the edges in the background failed, reads keep asking the store: ${messageOf(error)}`);
        return;
      }
      logger('debug', `graph leg: took ${this.#graph.size} edges in ${(now() - started).toFixed(0)} ms`, { edges: this.#graph.size });
    };
    afterOpen(slice);
  }

  stop(): void {
    this.#source = null;
  }

  /** Takes the next edges of `source`; false, the fill over, once it has none left. */
  #take(source: EdgeSource): boolean {
    const edges = source.next();
    for (const e of edges) {
      // Added by a change already: a new edge's rowid is in the range the fill covers when the
      // last edge was deleted before it was written.
      if (!this.#graph.hasEdge(e.id)) this.addEdge(e.id, e.from, e.to, attributesOf(e));
    }
    if (edges.length === 0) this.#source = null;
    return edges.length > 0;
  }

  /** Takes every edge a fill has not taken yet, before a read the edges around its start cannot answer. */
  #settle(): void {
    const source = this.#source;
    if (source) while (this.#take(source));
  }

  /**
   * While a fill runs: a graph of the edges within `depth` steps of `anchors` either way, read
   * from the store. A walk from them reaches nothing more, so it answers exactly as the full graph.
   */
  #around(source: EdgeSource, anchors: readonly number[], depth: number): GraphIndex {
    const local = new GraphIndex();
    let frontier = [...new Set(anchors)].filter((no) => this.#nodes.has(no));
    const seen = new Set(frontier);
    const taken = new Set<string>();
    for (const no of frontier) local.addNode(no);
    for (let d = 0; d < depth && frontier.length > 0; d++) frontier = readAround(source, frontier, local, seen, taken);
    return local;
  }

  /** How `reached` arrived, as `arrivesBefore` weighs it. */
  #arrival(reached: Reached): ArrivalEdge {
    const edge = reached.edges[reached.edges.length - 1]!;
    return { weight: reached.weight, from: reached.via[reached.via.length - 1]!, createdAt: this.#graph.getEdgeAttribute(edge, 'createdAt'), edge };
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

/**
 * Reads the edges around `frontier` from `source` into `local`, those not `taken` yet, and returns
 * their ends not `seen` before (now seen): the next step of a walk over the store's edges.
 */
function readAround(source: EdgeSource, frontier: readonly number[], local: GraphIndex, seen: Set<number>, taken: Set<string>): number[] {
  const next: number[] = [];
  for (const e of source.around(frontier)) {
    if (taken.has(e.id)) continue;
    taken.add(e.id);
    local.addEdge(e.id, e.from, e.to, attributesOf(e));
    for (const end of [e.from, e.to]) {
      if (seen.has(end)) continue;
      seen.add(end);
      next.push(end);
    }
  }
  return next;
}

/** What the graph keeps of an edge beside its key and ends. */
function attributesOf(e: GraphEdge): GraphEdgeAttributes {
  return { type: e.type, weight: e.weight, createdAt: e.createdAt };
}
