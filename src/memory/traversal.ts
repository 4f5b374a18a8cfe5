import { statusAt } from '../legs/time/temporal.js';
import { DIRECTIONS } from '../legs/types.js';
import type { Direction, TraceOptions, TraceResult } from '../types.js';
import { toEdge } from './rows.js';
import type { Indexes } from './indexes.js';
import { checkEdgeType, checkNonNegativeInt, checkOneOf, checkOptions, checkStringList, keysOf } from './validate.js';

export const TRACE_KEYS = keysOf<TraceOptions>({ depth: true, edgeTypes: true, direction: true });

interface Walk {
  depth: number;
  edgeTypes: string[];
  direction: Direction;
}

export function walkOptions(method: string, options: unknown, defaultDepth: number): Walk {
  const o = checkOptions(method, 'options', options, TRACE_KEYS) as TraceOptions;
  return {
    depth: o.depth === undefined ? defaultDepth : checkNonNegativeInt(method, 'options.depth', o.depth, 10),
    edgeTypes: o.edgeTypes === undefined ? [] : checkStringList(method, 'options.edgeTypes', o.edgeTypes, (v) => checkEdgeType(method, v)),
    direction: o.direction === undefined ? 'both' : checkOneOf(method, 'options.direction', o.direction, DIRECTIONS),
  };
}

/** The neighbourhood of `start`: reached memories with their distance, and the edges among them. */
export function graphTrace(indexes: Indexes, start: number | null, w: Walk, now: number): TraceResult {
  if (start === null) return { nodes: [], edges: [] };
  const reached = indexes.graph.walk([start], w);
  const types = w.edgeTypes.length > 0 ? new Set(w.edgeTypes) : null;
  const idOf = (no: number) => indexes.catalog.entry(no).id;
  const nodes = [...reached.values()]
    .sort((a, b) => a.distance - b.distance || a.no - b.no)
    .map((r) => {
      const entry = indexes.catalog.entry(r.no);
      return { id: entry.id, text: indexes.repository.memoryByNo(r.no)!.text, distance: r.distance, status: statusAt(entry, now) };
    });
  const seen = new Set<string>();
  const edges = [];
  for (const no of reached.keys()) {
    for (const row of indexes.repository.edgesOf(no)) {
      if (seen.has(row.id) || !reached.has(Number(row.src)) || !reached.has(Number(row.dst))) continue;
      if (types && !types.has(row.type)) continue;
      seen.add(row.id);
      edges.push(toEdge(row, idOf));
    }
  }
  return { nodes, edges };
}

/** Shortest path between two memories along the allowed edges, as ids; null when unconnected. */
export function graphPath(indexes: Indexes, from: number, to: number, w: Walk): string[] | null {
  const path = indexes.graph.path(from, to, { direction: w.direction, edgeTypes: w.edgeTypes });
  return path ? path.map((no) => indexes.catalog.entry(no).id) : null;
}
