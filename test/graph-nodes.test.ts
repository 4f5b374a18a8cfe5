import { describe, expect, it } from 'vitest';
import { GraphIndex } from '../src/legs/graph/graph-index.js';

/**
 * A graph leg given the store's memories (the catalog) reads them instead of keeping its own set:
 * it walks and finds paths as one that was told each memory, and a memory the caller no longer
 * holds is no anchor and no end of a path, whatever `addNode` was told.
 */
function build(graph: GraphIndex): GraphIndex {
  const add = (id: string, from: number, to: number) => graph.addEdge(id, from, to, { type: 'DEPENDS_ON', weight: 1, createdAt: 0 });
  add('a', 1, 2);
  add('b', 2, 3);
  add('c', 3, 4);
  add('d', 5, 6);
  return graph;
}

describe('GraphIndex over the caller’s memories', () => {
  it('answers as a graph that keeps its own, and follows the caller’s set as it changes', () => {
    const memories = new Set([1, 2, 3, 4, 5, 6, 7]);
    const shared = build(new GraphIndex(memories));
    const own = build(new GraphIndex());
    for (const no of memories) own.addNode(no);
    const walkOptions = { depth: 3, direction: 'both' as const };
    for (const anchors of [[1], [5], [7], [1, 5], [8]]) {
      expect([...shared.walk(anchors, walkOptions)], `walk from ${anchors}`).toEqual([...own.walk(anchors, walkOptions)]);
      expect(shared.search(anchors, { ...walkOptions, k: 10 }), `search from ${anchors}`).toEqual(own.search(anchors, { ...walkOptions, k: 10 }));
    }
    expect(shared.path(1, 4, { direction: 'both' })).toEqual([1, 2, 3, 4]);
    expect(shared.path(1, 7, { direction: 'both' })).toBeNull();
    // Told a memory the caller does not hold: not one of them.
    shared.addNode(8);
    expect(shared.walk([8], walkOptions).size).toBe(0);
    // The caller forgets memory 1: it starts no walk and ends no path, its edges still in the graph.
    memories.delete(1);
    expect(shared.walk([1], walkOptions).size).toBe(0);
    expect(shared.path(1, 4, { direction: 'both' })).toBeNull();
    expect(shared.walk([2], walkOptions).has(3)).toBe(true);
    memories.delete(4);
    expect(shared.path(2, 4, { direction: 'both' })).toBeNull();
  });
});
