import { invalid } from '../errors.js';
import { LEG_NAMES } from '../legs/types.js';
import { RECALL_MODES, type FusionMethod, type LegWeights, type RecallDefaults, type RecallFilter, type RecallMode, type RecallOptions } from '../types.js';
import {
  checkEdgeType,
  checkFiniteNumber,
  checkId,
  checkMetadata,
  checkNonNegativeInt,
  checkOneOf,
  checkOptions,
  keysOf,
  checkPositiveInt,
  checkStringList,
  checkTime,
} from './validate.js';
import { labelProblem } from '../validation/rules.js';

/** The recall defaults, in one place. `HybridMemory.open({ recall })` overrides them per store. */
export const RECALL_DEFAULTS = {
  k: 10,
  mode: 'hybrid' as RecallMode,
  // Recency as a full vote promoted fresh but irrelevant candidates, so it mostly breaks
  // near-ties. The graph lists restart from the best candidates and re-rank them with what their
  // entities and edges lead to; on LoCoMo-dev and HotpotQA-100 every weight from 1 to 5 beat the
  // same fusion without the graph, and 3 held on each LoCoMo conversation separately. With
  // question words out of the lexical query and the walk's damping at 0.6, 4 beat 3 on both
  // (LoCoMo-dev 0.736 → 0.738, HotpotQA-100 all-supporting@10 0.89 → 0.92).
  weights: { vector: 1, lexical: 1, graph: 4, time: 0.1 } as LegWeights,
  rrfK: 60,
  fusion: 'convex' as FusionMethod,
  alpha: 0.7,
  beta: 0.3,
  depth: 2,
  edgeTypes: [] as string[],
  halfLifeDays: 180,
  historicalWeight: 0.8,
  includeHistorical: true,
  explain: true,
  rerank: false,
  entityGraph: true,
  relationQuestions: true,
  speakers: true,
};

export type ResolvedDefaults = typeof RECALL_DEFAULTS;

export interface ResolvedRecall extends ResolvedDefaults {
  anchors: string[] | null;
  asOf: number | null;
  filter: NormalizedFilter | null;
  queryEmbedding: Float32Array | null;
}

/** A recall's filter; a kind or domain set may hold null, which keeps the memories without one. */
export interface NormalizedFilter {
  kind: Set<string | null> | null;
  domain: Set<string | null> | null;
  metadata: Array<[string, unknown]>;
}

const FUSIONS: readonly FusionMethod[] = ['convex', 'rrf', 'linear'];
export const RECALL_KEYS = keysOf<RecallOptions>({
  k: true, mode: true, weights: true, rrfK: true, fusion: true, alpha: true, beta: true, anchors: true, depth: true, edgeTypes: true, asOf: true,
  halfLifeDays: true, historicalWeight: true, filter: true, includeHistorical: true, explain: true, queryEmbedding: true, rerank: true,
  entityGraph: true, relationQuestions: true, speakers: true,
});
export const FILTER_KEYS = keysOf<RecallFilter>({ kind: true, domain: true, metadata: true });

function checkBoolean(method: string, name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalid(method, `${name} must be true or false`, value);
  return value;
}

function checkWeights(method: string, value: unknown, base: LegWeights): LegWeights {
  const given = checkOptions(method, 'options.weights', value, LEG_NAMES);
  const weights = { ...base };
  for (const [key, w] of Object.entries(given)) {
    weights[key as keyof LegWeights] = checkFiniteNumber(method, `options.weights.${key}`, w, { min: 0 });
  }
  return weights;
}

/** The kinds (or domains) a filter keeps; null among them keeps the memories without one. */
function labelSet(method: string, name: string, value: unknown): Set<string | null> | null {
  if (value === undefined) return null;
  const list = typeof value === 'string' || value === null ? [value] : value;
  if (!Array.isArray(list)) throw invalid(method, `${name} must be a string, null or an array of them`, value);
  return new Set(list.map((v: unknown, i) => {
    if (v === null) return null;
    const problem = labelProblem(v);
    if (problem) throw invalid(method, `${name}[${i}] ${problem}`, v);
    return v as string;
  }));
}

function checkFilter(method: string, value: unknown): NormalizedFilter | null {
  if (value === undefined) return null;
  const f = checkOptions(method, 'options.filter', value, FILTER_KEYS) as RecallFilter;
  const metadata = checkMetadata(method, 'options.filter.metadata', f.metadata);
  for (const [key, v] of Object.entries(metadata)) {
    if (v !== null && typeof v === 'object') throw invalid(method, `options.filter.metadata.${key} must be a string, number, boolean or null`, v);
  }
  return { kind: labelSet(method, 'options.filter.kind', f.kind), domain: labelSet(method, 'options.filter.domain', f.domain), metadata: Object.entries(metadata) };
}

/** Validates per-store defaults given to `open()`, with the same rules as per-call options. */
export function resolveDefaults(method: string, value: unknown): ResolvedDefaults {
  const given = checkOptions(method, 'options.recall', value, RECALL_KEYS) as RecallDefaults;
  for (const key of ['anchors', 'asOf', 'filter', 'queryEmbedding']) {
    if (key in given) throw invalid(method, `options.recall.${key} is per call only`, (given as Record<string, unknown>)[key]);
  }
  const { anchors: _a, asOf: _t, filter: _f, queryEmbedding: _q, ...rest } = resolveRecall(method, given, RECALL_DEFAULTS);
  return rest;
}

/** Merges per-call options over the store's defaults, checking every value once. */
export function resolveRecall(method: string, value: unknown, defaults: ResolvedDefaults): ResolvedRecall {
  const o = checkOptions(method, 'options', value, RECALL_KEYS) as RecallOptions;
  const defined = <K extends keyof RecallOptions>(key: K): boolean => o[key] !== undefined;
  return {
    k: defined('k') ? checkPositiveInt(method, 'options.k', o.k, 1000) : defaults.k,
    mode: defined('mode') ? checkOneOf(method, 'options.mode', o.mode, RECALL_MODES) : defaults.mode,
    weights: defined('weights') ? checkWeights(method, o.weights, defaults.weights) : defaults.weights,
    rrfK: defined('rrfK') ? checkFiniteNumber(method, 'options.rrfK', o.rrfK, { min: 0 }) : defaults.rrfK,
    fusion: defined('fusion') ? checkOneOf(method, 'options.fusion', o.fusion, FUSIONS) : defaults.fusion,
    alpha: defined('alpha') ? checkFiniteNumber(method, 'options.alpha', o.alpha, { min: 0 }) : defaults.alpha,
    beta: defined('beta') ? checkFiniteNumber(method, 'options.beta', o.beta, { min: 0 }) : defaults.beta,
    depth: defined('depth') ? checkNonNegativeInt(method, 'options.depth', o.depth, 10) : defaults.depth,
    edgeTypes: defined('edgeTypes')
      ? checkStringList(method, 'options.edgeTypes', o.edgeTypes, (v) => checkEdgeType(method, v))
      : defaults.edgeTypes,
    halfLifeDays: defined('halfLifeDays')
      ? checkFiniteNumber(method, 'options.halfLifeDays', o.halfLifeDays, { min: 0, exclusiveMin: true })
      : defaults.halfLifeDays,
    historicalWeight: defined('historicalWeight')
      ? checkFiniteNumber(method, 'options.historicalWeight', o.historicalWeight, { min: 0 })
      : defaults.historicalWeight,
    includeHistorical: defined('includeHistorical') ? checkBoolean(method, 'options.includeHistorical', o.includeHistorical) : defaults.includeHistorical,
    explain: defined('explain') ? checkBoolean(method, 'options.explain', o.explain) : defaults.explain,
    rerank: defined('rerank') ? checkBoolean(method, 'options.rerank', o.rerank) : defaults.rerank,
    entityGraph: defined('entityGraph') ? checkBoolean(method, 'options.entityGraph', o.entityGraph) : defaults.entityGraph,
    speakers: defined('speakers') ? checkBoolean(method, 'options.speakers', o.speakers) : defaults.speakers,
    relationQuestions: defined('relationQuestions') ? checkBoolean(method, 'options.relationQuestions', o.relationQuestions) : defaults.relationQuestions,
    anchors: defined('anchors')
      ? checkStringList(method, 'options.anchors', o.anchors, (v, i) => checkId(method, `options.anchors[${i}]`, v))
      : null,
    asOf: defined('asOf') ? checkTime(method, 'options.asOf', o.asOf) : null,
    filter: checkFilter(method, o.filter),
    queryEmbedding: defined('queryEmbedding') ? (o.queryEmbedding as Float32Array) : null,
  };
}

export function matchesFilter(filter: NormalizedFilter, entry: { kind: string | null; domain: string | null; metadata: Record<string, unknown> }): boolean {
  if (filter.kind && !filter.kind.has(entry.kind)) return false;
  if (filter.domain && !filter.domain.has(entry.domain)) return false;
  for (const [key, v] of filter.metadata) {
    if (!Object.hasOwn(entry.metadata, key) || entry.metadata[key] !== v) return false;
  }
  return true;
}

