/**
 * Memory as tools for an LLM: `toolSchemas()` describes them for a provider, `handleToolCall()`
 * runs the call the model made. Both read the definitions in `definitions.ts`.
 */
import { HybridMindError, show, type ErrorCode } from '../errors.js';
import type { HybridMemory } from '../hybrid-memory.js';
import { TOOL_DEFINITIONS, TOOL_NAMES, type ToolName } from './definitions.js';
import { HANDLERS, type Args } from './handlers.js';
import { checkKeys, keysOf } from '../memory/validate.js';
import { SchemaViolation, assertSupportedSchema, validate } from './json-schema.js';
import { toAnthropic, toMcp, toOpenAI, type AnthropicTool, type McpTool, type OpenAITool } from './render.js';

export type ToolFormat = 'openai' | 'anthropic' | 'mcp';

export interface ToolSchemaOptions {
  format: ToolFormat;
  /** Only these tools, e.g. `['memory_recall', 'memory_context']` for an agent that must not write. Default: all five. */
  tools?: readonly ToolName[] | undefined;
  /**
   * OpenAI only: render for Structured Outputs (`strict: true`): every field required, optional
   * ones nullable, metadata fields left out. Default false.
   */
  strict?: boolean | undefined;
}

/** What `handleToolCall` returns when the call failed: the `HybridMindError` code and message. */
export interface ToolError {
  error: { code: ErrorCode; message: string; field?: string | undefined };
}

export interface HandleToolCallOptions {
  /** Refuse every tool not listed (NOT_FOUND), to match a `toolSchemas({ tools })` subset. */
  tools?: readonly ToolName[] | undefined;
}

for (const name of TOOL_NAMES) assertSupportedSchema(TOOL_DEFINITIONS[name].inputSchema);

/**
 * The memory tools described for a provider's tool-calling API.
 *
 * @example
 * const tools = toolSchemas({ format: 'openai' });        // [{ type: 'function', function: { name, description, parameters } }, …]
 * const tools = toolSchemas({ format: 'anthropic' });     // [{ name, description, input_schema }, …]
 * const tools = toolSchemas({ format: 'mcp', tools: ['memory_recall'] });
 */
export function toolSchemas(options: ToolSchemaOptions & { format: 'openai' }): OpenAITool[];
export function toolSchemas(options: ToolSchemaOptions & { format: 'anthropic' }): AnthropicTool[];
export function toolSchemas(options: ToolSchemaOptions & { format: 'mcp' }): McpTool[];
export function toolSchemas(options: ToolSchemaOptions): Array<OpenAITool | AnthropicTool | McpTool>;
export function toolSchemas(options: ToolSchemaOptions): Array<OpenAITool | AnthropicTool | McpTool> {
  const method = 'toolSchemas';
  if (options === null || typeof options !== 'object') throw new HybridMindError('INVALID_ARGUMENT', method, `options must be { format: 'openai' | 'anthropic' | 'mcp' }, received ${show(options)}`);
  checkKeys(method, 'options', options, keysOf<ToolSchemaOptions>({ format: true, tools: true, strict: true }));
  const { format, strict = false } = options;
  if (typeof strict !== 'boolean') throw new HybridMindError('INVALID_ARGUMENT', method, `options.strict must be a boolean, received ${show(strict)}`);
  if (strict && format !== 'openai') throw new HybridMindError('INVALID_ARGUMENT', method, `options.strict applies to format 'openai' only, received format ${show(format)}`);
  const names = selectTools(method, options.tools);
  switch (format) {
    case 'openai': return names.map((n) => toOpenAI(TOOL_DEFINITIONS[n], strict));
    case 'anthropic': return names.map((n) => toAnthropic(TOOL_DEFINITIONS[n]));
    case 'mcp': return names.map((n) => toMcp(TOOL_DEFINITIONS[n]));
    default: throw new HybridMindError('INVALID_ARGUMENT', method, `options.format must be 'openai', 'anthropic' or 'mcp', received ${show(format)}`);
  }
}

/**
 * Checks a tool call's arguments against the tool's schema without running it. Returns the
 * arguments to use (optional fields sent as `null` removed); throws INVALID_ARGUMENT naming the
 * field, or NOT_FOUND for an unknown tool.
 */
export function validateToolArguments(name: string, args: unknown): Record<string, unknown> {
  const tool = TOOL_DEFINITIONS[toolName(name, TOOL_NAMES)];
  let parsed = args ?? {};
  if (typeof parsed === 'string') {
    // OpenAI-style APIs hand over the arguments as a JSON string.
    try {
      parsed = parsed.trim() === '' ? {} : JSON.parse(parsed);
    } catch {
      throw fieldError(tool.name, 'arguments', `the arguments must be a JSON object, received ${show(parsed)}`);
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw fieldError(tool.name, 'arguments', `the arguments must be an object, received ${show(parsed)}`);
  }
  let checked: Args;
  try {
    checked = validate(tool.inputSchema, parsed, '') as Args;
  } catch (error) {
    if (error instanceof SchemaViolation) throw fieldError(tool.name, error.field, error.message);
    throw error;
  }
  for (const field of TIME_FIELDS[tool.name] ?? []) {
    const value = checked[field];
    if (typeof value === 'string' && Number.isNaN(Date.parse(value))) {
      throw fieldError(tool.name, field, `${field} must be an ISO 8601 date or date-time, received ${show(value)}`);
    }
  }
  return checked;
}

const TIME_FIELDS: Partial<Record<ToolName, readonly string[]>> = {
  memory_store: ['validFrom', 'validTo'],
  memory_recall: ['asOf'],
};

/**
 * Runs the tool call a model made against `mem`: validates the arguments (an object, or the JSON
 * string OpenAI-style APIs give), calls the API and returns a JSON-serialisable result. Every
 * failure the library reports — bad arguments, unknown ids, a closed store — comes back as
 * `{ error: { code, message } }` for the model to read; only bugs throw.
 *
 * @example
 * for (const call of response.tool_calls) {
 *   const result = await handleToolCall(mem, call.function.name, call.function.arguments);
 *   messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
 * }
 */
export async function handleToolCall(mem: HybridMemory, name: string, args: unknown, options: HandleToolCallOptions = {}): Promise<object | ToolError> {
  try {
    const allowed = options.tools === undefined ? TOOL_NAMES : selectTools('handleToolCall', options.tools);
    const tool = toolName(name, allowed);
    const checked = validateToolArguments(tool, args);
    return await HANDLERS[tool](mem, checked);
  } catch (error) {
    if (error instanceof HybridMindError) {
      return { error: { code: error.code, message: error.message, ...(error instanceof ToolArgumentError ? { field: error.field } : {}) } };
    }
    throw error;
  }
}

/** True when `result` is the `{ error }` shape `handleToolCall` returns on failure. */
export function isToolError(result: unknown): result is ToolError {
  return typeof result === 'object' && result !== null && 'error' in result && typeof (result as ToolError).error?.code === 'string';
}

function toolName(name: unknown, allowed: readonly ToolName[]): ToolName {
  if (typeof name === 'string' && (allowed as readonly string[]).includes(name)) return name as ToolName;
  throw new HybridMindError('NOT_FOUND', 'handleToolCall', `tool ${show(name)} does not exist; available: ${allowed.join(', ')}`);
}

function selectTools(method: string, tools: unknown): readonly ToolName[] {
  if (tools === undefined) return TOOL_NAMES;
  if (!Array.isArray(tools) || tools.some((t) => !(TOOL_NAMES as readonly string[]).includes(t))) {
    throw new HybridMindError('INVALID_ARGUMENT', method, `options.tools must be an array of ${TOOL_NAMES.join(', ')}, received ${show(tools)}`);
  }
  return TOOL_NAMES.filter((n) => tools.includes(n));
}

/** INVALID_ARGUMENT that also says which argument, so an app can point at it without parsing the message. */
export class ToolArgumentError extends HybridMindError {
  readonly field: string;

  constructor(tool: ToolName, field: string, message: string) {
    super('INVALID_ARGUMENT', tool, message);
    this.field = field;
  }
}

function fieldError(tool: ToolName, field: string, message: string): ToolArgumentError {
  return new ToolArgumentError(tool, field, message);
}

export { TOOL_DEFINITIONS, TOOL_NAMES, type ToolName, type ToolDefinition, type ToolAnnotations } from './definitions.js';
export type { JsonSchema, JsonType, JsonScalar } from './json-schema.js';
export type { OpenAITool, AnthropicTool, McpTool } from './render.js';
export type { ToolHit } from './results.js';
export type { StoreResult, RecallResult, RelateResult, ForgetResult, ContextResult } from './handlers.js';
export { TOOL_RECALL_K } from './handlers.js';
