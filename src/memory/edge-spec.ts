/**
 * The argument rules of `relate` and `relateMany`, one copy for both engines so each refuses a
 * call the same way: every argument of every edge is checked before any memory is looked up (a
 * malformed call is INVALID_ARGUMENT even when an end is also missing), and a batch that repeats
 * an edge is a CONFLICT before anything reaches storage.
 */
import { HybridMindError, invalid } from '../errors.js';
import type { RelateOptions } from '../types.js';
import { checkEdgeType, checkFiniteNumber, checkId, checkMetadata, checkOptionalTime, checkOptions, keysOf } from './validate.js';

export const RELATE_KEYS = keysOf<RelateOptions>({ weight: true, metadata: true, validFrom: true });

/** An edge as the caller names it, checked; its ends are memory ids not yet looked up. */
export interface EdgeSpec {
  fromId: string;
  toId: string;
  type: string;
  weight: number;
  /** The metadata as stored: JSON. */
  metadata: string;
  /** Absent: the edge holds from when its source memory became true. */
  validFrom: number | undefined;
}

/** Checks `relate()`'s arguments. */
export function checkEdgeSpec(method: string, fromId: unknown, toId: unknown, type: unknown, options: unknown): EdgeSpec {
  return edgeSpec(method, '', fromId, toId, type, () => checkOptions(method, 'options', options, RELATE_KEYS) as RelateOptions);
}

/**
 * Checks an edge's ends and type, then its options (`options()`, which checks their keys, or
 * returns a batch edge whose keys were checked whole), then that it joins two memories. `prefix`
 * names the edge in a batch, e.g. `edges[2].`.
 */
function edgeSpec(method: string, prefix: string, fromId: unknown, toId: unknown, type: unknown, options: () => RelateOptions): EdgeSpec {
  const from = checkId(method, `${prefix}${prefix ? 'from' : 'fromId'}`, fromId);
  const to = checkId(method, `${prefix}${prefix ? 'to' : 'toId'}`, toId);
  const edgeType = checkEdgeType(method, type);
  const o = options();
  const at = prefix || 'options.';
  const weight = o.weight === undefined ? 1 : checkFiniteNumber(method, `${at}weight`, o.weight, { min: 0, exclusiveMin: true });
  // Most edges carry none: "{}" without a checked copy to serialise.
  const metadata = o.metadata === undefined ? '{}' : JSON.stringify(checkMetadata(method, `${at}metadata`, o.metadata));
  const validFrom = checkOptionalTime(method, `${at}validFrom`, o.validFrom);
  if (from === to) throw invalid(method, 'a memory cannot be related to itself; fromId and toId are both', fromId);
  return { fromId: from, toId: to, type: edgeType, weight, metadata, validFrom };
}

/** The keys an edge of `relateMany()` may have. */
const EDGE_KEYS = ['from', 'to', 'type', ...RELATE_KEYS] as const;

/** Checks `relateMany()`'s edges, all of them, and refuses a batch naming one edge twice. */
export function checkEdgeSpecs(method: string, edges: unknown): EdgeSpec[] {
  if (!Array.isArray(edges)) throw invalid(method, 'edges must be an array of { from, to, type, weight?, metadata?, validFrom? }', edges);
  const seen = new Set<string>();
  return edges.map((e, i) => {
    const name = `edges[${i}]`;
    // Its keys are checked whole, first, as before any other rule; its options are read from it as they are.
    const edge = checkOptions(method, name, e, EDGE_KEYS) as { from?: unknown; to?: unknown; type?: unknown } & RelateOptions;
    const spec = edgeSpec(method, `${name}.`, edge.from, edge.to, edge.type, () => edge);
    const key = JSON.stringify([spec.fromId, spec.toId, spec.type]);
    if (seen.has(key)) throw new HybridMindError('CONFLICT', method, `${name} repeats a ${spec.type} edge from ${JSON.stringify(edge.from)} to ${JSON.stringify(edge.to)}`);
    seen.add(key);
    return spec;
  });
}
