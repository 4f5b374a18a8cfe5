/**
 * The three provider renderings of one `ToolDefinition`. Each call returns fresh objects, so a
 * caller that edits a description (or a provider SDK that mutates what it is given) cannot change
 * what `handleToolCall` enforces.
 */
import type { ToolAnnotations, ToolDefinition, ToolName } from './definitions.js';
import { allowsNull, typesOf, type JsonSchema, type JsonType } from './json-schema.js';

export interface OpenAITool {
  type: 'function';
  function: { name: ToolName; description: string; parameters: JsonSchema; strict?: boolean | undefined };
}

export interface AnthropicTool {
  name: ToolName;
  description: string;
  input_schema: JsonSchema;
}

export interface McpTool {
  name: ToolName;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  annotations: ToolAnnotations;
}

export function toOpenAI(tool: ToolDefinition, strict: boolean): OpenAITool {
  const parameters = strict ? strictSchema(tool.inputSchema) : clone(tool.inputSchema);
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters, ...(strict ? { strict: true } : {}) } };
}

export function toAnthropic(tool: ToolDefinition): AnthropicTool {
  return { name: tool.name, description: tool.description, input_schema: clone(tool.inputSchema) };
}

export function toMcp(tool: ToolDefinition): McpTool {
  return { name: tool.name, description: tool.description, inputSchema: clone(tool.inputSchema), annotations: { ...tool.annotations } };
}

/**
 * OpenAI's strict mode (Structured Outputs) wants every property listed in `required`, optional
 * ones made nullable, no length keywords and no free-form objects. The validator reads `null` on
 * an optional field as "not given", so strict arguments validate against the original schema;
 * free-form objects (metadata) are left out of this rendering.
 */
function strictSchema(schema: JsonSchema): JsonSchema {
  const { minLength: _min, maxLength: _max, ...rest } = schema;
  const out: JsonSchema = clone(rest);
  if (schema.items) out.items = strictSchema(schema.items);
  if (schema.properties) {
    const required = new Set(schema.required ?? []);
    const properties: Record<string, JsonSchema> = {};
    for (const [name, child] of Object.entries(schema.properties)) {
      if (isFreeForm(child)) continue;
      const strict = strictSchema(child);
      properties[name] = required.has(name) ? strict : nullable(strict);
    }
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  return out;
}

function isFreeForm(schema: JsonSchema): boolean {
  return typesOf(schema).includes('object') && schema.additionalProperties !== false;
}

function nullable(schema: JsonSchema): JsonSchema {
  if (allowsNull(schema)) return schema;
  const types: JsonType[] = [...typesOf(schema), 'null'];
  return { ...schema, type: types, ...(schema.enum ? { enum: [...schema.enum, null] } : {}) };
}

function clone<T>(value: T): T {
  return structuredClone(value);
}
