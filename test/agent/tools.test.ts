import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EDGE_TYPES, HybridMemory, TOOL_DEFINITIONS, TOOL_NAMES, handleToolCall, isToolError, toolSchemas, validateToolArguments,
  type Context, type JsonSchema, type ToolError, type ToolName,
} from '../../src/index.js';
import { typesOf } from '../../src/agent/json-schema.js';
import { DAY, NOW, openMemory } from '../support/memory.js';

const ok = <T>(result: object): T => {
  if (isToolError(result)) throw new Error(`tool error: ${result.error.code} ${result.error.message}`);
  return result as T;
};
const failure = (result: object): ToolError['error'] => {
  if (!isToolError(result)) throw new Error(`expected a tool error, got ${JSON.stringify(result)}`);
  return result.error;
};

describe('toolSchemas', () => {
  it('renders the five tools for OpenAI as function tools', () => {
    const tools = toolSchemas({ format: 'openai' });
    expect(tools.map((t) => t.function.name)).toEqual([...TOOL_NAMES]);
    for (const t of tools) {
      expect(t.type).toBe('function');
      expect(Object.keys(t.function).sort()).toEqual(['description', 'name', 'parameters']);
      expect(t.function.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      expect(t.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(t.function.description.length).toBeGreaterThan(80);
    }
  });

  it('renders for Anthropic with input_schema and for MCP with inputSchema and annotations', () => {
    const anthropic = toolSchemas({ format: 'anthropic' });
    const mcp = toolSchemas({ format: 'mcp' });
    for (const [i, name] of TOOL_NAMES.entries()) {
      expect(Object.keys(anthropic[i]!).sort()).toEqual(['description', 'input_schema', 'name']);
      expect(anthropic[i]!.input_schema).toEqual(TOOL_DEFINITIONS[name].inputSchema);
      expect(Object.keys(mcp[i]!).sort()).toEqual(['annotations', 'description', 'inputSchema', 'name']);
      expect(mcp[i]!.inputSchema).toEqual(TOOL_DEFINITIONS[name].inputSchema);
    }
    expect(mcp.find((t) => t.name === 'memory_forget')!.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(mcp.find((t) => t.name === 'memory_recall')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('renders OpenAI strict mode: every property required, optional ones nullable, no length keywords or free-form objects', () => {
    for (const t of toolSchemas({ format: 'openai', strict: true })) {
      expect(t.function.strict).toBe(true);
      const original = TOOL_DEFINITIONS[t.function.name].inputSchema;
      const walk = (s: JsonSchema, path: string): void => {
        expect(s, path).not.toHaveProperty('minLength');
        expect(s, path).not.toHaveProperty('maxLength');
        if (s.properties) {
          expect(s.required, path).toEqual(Object.keys(s.properties));
          expect(s.additionalProperties, path).toBe(false);
          for (const [k, child] of Object.entries(s.properties)) walk(child, `${path}.${k}`);
        }
        if (s.items) walk(s.items, `${path}[]`);
      };
      walk(t.function.parameters, t.function.name);
      for (const [key, child] of Object.entries(t.function.parameters.properties!)) {
        const wasRequired = original.required.includes(key);
        expect([child.type].flat().includes('null'), `${t.function.name}.${key}`).toBe(!wasRequired);
        if (child.enum) expect(child.enum.includes(null)).toBe(!wasRequired);
      }
      expect(t.function.parameters.properties).not.toHaveProperty('metadata');
    }
  });

  it('returns fresh objects: editing one rendering changes neither the next nor validation', () => {
    const first = toolSchemas({ format: 'anthropic' });
    (first[0]!.input_schema.properties!['text'] as { maxLength: number }).maxLength = 3;
    first[0]!.description = 'changed';
    expect(toolSchemas({ format: 'anthropic' })[0]!.description).not.toBe('changed');
    expect(() => validateToolArguments('memory_store', { text: 'longer than three' })).not.toThrow();
  });

  it('selects a subset with tools', () => {
    expect(toolSchemas({ format: 'mcp', tools: ['memory_context', 'memory_recall'] }).map((t) => t.name)).toEqual(['memory_recall', 'memory_context']);
  });

  it.each([
    ['unknown format', { format: 'gemini' }],
    ['unknown option', { format: 'openai', colour: 'red' }],
    ['strict outside openai', { format: 'anthropic', strict: true }],
    ['unknown tool in the subset', { format: 'mcp', tools: ['memory_drop'] }],
    ['not an object', 'openai'],
  ])('throws INVALID_ARGUMENT for %s', (_label, options) => {
    expect(() => toolSchemas(options as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('handleToolCall', () => {
  let mem: HybridMemory;

  beforeAll(async () => {
    mem = await openMemory();
  });
  afterAll(async () => mem.close());

  it('stores, recalls with ISO dates and per-leg ranks, relates, supersedes and forgets', async () => {
    const old = ok<{ id: string; superseded: string[] }>(
      await handleToolCall(mem, 'memory_store', { id: 'adr-003', text: 'ADR-003: agent memory lives in IndexedDB', kind: 'decision', validFrom: '2025-10-01' }),
    );
    expect(old).toEqual({ id: 'adr-003', superseded: [] });
    const fresh = ok<{ id: string; superseded: string[] }>(
      await handleToolCall(mem, 'memory_store', { id: 'adr-007', text: 'ADR-007: agent memory lives in SQLite-WASM on OPFS', kind: 'decision', metadata: { source: 'arch review' }, supersedes: ['adr-003'] }),
    );
    expect(fresh).toEqual({ id: 'adr-007', superseded: ['adr-003'] });
    const generated = ok<{ id: string }>(await handleToolCall(mem, 'memory_store', { text: 'The sync service depends on the OPFS storage layer' }));
    expect(generated.id).toEqual(expect.any(String));

    const relation = ok<{ edgeId: string; toStatus: string }>(await handleToolCall(mem, 'memory_relate', { from: generated.id, to: 'adr-007', type: 'DEPENDS_ON', weight: 2 }));
    expect(relation).toMatchObject({ from: generated.id, to: 'adr-007', type: 'DEPENDS_ON', toStatus: 'current', edgeId: expect.any(String) });
    expect(await mem.edges(generated.id, { direction: 'out' })).toMatchObject([{ to: 'adr-007', type: 'DEPENDS_ON', weight: 2 }]);

    await mem.ready();
    const { hits } = ok<{ hits: Array<Record<string, unknown>> }>(await handleToolCall(mem, 'memory_recall', { query: 'where does agent memory live?' }));
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(5);
    const top = hits.find((h) => h['id'] === 'adr-007')!;
    expect(top).toMatchObject({ text: expect.stringContaining('OPFS'), status: 'current', kind: 'decision', metadata: { source: 'arch review' }, validTo: null });
    expect(top['createdAt']).toBe(new Date(NOW).toISOString());
    expect(Object.keys(top['ranks'] as object).length).toBeGreaterThan(0);
    expect(Object.keys(top).every((k) => ['id', 'text', 'status', 'score', 'createdAt', 'validFrom', 'validTo', 'ranks', 'kind', 'domain', 'metadata', 'via', 'relation', 'speaker'].includes(k))).toBe(true);
    expect(hits.find((h) => h['id'] === 'adr-003')).toMatchObject({ status: 'historical', validTo: new Date(NOW).toISOString() });
    expect(JSON.parse(JSON.stringify(hits))).toEqual(hits);

    const asked = ok<{ hits: Array<Record<string, unknown>> }>(await handleToolCall(mem, 'memory_recall', { query: 'what does the sync service depend on?' }));
    expect(asked.hits[0]).toMatchObject({ id: 'adr-007', relation: 'DEPENDS_ON', via: [generated.id] });
    ok(await handleToolCall(mem, 'memory_store', { id: 'maria-bread', text: 'Maria: I baked sourdough bread this morning' }));
    await mem.ready();
    const said = ok<{ hits: Array<Record<string, unknown>> }>(await handleToolCall(mem, 'memory_recall', { query: 'What did Maria bake?' }));
    expect(said.hits.find((h) => h['id'] === 'maria-bread')).toMatchObject({ speaker: 'Maria' });
    ok(await handleToolCall(mem, 'memory_forget', { id: 'maria-bread' }));

    const current = ok<{ hits: Array<{ id: string }> }>(await handleToolCall(mem, 'memory_recall', { query: 'agent memory', includeHistorical: false, kind: ['decision'], k: 10 }));
    expect(current.hits.map((h) => h.id)).toEqual(['adr-007']);

    expect(ok(await handleToolCall(mem, 'memory_forget', { id: generated.id }))).toEqual({ id: generated.id, forgotten: true });
    expect(await mem.get(generated.id)).toBeNull();
  });

  it('accepts the JSON string arguments OpenAI-style APIs give, and null for optional fields', async () => {
    const stored = ok<{ id: string }>(await handleToolCall(mem, 'memory_store', JSON.stringify({ text: 'Order #4821 shipped late', kind: null, supersedes: null })));
    expect((await mem.get(stored.id))!.kind).toBeNull();
    const { hits } = ok<{ hits: Array<{ id: string }> }>(await handleToolCall(mem, 'memory_recall', '{"query":"#4821","mode":"lexical","k":null,"asOf":null}'));
    expect(hits[0]!.id).toBe(stored.id);
  });

  it('recalls the memories stored without a kind or domain when the filter holds null', async () => {
    await mem.store({ id: 'unlabelled-note', text: 'Quarterly audit: the vendor list lives in the finance wiki' });
    await mem.store({ id: 'labelled-note', text: 'Quarterly audit: the vendor list moved to the procurement wiki', kind: 'decision', domain: 'finance' });
    const ids = async (filter: object) =>
      ok<{ hits: Array<{ id: string }> }>(await handleToolCall(mem, 'memory_recall', { query: 'quarterly audit vendor list', mode: 'lexical', k: 10, ...filter })).hits.map((h) => h.id).sort();
    expect(await ids({ kind: [null] })).toEqual(['unlabelled-note']);
    expect(await ids({ domain: [null] })).toEqual(['unlabelled-note']);
    expect(await ids({ kind: ['decision', null] })).toEqual(['labelled-note', 'unlabelled-note']);
    expect(await ids({ kind: ['decision'] })).toEqual(['labelled-note']);
    const anthropic = toolSchemas({ format: 'anthropic', tools: ['memory_recall'] })[0]!.input_schema;
    const mcp = toolSchemas({ format: 'mcp', tools: ['memory_recall'] })[0]!.inputSchema;
    for (const schema of [anthropic, mcp]) expect(schema.properties!['kind']!.items!.type).toEqual(['string', 'null']);
    const strict = toolSchemas({ format: 'openai', strict: true, tools: ['memory_recall'] })[0]!.function.parameters;
    expect(strict.properties!['domain']).toMatchObject({ type: ['array', 'null'], items: { type: ['string', 'null'] } });
    await mem.forget('unlabelled-note');
    await mem.forget('labelled-note');
  });

  it('answers as of a past time', async () => {
    await mem.store({ id: 'plan-a', text: 'Launch plan: ship the beta in March', createdAt: NOW - 60 * DAY });
    ok(await handleToolCall(mem, 'memory_store', { id: 'plan-b', text: 'Launch plan: ship the beta in May', supersedes: ['plan-a'] }));
    const recall = async (asOf?: string) =>
      ok<{ hits: Array<{ id: string; status: string }> }>(await handleToolCall(mem, 'memory_recall', { query: 'launch plan beta', mode: 'lexical', asOf })).hits;
    expect((await recall()).map((h) => [h.id, h.status]).sort()).toEqual([['plan-a', 'historical'], ['plan-b', 'current']]);
    expect((await recall(new Date(NOW - 30 * DAY).toISOString())).map((h) => [h.id, h.status])).toEqual([['plan-a', 'current']]);
  });

  it.each<[string, string, unknown, string, string?]>([
    ['unknown tool', 'memory_drop', {}, 'NOT_FOUND'],
    ['arguments not an object', 'memory_recall', [1, 2], 'INVALID_ARGUMENT', 'arguments'],
    ['arguments not JSON', 'memory_recall', '{query:', 'INVALID_ARGUMENT', 'arguments'],
    ['missing required field', 'memory_store', {}, 'INVALID_ARGUMENT', 'text'],
    ['wrong type', 'memory_recall', { query: 42 }, 'INVALID_ARGUMENT', 'query'],
    ['empty string', 'memory_store', { text: '' }, 'INVALID_ARGUMENT', 'text'],
    ['unknown field', 'memory_store', { text: 'x', colour: 'red' }, 'INVALID_ARGUMENT', 'colour'],
    ['k out of range', 'memory_recall', { query: 'q', k: 51 }, 'INVALID_ARGUMENT', 'k'],
    ['k not an integer', 'memory_recall', { query: 'q', k: 2.5 }, 'INVALID_ARGUMENT', 'k'],
    ['bad enum', 'memory_relate', { from: 'adr-007', to: 'adr-003', type: 'LIKES' }, 'INVALID_ARGUMENT', 'type'],
    ['nested item', 'memory_recall', { query: 'q', kind: ['decision', 7] }, 'INVALID_ARGUMENT', 'kind[1]'],
    ['metadata value not a scalar', 'memory_store', { text: 'x', metadata: { tags: ['a'] } }, 'INVALID_ARGUMENT', 'metadata.tags'],
    ['bad date', 'memory_store', { text: 'x', validFrom: 'yesterday-ish' }, 'INVALID_ARGUMENT', 'validFrom'],
    ['null on a required field', 'memory_forget', { id: null }, 'INVALID_ARGUMENT', 'id'],
    ['weight not positive', 'memory_relate', { from: 'adr-007', to: 'adr-003', type: 'SUPPORTS', weight: 0 }, 'INVALID_ARGUMENT', 'weight'],
    ['forget an unknown id', 'memory_forget', { id: 'ghost' }, 'NOT_FOUND'],
    ['relate an unknown id', 'memory_relate', { from: 'adr-007', to: 'ghost', type: 'SUPPORTS' }, 'NOT_FOUND'],
    ['supersede an unknown id', 'memory_store', { text: 'x', supersedes: ['ghost'] }, 'NOT_FOUND'],
    ['store a duplicate id', 'memory_store', { id: 'adr-007', text: 'again' }, 'CONFLICT'],
    ['relate twice', 'memory_relate', { from: 'adr-007', to: 'adr-003', type: 'SUPERSEDES' }, 'CONFLICT'],
    ['recall from an unknown anchor', 'memory_recall', { query: 'q', anchors: ['ghost'] }, 'NOT_FOUND'],
  ])('returns %s as a coded error', async (_label, name, args, code, field) => {
    const before = await mem.stats();
    const error = failure(await handleToolCall(mem, name, args));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(/^[a-zA-Z_.]+: /);
    if (field !== undefined) {
      expect(error.field).toBe(field);
      expect(error.message).toContain(field.replace(/\[\d+\]$/, ''));
    }
    const after = await mem.stats();
    expect([after.memories, after.edges]).toEqual([before.memories, before.edges]);
  });

  it('refuses tools outside an allowed subset', async () => {
    const error = failure(await handleToolCall(mem, 'memory_forget', { id: 'adr-007' }, { tools: ['memory_recall', 'memory_context'] }));
    expect(error.code).toBe('NOT_FOUND');
    expect(await mem.get('adr-007')).not.toBeNull();
  });

  it('reports CLOSED for a closed store', async () => {
    const closed = await openMemory();
    await closed.close();
    expect(failure(await handleToolCall(closed, 'memory_recall', { query: 'q' })).code).toBe('CLOSED');
  });

  it('memory_context returns evidence with citation ids that checkCitations accepts', async () => {
    const text = ok<{ context: string; items: Array<{ cite: string; id: string }> }>(
      await handleToolCall(mem, 'memory_context', { query: 'where does agent memory live?', budgetTokens: 256, maxItems: 3 }),
    );
    expect(text.context).toContain('OPFS');
    const cite = text.items.find((i) => i.id === 'adr-007')!.cite;
    expect(await mem.checkCitations(`It lives in OPFS [${cite}].`, text as unknown as Context)).toMatchObject({ ok: true, memoryIds: ['adr-007'] });
    expect(await mem.checkCitations('It lives in OPFS [M99].', text as unknown as Context)).toMatchObject({ ok: false, unknown: ['M99'] });
    const json = ok<Record<string, unknown>>(await handleToolCall(mem, 'memory_context', { query: 'where does agent memory live?', format: 'json' }));
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    expect(failure(await handleToolCall(mem, 'memory_context', { query: 'q', budgetTokens: 10 })).field).toBe('budgetTokens');
  });

  it('passes memory_context options through to mem.context and trims what comes back', async () => {
    const calls: unknown[] = [];
    const items = [{ cite: 'M1', id: 'adr-007', text: 'ADR-007: OPFS', status: 'current', validFrom: '2026-10-31', validTo: null, score: 0.03, tokens: 12, truncated: false }];
    const fake = Object.assign(Object.create(mem) as HybridMemory, {
      context: async (query: string, options: { format?: string }) => {
        calls.push([query, options]);
        return { content: options.format === 'json' ? JSON.stringify(items) : '[M1] (current, since 2026-10-31) ADR-007: OPFS', items, tokens: 12, tokenizer: 'estimate', dropped: {} };
      },
    });
    expect(ok(await handleToolCall(fake, 'memory_context', { query: 'q', budgetTokens: 512, maxPerSource: 2 }))).toEqual({
      context: '[M1] (current, since 2026-10-31) ADR-007: OPFS',
      items: [{ cite: 'M1', id: 'adr-007', status: 'current' }],
      tokens: 12,
    });
    expect(ok(await handleToolCall(fake, 'memory_context', { query: 'q', format: 'json' }))).toEqual({
      items: [{ cite: 'M1', id: 'adr-007', text: 'ADR-007: OPFS', status: 'current', validFrom: '2026-10-31', validTo: null, truncated: false }],
      tokens: 12,
    });
    expect(calls).toEqual([['q', { budgetTokens: 512, maxPerSource: 2 }], ['q', { format: 'json' }]]);
  });
});

/** Arbitrary values that satisfy a schema of the subset, with optional fields present or not. */
function valid(schema: JsonSchema): fc.Arbitrary<unknown> {
  const types = typesOf(schema);
  if (types.length > 1 && types.includes('null')) return fc.oneof(valid({ ...schema, type: types.filter((t) => t !== 'null') }), fc.constant(null));
  const type = types[0];
  if (schema.enum) return fc.constantFrom(...schema.enum.filter((v) => v !== null));
  switch (type) {
    case 'string':
      return fc.string({ minLength: Math.max(schema.minLength ?? 0, 1), maxLength: Math.min(schema.maxLength ?? 40, 40), unit: 'grapheme-ascii' })
        .map((s) => (schema.description?.includes('ISO 8601') ? '2026-03-01' : s));
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: (schema.exclusiveMinimum ?? schema.minimum ?? -1000) + 1e-6, max: schema.maximum ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(valid(schema.items!), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case 'object': {
      if (!schema.properties) return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 3 });
      const required = Object.fromEntries((schema.required ?? []).map((k) => [k, valid(schema.properties![k]!)]));
      const optional = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !schema.required?.includes(k)).map(([k, s]) => [k, valid(s)]));
      return fc.record({ ...required, ...optional }, { requiredKeys: Object.keys(required) as never });
    }
    default:
      return fc.anything();
  }
}

describe('tool schemas and validation agree', () => {
  it.each(TOOL_NAMES.map((n) => [n]))('%s accepts its required fields alone', (name: ToolName) => {
    const schema = TOOL_DEFINITIONS[name].inputSchema;
    fc.assert(fc.property(fc.record(Object.fromEntries(schema.required.map((k) => [k, valid(schema.properties[k]!)]))), (args) => {
      expect(validateToolArguments(name, args)).toEqual(args);
    }));
  });

  it.each(TOOL_NAMES.map((n) => [n]))('%s accepts any valid arguments and rejects any unknown field', (name: ToolName) => {
    const schema = TOOL_DEFINITIONS[name].inputSchema;
    const unknownKey = fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !Object.hasOwn(schema.properties, k) && k !== '__proto__');
    fc.assert(fc.property(valid(schema), unknownKey, fc.jsonValue(), (args, key, value) => {
      expect(validateToolArguments(name, args)).toEqual(args);
      expect(() => validateToolArguments(name, { ...(args as object), [key]: value })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field: key }));
    }), { numRuns: 200 });
  });

  it.each(TOOL_NAMES.map((n) => [n]))('%s: arguments valid for strict OpenAI (all fields, nulls for the unused) validate too', (name: ToolName) => {
    const strict = toolSchemas({ format: 'openai', strict: true, tools: [name] })[0]!.function.parameters;
    fc.assert(fc.property(valid(TOOL_DEFINITIONS[name].inputSchema), (args) => {
      const full = Object.fromEntries(Object.keys(strict.properties!).map((k) => [k, (args as Record<string, unknown>)[k] ?? null]));
      const expected = Object.fromEntries(Object.entries(full).filter(([, v]) => v !== null));
      expect(validateToolArguments(name, full)).toEqual(expected);
    }), { numRuns: 100 });
  });

  it('the relate enum is the canonical edge types', () => {
    expect(TOOL_DEFINITIONS.memory_relate.inputSchema.properties['type']!.enum).toEqual(Object.values(EDGE_TYPES));
  });
});
