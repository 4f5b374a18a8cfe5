/**
 * Seeded hostile calls to the public memory API, for the fuzz tests: each argument is most often
 * well formed, sometimes a tricky string, and sometimes any value at all, the way untyped callers
 * (JSON, tool calls) send them.
 */
import fc from 'fast-check';

/** Vector width of the stores under fuzz (the test hash embedder's). */
export const DIM = 16;

const IDS = ['a', 'b', 'c', 'd', 'e', 'f'];
const TRICKY = ['', ' ', ' a ', 'a ', '\uD800', 'a\uDC00b', '\uDBFF\uDBFF', 'x'.repeat(513), '\u0000', "'; DROP TABLE memories;--", '[M1]', '\u{1F600}', 'e\u0301', '\t\n'];

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.constantFrom(...TRICKY) },
  { weight: 1, arbitrary: fc.constantFrom('y'.repeat(100_001), 'z '.repeat(60_000)) },
);
const anyValue = fc.oneof(
  hostileString,
  fc.anything({ maxDepth: 2 }),
  fc.constantFrom(undefined, null, NaN, Infinity, -0, 1e300, new Date(Number.NaN), [], {}, new Float32Array(3)),
);
const id = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...IDS) }, { weight: 1, arbitrary: hostileString }, { weight: 1, arbitrary: anyValue });
const text = fc.oneof({ weight: 4, arbitrary: fc.lorem({ maxCount: 8 }) }, { weight: 2, arbitrary: hostileString }, { weight: 1, arbitrary: anyValue });
const time = fc.oneof(fc.integer({ min: 0, max: 4e12 }), fc.constantFrom(9e15, -9e15, 8.64e15, Number.MAX_SAFE_INTEGER, '2026-01-01', 'not a date', ''), anyValue);
const vector = fc.oneof(
  fc.float32Array({ minLength: DIM, maxLength: DIM, noDefaultInfinity: true, noNaN: true }),
  fc.float32Array({ maxLength: DIM + 2 }),
  anyValue,
);
const label = fc.oneof(fc.constantFrom('note', 'decision', null), hostileString, anyValue);
const metadata = fc.oneof(fc.dictionary(hostileString, fc.oneof(hostileString, fc.integer(), fc.boolean()), { maxKeys: 3 }), anyValue);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
const input = fc.oneof(
  { weight: 5, arbitrary: fc.record({ text, id: maybe(id), kind: maybe(label), domain: maybe(label), metadata: maybe(metadata), createdAt: maybe(time), validFrom: maybe(time), validTo: maybe(time), embedding: maybe(vector) }, { requiredKeys: ['text'] }) },
  { weight: 1, arbitrary: anyValue },
);
const patch = fc.oneof(fc.record({ text, kind: label, domain: label, metadata, validFrom: time, validTo: time, embedding: vector }, { requiredKeys: [] }), anyValue);
const edgeType = fc.oneof(fc.constantFrom('SUPERSEDES', 'DEPENDS_ON', 'RELATES_TO', 'REFERENCES', 'bad type!', ''), hostileString);
const relateOptions = fc.oneof(fc.record({ weight: fc.oneof(fc.double(), anyValue), metadata, validFrom: time }, { requiredKeys: [] }), anyValue);
const recallOptions = fc.oneof(
  fc.record({
    k: fc.oneof(fc.integer({ min: -1, max: 50 }), anyValue),
    mode: fc.oneof(fc.constantFrom('hybrid', 'vector', 'lexical', 'graph'), anyValue),
    weights: fc.oneof(fc.record({ vector: fc.double(), lexical: fc.double(), graph: fc.double(), time: fc.double() }, { requiredKeys: [] }), anyValue),
    anchors: fc.oneof(fc.array(id, { maxLength: 3 }), anyValue),
    depth: fc.oneof(fc.integer({ min: -1, max: 5 }), anyValue),
    asOf: time,
    filter: fc.oneof(fc.record({ kind: label, domain: label, metadata }, { requiredKeys: [] }), anyValue),
    edgeTypes: fc.oneof(fc.array(edgeType, { maxLength: 2 }), anyValue),
    fusion: fc.oneof(fc.constantFrom('rrf', 'linear'), anyValue),
    rerank: fc.oneof(fc.boolean(), anyValue),
    queryEmbedding: vector,
    explain: fc.oneof(fc.boolean(), anyValue),
  }, { requiredKeys: [] }),
  anyValue,
);
const query = fc.oneof({ weight: 4, arbitrary: fc.lorem({ maxCount: 5 }) }, { weight: 2, arbitrary: hostileString }, { weight: 1, arbitrary: anyValue });
const traceOptions = fc.oneof(fc.record({ depth: fc.oneof(fc.integer({ min: -1, max: 4 }), anyValue), direction: fc.oneof(fc.constantFrom('out', 'in', 'both'), anyValue), edgeTypes: fc.oneof(fc.array(edgeType, { maxLength: 2 }), anyValue) }, { requiredKeys: [] }), anyValue);

const listOptions = fc.oneof(
  fc.record({ offset: fc.oneof(fc.integer({ min: -1, max: 8 }), anyValue), limit: fc.oneof(fc.integer({ min: 0, max: 1001 }), anyValue), kind: label, domain: label, idPrefix: fc.oneof(fc.constantFrom('a', 'b', ''), hostileString) }, { requiredKeys: [] }),
  anyValue,
);

export type Call =
  | { m: 'store'; input: unknown } | { m: 'storeMany'; inputs: unknown } | { m: 'update'; id: unknown; patch: unknown }
  | { m: 'forget'; id: unknown } | { m: 'get'; id: unknown } | { m: 'list'; options: unknown } | { m: 'edges'; id: unknown; options: unknown }
  | { m: 'relate'; from: unknown; to: unknown; type: unknown; options: unknown } | { m: 'relateMany'; edges: unknown }
  | { m: 'unrelate'; pick: number; junk: unknown } | { m: 'autoEdges' | 'removeAutoEdges'; options: unknown }
  | { m: 'recall' | 'recallReport' | 'compare' | 'context'; query: unknown; options: unknown }
  | { m: 'checkCitations'; text: unknown; evidence: unknown } | { m: 'trace'; target: unknown; options: unknown }
  | { m: 'path'; from: unknown; to: unknown; options: unknown } | { m: 'reembed'; options: unknown }
  | { m: 'ready' | 'stats' | 'compact' | 'exportDatabase' | 'exportSnapshot' }
  | { m: 'restoreSnapshot'; pick: number; flip: number | null; options: unknown }
  | { m: 'importSnapshot'; junk: unknown; options: unknown } | { m: 'open'; options: unknown };

export const call: fc.Arbitrary<Call> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ m: fc.constant('store' as const), input }) },
  { weight: 3, arbitrary: fc.record({ m: fc.constant('storeMany' as const), inputs: fc.oneof(fc.array(input, { maxLength: 4 }), anyValue) }) },
  { weight: 5, arbitrary: fc.record({ m: fc.constant('update' as const), id, patch }) },
  { weight: 3, arbitrary: fc.record({ m: fc.constant('forget' as const), id }) },
  { weight: 4, arbitrary: fc.record({ m: fc.constant('get' as const), id }) },
  { weight: 2, arbitrary: fc.record({ m: fc.constant('list' as const), options: listOptions }) },
  { weight: 2, arbitrary: fc.record({ m: fc.constant('edges' as const), id, options: fc.oneof(fc.record({ direction: anyValue }), anyValue) }) },
  { weight: 5, arbitrary: fc.record({ m: fc.constant('relate' as const), from: id, to: id, type: edgeType, options: relateOptions }) },
  { weight: 2, arbitrary: fc.record({ m: fc.constant('relateMany' as const), edges: fc.oneof(fc.array(fc.record({ from: id, to: id, type: edgeType }), { maxLength: 3 }), anyValue) }) },
  { weight: 2, arbitrary: fc.record({ m: fc.constant('unrelate' as const), pick: fc.nat(), junk: anyValue }) },
  { weight: 1, arbitrary: fc.record({ m: fc.constantFrom('autoEdges' as const, 'removeAutoEdges' as const), options: fc.oneof(fc.record({ by: anyValue }), anyValue) }) },
  { weight: 6, arbitrary: fc.record({ m: fc.constantFrom('recall' as const, 'recallReport' as const, 'compare' as const, 'context' as const), query, options: recallOptions }) },
  { weight: 2, arbitrary: fc.record({ m: fc.constant('checkCitations' as const), text: fc.oneof(fc.constantFrom('[M1] and [a]', '[b]'), anyValue), evidence: fc.oneof(fc.array(anyValue, { maxLength: 3 }), fc.record({ items: fc.array(anyValue, { maxLength: 3 }) }), anyValue) }) },
  { weight: 2, arbitrary: fc.record({ m: fc.constant('trace' as const), target: fc.oneof(id, query), options: traceOptions }) },
  { weight: 2, arbitrary: fc.record({ m: fc.constant('path' as const), from: id, to: id, options: traceOptions }) },
  { weight: 1, arbitrary: fc.record({ m: fc.constantFrom('ready' as const, 'stats' as const, 'compact' as const, 'exportDatabase' as const, 'exportSnapshot' as const) }) },
  { weight: 1, arbitrary: fc.record({ m: fc.constant('reembed' as const), options: fc.oneof(fc.constant(undefined), anyValue) }) },
  { weight: 1, arbitrary: fc.record({ m: fc.constant('restoreSnapshot' as const), pick: fc.nat(), flip: fc.option(fc.nat()), options: fc.oneof(fc.constant(undefined), anyValue) }) },
  { weight: 1, arbitrary: fc.record({ m: fc.constant('importSnapshot' as const), junk: anyValue, options: anyValue }) },
  { weight: 1, arbitrary: fc.record({ m: fc.constant('open' as const), options: anyValue }) },
);

/** Ids a careful caller gives its memories (others get generated ones): 600 calls grow a store to ~170 memories and ~30 edges. */
const OWN_IDS = Array.from({ length: 60 }, (_, i) => `m${i}`);
const ownId = fc.constantFrom(...OWN_IDS);
/** Epoch ms from 2020 to 2027, so recency and as-of queries matter. */
const moment = fc.integer({ min: 1_577_836_800_000, max: 1_798_761_600_000 });
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
const goodInput = fc.record(
  { text: fc.lorem({ maxCount: 14 }), id: optional(ownId), kind: optional(fc.constantFrom('note', 'decision', 'fact')), domain: optional(fc.constantFrom('infra', 'search')), createdAt: optional(moment) },
  { requiredKeys: ['text'] },
);
const goodType = fc.constantFrom('SUPERSEDES', 'DEPENDS_ON', 'RELATES_TO', 'DERIVED_FROM', 'REFERENCES');
const goodQuery = fc.lorem({ maxCount: 6 });
const goodRecall = fc.record(
  {
    k: fc.integer({ min: 1, max: 30 }),
    mode: fc.constantFrom('hybrid', 'vector', 'lexical', 'graph'),
    fusion: fc.constantFrom('rrf', 'linear'),
    asOf: moment,
    includeHistorical: fc.boolean(),
    halfLifeDays: fc.integer({ min: 1, max: 400 }),
    anchors: fc.array(ownId, { maxLength: 2 }),
    filter: fc.record({ kind: fc.constantFrom('note', 'decision', 'fact') }),
  },
  { requiredKeys: [] },
);
const goodWalk = fc.record({ depth: fc.integer({ min: 0, max: 4 }), direction: fc.constantFrom('out', 'in', 'both'), edgeTypes: fc.array(goodType, { maxLength: 2 }) }, { requiredKeys: [] });

/**
 * Calls a careful caller makes: well-formed arguments over a small id space, so stores grow,
 * answers get long and the ranking itself is compared, not only the refusals.
 */
export const wellFormedCall: fc.Arbitrary<Call> = fc.oneof(
  { weight: 10, arbitrary: fc.record({ m: fc.constant('store' as const), input: goodInput }) },
  { weight: 3, arbitrary: fc.record({ m: fc.constant('storeMany' as const), inputs: fc.array(goodInput, { minLength: 1, maxLength: 6 }) }) },
  { weight: 3, arbitrary: fc.record({ m: fc.constant('update' as const), id: ownId, patch: fc.record({ text: fc.lorem({ maxCount: 10 }) }) }) },
  { weight: 1, arbitrary: fc.record({ m: fc.constant('forget' as const), id: ownId }) },
  { weight: 10, arbitrary: fc.record({ m: fc.constant('relate' as const), from: ownId, to: ownId, type: goodType, options: fc.constant(undefined) }) },
  { weight: 1, arbitrary: fc.record({ m: fc.constant('unrelate' as const), pick: fc.nat(), junk: fc.constant('none') }) },
  { weight: 8, arbitrary: fc.record({ m: fc.constantFrom('recall' as const, 'recallReport' as const, 'compare' as const, 'context' as const), query: goodQuery, options: goodRecall }) },
  { weight: 2, arbitrary: fc.record({ m: fc.constant('trace' as const), target: fc.oneof(ownId, goodQuery), options: goodWalk }) },
  { weight: 2, arbitrary: fc.record({ m: fc.constant('path' as const), from: ownId, to: ownId, options: goodWalk }) },
  { weight: 1, arbitrary: fc.record({ m: fc.constantFrom('get' as const), id: ownId }) },
  { weight: 1, arbitrary: fc.record({ m: fc.constant('list' as const), options: fc.record({ offset: fc.nat(40), limit: fc.integer({ min: 1, max: 50 }) }) }) },
  { weight: 1, arbitrary: fc.record({ m: fc.constant('stats' as const) }) },
);
