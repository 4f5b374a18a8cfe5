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

/** Checks `relate()`'s arguments (or edge `prefix` of a batch, e.g. `edges[2].`). */
export function checkEdgeSpec(method: string, prefix: string, fromId: unknown, toId: unknown, type: unknown, options: unknown): EdgeSpec {
  const from = checkId(method, `${prefix}${prefix ? 'from' : 'fromId'}`, fromId);
  const to = checkId(method, `${prefix}${prefix ? 'to' : 'toId'}`, toId);
  const edgeType = checkEdgeType(method, type);
  const { weight, metadata, validFrom } = checkRelateOptions(method, prefix, options);
  if (from === to) throw invalid(method, 'a memory cannot be related to itself; fromId and toId are both', fromId);
  return { fromId: from, toId: to, type: edgeType, weight, metadata, validFrom };
}

/** Checks `relateMany()`'s edges, all of them, and refuses a batch naming one edge twice. */
export function checkEdgeSpecs(method: string, edges: unknown): EdgeSpec[] {
  if (!Array.isArray(edges)) throw invalid(method, 'edges must be an array of { from, to, type, weight?, metadata?, validFrom? }', edges);
  const seen = new Set<string>();
  return edges.map((e, i) => {
    const name = `edges[${i}]`;
    const { from, to, type, ...options } = checkOptions(method, name, e, ['from', 'to', 'type', ...RELATE_KEYS]) as { from?: unknown; to?: unknown; type?: unknown };
    const spec = checkEdgeSpec(method, `${name}.`, from, to, type, options);
    const key = JSON.stringify([spec.fromId, spec.toId, spec.type]);
    if (seen.has(key)) throw new HybridMindError('CONFLICT', method, `${name} repeats a ${spec.type} edge from ${JSON.stringify(from)} to ${JSON.stringify(to)}`);
    seen.add(key);
    return spec;
  });
}

/** Checks `relate()` options (or an edge spec's fields under `prefix`, e.g. `edges[2].`). */
function checkRelateOptions(method: string, prefix: string, options: unknown): { weight: number; metadata: string; validFrom: number | undefined } {
  const o = checkOptions(method, prefix ? prefix.slice(0, -1) : 'options', options, RELATE_KEYS) as RelateOptions;
  return {
    weight: o.weight === undefined ? 1 : checkFiniteNumber(method, `${prefix || 'options.'}weight`, o.weight, { min: 0, exclusiveMin: true }),
    metadata: JSON.stringify(checkMetadata(method, `${prefix || 'options.'}metadata`, o.metadata)),
    validFrom: checkOptionalTime(method, `${prefix || 'options.'}validFrom`, o.validFrom),
  };
}
