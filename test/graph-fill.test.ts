import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GraphIndex, PATH_NEARBY_EDGES } from '../src/legs/graph/graph-index.js';
import type { Direction, EdgeSource, GraphEdge } from '../src/legs/types.js';
import { recorder } from './support/memory.js';
import { until } from './support/until.js';

/**
 * A graph leg filled in the background (what an open does with the store's edges) answers every
 * read exactly as the same graph with all its edges added at once, whether none, some or all of
 * them were taken yet, and a change in the middle of a fill loses nothing.
 */
const TYPES = ['DEPENDS_ON', 'SUPERSEDES', 'RELATES_TO'];
const SEED = 20_261_202;

/**
 * The store's side: `edges` is what it holds now (a test changes it as a write would); the fill
 * is handed those it held at the start, `chunk` at a time in stored order, as the store's rows are.
 */
class ArraySource implements EdgeSource {
  readonly edges: GraphEdge[];
  readonly #stored: GraphEdge[];
  readonly #chunk: number;
  #at = 0;
  nextCalls = 0;
  aroundCalls = 0;

  constructor(edges: readonly GraphEdge[], chunk = 3) {
    this.edges = [...edges];
    this.#stored = [...edges];
    this.#chunk = chunk;
  }

  get empty(): boolean {
    return this.#stored.length === 0;
  }

  get exhausted(): boolean {
    return this.#at === this.#stored.length;
  }

  next(): GraphEdge[] {
    this.nextCalls += 1;
    const out: GraphEdge[] = [];
    while (out.length < this.#chunk && this.#at < this.#stored.length) {
      const e = this.#stored[this.#at++]!;
      if (this.edges.includes(e)) out.push(e);
    }
    return out;
  }

  around(nos: readonly number[]): GraphEdge[] {
    this.aroundCalls += 1;
    const set = new Set(nos);
    return this.edges.filter((e) => set.has(e.from) || set.has(e.to));
  }
}

function edge(id: number, from: number, to: number, type: string, weight = 1, createdAt = id): GraphEdge {
  return { id: `e${id}`, from, to, type, weight, createdAt };
}

function complete(nodes: number, edges: readonly GraphEdge[]): GraphIndex {
  const graph = new GraphIndex();
  for (let no = 0; no < nodes; no++) graph.addNode(no);
  for (const e of edges) graph.addEdge(e.id, e.from, e.to, { type: e.type, weight: e.weight, createdAt: e.createdAt });
  return graph;
}

function filling(nodes: number, source: ArraySource): GraphIndex {
  const graph = new GraphIndex();
  for (let no = 0; no < nodes; no++) graph.addNode(no);
  graph.fill(source, recorder().logger);
  return graph;
}

const filled = (source: ArraySource) => until(() => source.exhausted, 'the fill taking every edge');

const graphs = fc
  .integer({ min: 2, max: 14 })
  .chain((nodes) =>
    fc.record({
      nodes: fc.constant(nodes),
      edges: fc.array(fc.record({ from: fc.nat(nodes - 1), to: fc.nat(nodes - 1), type: fc.constantFrom(...TYPES), weight: fc.constantFrom(0.5, 1, 2), createdAt: fc.nat(20) }), { maxLength: 30 }),
      anchors: fc.array(fc.nat(nodes + 1), { minLength: 1, maxLength: 4 }),
      depth: fc.integer({ min: 0, max: 4 }),
      direction: fc.constantFrom<Direction>('out', 'in', 'both'),
      edgeTypes: fc.constantFrom<string[] | undefined>(undefined, [], ['DEPENDS_ON'], ['SUPERSEDES', 'RELATES_TO']),
      recordedBy: fc.constantFrom<number | undefined>(undefined, 10),
    }),
  );

describe('a graph leg filled in the background', () => {
  it('answers walk, search, path and sources exactly as the complete graph before it took any edge', () => {
    fc.assert(
      fc.property(graphs, ({ nodes, edges: drafts, anchors, depth, direction, edgeTypes, recordedBy }) => {
        const edges = drafts.map((d, i) => edge(i, d.from, d.to, d.type, d.weight, d.createdAt));
        const full = complete(nodes, edges);
        const source = new ArraySource(edges);
        const graph = filling(nodes, source);
        const walk = { depth, direction, ...(edgeTypes ? { edgeTypes } : {}), ...(recordedBy !== undefined ? { recordedBy } : {}), traversable: (no: number) => no !== 1 };
        expect(graph.walk(anchors, walk)).toEqual(full.walk(anchors, walk));
        expect(graph.search(anchors, { ...walk, k: 5, accept: (no) => no % 3 !== 2 })).toEqual(full.search(anchors, { ...walk, k: 5, accept: (no) => no % 3 !== 2 }));
        for (const no of anchors) for (const type of TYPES) expect(graph.sources(no, type).sort()).toEqual(full.sources(no, type).sort());
        // Those reads asked the store around the anchors, and took nothing.
        expect(source.nextCalls).toBe(0);
        expect(graph.path(anchors[0]!, nodes - 1, { direction })).toEqual(full.path(anchors[0]!, nodes - 1, { direction }));
        expect(graph.size).toBe(edges.length);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('finds a path in the edges around its start, as the complete graph does, without taking the fill', () => {
    fc.assert(
      fc.property(graphs, fc.integer({ min: 0, max: 6 }), ({ nodes, edges: drafts, anchors, direction, edgeTypes, recordedBy }, maxDepth) => {
        const edges = drafts.map((d, i) => edge(i, d.from, d.to, d.type, d.weight, d.createdAt));
        const full = complete(nodes, edges);
        const source = new ArraySource(edges);
        // The store's catalog answers for the nodes, as in an open.
        const graph = new GraphIndex({ has: (no) => Number.isInteger(no) && no >= 0 && no < nodes, size: nodes });
        graph.fill(source, recorder().logger);
        const options = [
          { direction },
          { direction, maxDepth, ...(edgeTypes ? { edgeTypes } : {}), ...(recordedBy !== undefined ? { recordedBy } : {}), traversable: (no: number) => no !== 1 },
        ];
        for (const o of options) {
          for (const to of [nodes - 1, anchors.at(-1)!, nodes]) expect(graph.path(anchors[0]!, to, o), `to ${to}`).toEqual(full.path(anchors[0]!, to, o));
        }
        expect(source.nextCalls).toBe(0);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('follows a directed path longer than the steps that reach every node of its start either way', () => {
    // A directed ring: 5 is one step from 0 against the edges, five along them.
    const edges = Array.from({ length: 6 }, (_, i) => edge(i, i, (i + 1) % 6, 'DEPENDS_ON'));
    const source = new ArraySource(edges);
    const graph = new GraphIndex({ has: (no) => no >= 0 && no < 6, size: 6 });
    graph.fill(source, recorder().logger);
    expect(graph.path(0, 5, { direction: 'out' })).toEqual([0, 1, 2, 3, 4, 5]);
    expect(graph.path(0, 5, { direction: 'out', maxDepth: 4 })).toBeNull();
    expect(source.nextCalls).toBe(0);
  });

  it('takes the rest of the fill for a path whose search around its start grows past its share', () => {
    // A hub with more leaves than a path reads around its start: from one leaf to a node no edge reaches.
    const leaves = PATH_NEARBY_EDGES + 5;
    const edges = Array.from({ length: leaves }, (_, i) => edge(i, 0, i + 1, 'DEPENDS_ON'));
    const source = new ArraySource(edges, 4096);
    const graph = new GraphIndex({ has: (no) => no >= 0 && no <= leaves + 1, size: leaves + 2 });
    graph.fill(source, recorder().logger);
    expect(graph.path(1, 0, { direction: 'both' })).toEqual([1, 0]);
    expect(source.nextCalls).toBe(0);
    expect(graph.path(1, leaves + 1, { direction: 'both' })).toBeNull();
    expect(source.exhausted).toBe(true);
    expect(graph.size).toBe(leaves);
  });

  it('takes every edge in the background, then answers from itself', async () => {
    const edges = Array.from({ length: 40 }, (_, i) => edge(i, i % 13, (i * 7 + 1) % 13, TYPES[i % 3]!));
    const source = new ArraySource(edges, 4);
    const log = recorder();
    const graph = new GraphIndex();
    for (let no = 0; no < 13; no++) graph.addNode(no);
    graph.fill(source, log.logger);
    await filled(source);
    expect(source.nextCalls).toBe(11);
    expect(log.messages.some((m) => m.startsWith('graph leg: took 40 edges'))).toBe(true);
    const asked = source.aroundCalls;
    const full = complete(13, edges);
    const walk = { depth: 3, direction: 'both' as const };
    expect(graph.walk([0, 5], walk)).toEqual(full.walk([0, 5], walk));
    expect(source.aroundCalls).toBe(asked);
  });

  it('given a store without edges, answers from itself at once, with no slice in between', () => {
    const source = new ArraySource([]);
    const graph = new GraphIndex();
    for (let no = 0; no < 4; no++) graph.addNode(no);
    graph.fill(source, recorder().logger);
    // Edges written after the open, read before the event loop turned: the fill never ran a slice.
    graph.addEdge('e1', 0, 1, { type: 'DEPENDS_ON', weight: 1, createdAt: 1 });
    graph.addEdge('e2', 1, 2, { type: 'DEPENDS_ON', weight: 1, createdAt: 2 });
    expect([...graph.walk([0], { depth: 2, direction: 'both' }).keys()]).toEqual([0, 1, 2]);
    expect(source.aroundCalls).toBe(0);
    expect(source.nextCalls).toBe(0);
  });

  it('applies a change made in the middle of a fill without waiting for it, and the rest agrees', async () => {
    const edges = Array.from({ length: 30 }, (_, i) => edge(i, i % 10, (i * 3 + 1) % 10, TYPES[i % 3]!));
    for (const change of ['addEdge', 'removeEdge', 'removeNode'] as const) {
      const source = new ArraySource(edges, 2);
      const graph = filling(10, source);
      const full = complete(10, edges);
      // The store is changed first, as a write commits before it updates the indexes.
      if (change === 'addEdge') {
        const added = edge(99, 2, 7, 'DEPENDS_ON');
        source.edges.push(added);
        for (const g of [graph, full]) g.addEdge(added.id, added.from, added.to, added);
      } else if (change === 'removeEdge') {
        source.edges.splice(source.edges.indexOf(edges[4]!), 1);
        for (const g of [graph, full]) g.removeEdge(edges[4]!.id);
      } else {
        for (const e of edges) if (e.from === 3 || e.to === 3) source.edges.splice(source.edges.indexOf(e), 1);
        for (const g of [graph, full]) g.removeNode(3);
      }
      expect(source.nextCalls, change).toBe(0);
      for (let no = 0; no < 10; no++) expect(graph.walk([no], { depth: 3, direction: 'both' }), `${change} from ${no}, filling`).toEqual(full.walk([no], { depth: 3, direction: 'both' }));
      await filled(source);
      const asked = source.aroundCalls;
      for (let no = 0; no < 10; no++) expect(graph.walk([no], { depth: 3, direction: 'both' }), `${change} from ${no}`).toEqual(full.walk([no], { depth: 3, direction: 'both' }));
      expect(source.aroundCalls, change).toBe(asked);
      expect(graph.size, change).toBe(full.size);
    }
  });

  it('does not add twice an edge a change added before the fill reached it', () => {
    const edges = [edge(0, 0, 1, 'DEPENDS_ON'), edge(1, 1, 2, 'DEPENDS_ON')];
    const source = new ArraySource(edges);
    const graph = filling(3, source);
    graph.addEdge('e1', 1, 2, { type: 'DEPENDS_ON', weight: 1, createdAt: 1 });
    expect(graph.size).toBe(2);
  });

  it('stops when told or cleared, and answers from what it holds afterwards', async () => {
    const edges = Array.from({ length: 12 }, (_, i) => edge(i, i, i + 1, 'DEPENDS_ON'));
    for (const end of ['stop', 'clear'] as const) {
      const source = new ArraySource(edges, 1);
      const graph = filling(13, source);
      if (end === 'stop') graph.stop();
      else graph.clear();
      // A fill left running, started after this one, has taken every edge: this one had its chances.
      const control = new ArraySource(edges, 1);
      filling(13, control);
      await filled(control);
      expect(source.nextCalls, end).toBe(0);
      expect(graph.size, end).toBe(0);
      expect(graph.walk([0], { depth: 2, direction: 'out' }).size, end).toBe(end === 'stop' ? 1 : 0);
    }
  });
});

describe('the arrival a walk records', () => {
  it('does not depend on the order the edges were added in: heavier, then from the smaller node, then recorded first, then the smaller id', () => {
    const edges = [
      edge(1, 0, 1, 'DEPENDS_ON', 1, 50),
      edge(2, 0, 1, 'RELATES_TO', 1, 40),
      edge(3, 1, 0, 'DEPENDS_ON', 1, 40),
      edge(4, 0, 2, 'DEPENDS_ON', 1, 7),
      { ...edge(5, 0, 2, 'DEPENDS_ON', 1, 7), id: 'a5' },
      edge(6, 0, 3, 'DEPENDS_ON', 1, 9),
      edge(7, 0, 3, 'DEPENDS_ON', 2, 99),
    ];
    const walks = [edges, [...edges].reverse(), [edges[3]!, edges[6]!, edges[0]!, edges[5]!, edges[2]!, edges[4]!, edges[1]!]].map((order) => complete(4, order).walk([0], { depth: 1, direction: 'both' }));
    expect(walks[1]).toEqual(walks[0]);
    expect(walks[2]).toEqual(walks[0]);
    expect([1, 2, 3].map((no) => walks[0]!.get(no)!.edges)).toEqual([['e2'], ['a5'], ['e7']]);
  });
});
