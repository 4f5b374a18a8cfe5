/**
 * The five memory tools, defined once. `toolSchemas()` renders them for each provider and
 * `handleToolCall()` validates against the same objects, so what the model is told and what is
 * enforced cannot differ. Descriptions are written for the model: when to call, what comes back.
 */
import { MAX_ID_LENGTH, MAX_LABEL_LENGTH } from '../validation/rules.js';
import { EDGE_TYPES, RECALL_MODES } from '../types.js';
import { CONTEXT_FORMATS } from './context.js';
import type { JsonSchema } from './json-schema.js';

export const TOOL_NAMES = ['memory_store', 'memory_recall', 'memory_relate', 'memory_forget', 'memory_context'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** MCP tool annotations: hints a client may use to ask before destructive calls. */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition {
  name: ToolName;
  description: string;
  inputSchema: JsonSchema & { type: 'object'; properties: Record<string, JsonSchema>; required: readonly string[]; additionalProperties: false };
  annotations: ToolAnnotations;
}

const id = (description: string): JsonSchema => ({ type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH, description });
const ids = (description: string, maxItems: number): JsonSchema => ({ type: 'array', items: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH }, minItems: 1, maxItems, description });
const label = (description: string): JsonSchema => ({ type: 'string', minLength: 1, maxLength: MAX_LABEL_LENGTH, description });
/** A filter's labels; `null` among them keeps the memories stored without one, as `recall`'s filter does. */
const labels = (description: string): JsonSchema => ({ type: 'array', items: { type: ['string', 'null'], minLength: 1, maxLength: MAX_LABEL_LENGTH }, minItems: 1, maxItems: 20, description });
const date = (description: string): JsonSchema => ({ type: 'string', minLength: 4, maxLength: 64, description: `${description} ISO 8601, e.g. "2026-03-01" or "2026-03-01T09:30:00Z".` });
const query: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 2000,
  description: 'What you are looking for, as a question or keywords. Keep identifiers exact (ADR-007, #4821, user names).',
};
/** Free-form: strict OpenAI mode cannot express it, so that rendering leaves it out. */
const metadata = (description: string): JsonSchema => ({
  type: 'object',
  additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
  description,
});

export const MEMORY_STORE: ToolDefinition = {
  name: 'memory_store',
  description:
    'Save one fact, decision, preference or event to long-term memory so it can be recalled in later turns or sessions. ' +
    'Store one self-contained statement per call, written to make sense without this conversation: name the people, projects and identifiers it is about. ' +
    'Call memory_recall first if it may already be stored. If it replaces something already in memory (a changed decision, a corrected fact), ' +
    'pass the old memory ids in `supersedes`: they stay searchable as history but are marked historical. ' +
    'Returns { id, superseded }: keep the id to relate or supersede this memory later.',
  inputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1, maxLength: 20_000, description: 'The memory itself, one self-contained statement.' },
      id: id('A stable identifier you choose, e.g. "adr-007" or "pref-editor"; it must not exist yet. Omit it to get a generated one.'),
      kind: label('A category, e.g. "decision", "preference", "fact", "event", "task".'),
      domain: label('The project, person or area it belongs to.'),
      metadata: metadata('Extra key/value facts with string, number or boolean values, e.g. {"source": "standup 2026-03-02"}.'),
      validFrom: date('When it became true. Default: now.'),
      validTo: date('When it stopped being true, if that is already known.'),
      supersedes: ids('Ids of memories this one replaces; they become historical.', 20),
    },
    required: ['text'],
    additionalProperties: false,
  },
  annotations: { title: 'Store a memory', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
};

export const MEMORY_RECALL: ToolDefinition = {
  name: 'memory_recall',
  description:
    'Search long-term memory. Call it before answering about earlier conversations, decisions, people, preferences or anything you may have stored, ' +
    'and before storing, to avoid duplicates. It matches meaning, exact words and identifiers, links between memories, and recency. ' +
    'Returns { hits: [{ id, text, status, score, createdAt, validFrom, validTo, ranks }] }, best first. ' +
    'status "historical" means superseded or expired: prefer "current" hits unless the question is about the past. ' +
    '`ranks` tells which kind of search found a hit (vector = meaning, lexical = words, graph = links, time = recency). ' +
    'Use memory_context instead when you need evidence to quote with citations.',
  inputSchema: {
    type: 'object',
    properties: {
      query,
      k: { type: 'integer', minimum: 1, maximum: 50, description: 'How many hits to return. Default 5.' },
      mode: {
        type: 'string',
        enum: [...RECALL_MODES],
        description: 'hybrid (default) combines everything; lexical for exact words or identifiers only; vector for meaning only; graph for memories linked to the best matches or to `anchors`.',
      },
      asOf: date('Answer as of this time: only memories recorded by then, judged current or historical then.'),
      includeHistorical: { type: 'boolean', description: 'Default true. false returns only memories that are still true.' },
      kind: labels('Only memories of these kinds; null in the list also keeps the memories stored without a kind.'),
      domain: labels('Only memories of these domains; null in the list also keeps the memories stored without a domain.'),
      metadata: metadata('Only memories whose metadata has exactly these values.'),
      anchors: ids('Memory ids (from earlier hits) to start from: also finds memories linked to them.', 10),
      depth: { type: 'integer', minimum: 1, maximum: 4, description: 'How many links away from the anchors to look. Default 2.' },
    },
    required: ['query'],
    additionalProperties: false,
  },
  annotations: { title: 'Recall memories', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

export const MEMORY_RELATE: ToolDefinition = {
  name: 'memory_relate',
  description:
    'Link two stored memories with a typed, directed edge, so later searches can follow it to answers that share no words with the question ' +
    '(e.g. "what depends on the decision ADR-007 replaced?"). Read it as "from TYPE to": from "adr-007", to "adr-003", type SUPERSEDES means ' +
    'ADR-007 replaces ADR-003, which then becomes historical. Both ids must exist. Returns { edgeId, from, to, type, toStatus }.',
  inputSchema: {
    type: 'object',
    properties: {
      from: id('The id of the memory the edge starts from.'),
      to: id('The id of the memory the edge points to.'),
      type: {
        type: 'string',
        enum: Object.values(EDGE_TYPES),
        description: 'SUPERSEDES (from replaces to), DEPENDS_ON, DERIVED_FROM, RELATES_TO, IMPLEMENTS, EXTENDS, REFERENCES, CONTRADICTS or SUPPORTS.',
      },
      weight: { type: 'number', exclusiveMinimum: 0, maximum: 100, description: 'How strong the link is. Default 1.' },
    },
    required: ['from', 'to', 'type'],
    additionalProperties: false,
  },
  annotations: { title: 'Relate two memories', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
};

export const MEMORY_FORGET: ToolDefinition = {
  name: 'memory_forget',
  description:
    'Delete a memory and its links permanently. Only when the user asks you to forget something, or it was stored by mistake: ' +
    'for a fact that changed, store the new one with `supersedes` instead, which keeps the history. Returns { id, forgotten: true }.',
  inputSchema: {
    type: 'object',
    properties: { id: id('The id of the memory to delete.') },
    required: ['id'],
    additionalProperties: false,
  },
  annotations: { title: 'Forget a memory', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
};

export const MEMORY_CONTEXT: ToolDefinition = {
  name: 'memory_context',
  description:
    'Get the evidence from long-term memory for answering a question, packed to fit a token budget: the most relevant memories with near-duplicates removed, ' +
    'each tagged with a citation id, its status (current or historical) and its date. Call it before answering from memory; ' +
    'cite the items you use by their citation ids exactly as given, and cite nothing you were not given.',
  inputSchema: {
    type: 'object',
    properties: {
      query,
      budgetTokens: { type: 'integer', minimum: 64, maximum: 32_768, description: 'The most tokens the evidence may take. Default 2048.' },
      maxItems: { type: 'integer', minimum: 1, maximum: 50, description: 'The most memories to include. Default 8.' },
      maxPerSource: { type: 'integer', minimum: 1, maximum: 50, description: 'The most memories from one source. Default 3.' },
      format: { type: 'string', enum: [...CONTEXT_FORMATS], description: 'text (default): ready to read; json: structured items.' },
    },
    required: ['query'],
    additionalProperties: false,
  },
  annotations: { title: 'Evidence for a question', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

export const TOOL_DEFINITIONS: Readonly<Record<ToolName, ToolDefinition>> = {
  memory_store: MEMORY_STORE,
  memory_recall: MEMORY_RECALL,
  memory_relate: MEMORY_RELATE,
  memory_forget: MEMORY_FORGET,
  memory_context: MEMORY_CONTEXT,
};
