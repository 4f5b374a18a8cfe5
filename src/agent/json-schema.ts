/**
 * The JSON Schema subset the tool schemas use, and a validator for exactly that subset.
 *
 * A general validator (ajv) would add over 100 kB (minified) to every bundle that imports the tools, for keywords
 * the providers' tool-calling modes do not accept anyway; this one knows the dozen keywords the
 * schemas use and refuses a schema with any other, so the two cannot drift apart silently.
 */

import { show } from '../errors.js';
import { isPlainObject } from '../memory/validate.js';

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'null';
export type JsonScalar = string | number | boolean | null;

export interface JsonSchema {
  type?: JsonType | readonly JsonType[] | undefined;
  description?: string | undefined;
  enum?: readonly JsonScalar[] | undefined;
  minLength?: number | undefined;
  maxLength?: number | undefined;
  minimum?: number | undefined;
  maximum?: number | undefined;
  exclusiveMinimum?: number | undefined;
  items?: JsonSchema | undefined;
  minItems?: number | undefined;
  maxItems?: number | undefined;
  properties?: Readonly<Record<string, JsonSchema>> | undefined;
  required?: readonly string[] | undefined;
  /** `false`: unknown fields are an error; a schema: what every unlisted field must be. */
  additionalProperties?: boolean | JsonSchema | undefined;
}

/** An argument that does not fit its schema; `field` is its path, e.g. `filter.kind[1]`. */
export class SchemaViolation extends Error {
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

const KNOWN_KEYWORDS = new Set<string>([
  'type', 'description', 'enum', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum',
  'items', 'minItems', 'maxItems', 'properties', 'required', 'additionalProperties',
]);

/** Throws when a schema uses a keyword `validate` would silently ignore. */
export function assertSupportedSchema(schema: JsonSchema, path = '#'): void {
  for (const key of Object.keys(schema)) {
    if (!KNOWN_KEYWORDS.has(key)) throw new Error(`json-schema: ${path} uses the unsupported keyword "${key}"`);
  }
  if (schema.items) assertSupportedSchema(schema.items, `${path}/items`);
  for (const [name, child] of Object.entries(schema.properties ?? {})) assertSupportedSchema(child, `${path}/properties/${name}`);
  if (typeof schema.additionalProperties === 'object') assertSupportedSchema(schema.additionalProperties, `${path}/additionalProperties`);
}

export function typesOf(schema: JsonSchema): readonly JsonType[] {
  if (schema.type === undefined) return [];
  return typeof schema.type === 'string' ? [schema.type] : schema.type;
}

export function allowsNull(schema: JsonSchema): boolean {
  return typesOf(schema).includes('null') || (schema.enum?.includes(null) ?? false);
}

/**
 * Checks `value` against `schema` and returns it with optional fields that are `null` dropped:
 * strict tool-calling modes must send every field and send `null` for the ones the model leaves
 * out, so `null` on an optional field that does not itself accept null means "not given".
 * Throws a `SchemaViolation` naming the first field that does not fit.
 */
export function validate(schema: JsonSchema, value: unknown, field: string): unknown {
  const types = typesOf(schema);
  if (value === null && types.includes('null')) return null;
  if (types.length > 0 && !types.some((t) => hasType(t, value))) {
    throw new SchemaViolation(field, `${field} must be ${describeTypes(types)}, received ${show(value)}`);
  }
  if (schema.enum && !schema.enum.includes(value as JsonScalar)) {
    throw new SchemaViolation(field, `${field} must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}, received ${show(value)}`);
  }
  if (typeof value === 'string') checkString(schema, value, field);
  else if (typeof value === 'number') checkNumber(schema, value, field);
  else if (Array.isArray(value)) return checkArray(schema, value, field);
  else if (isPlainObject(value)) return checkObject(schema, value, field);
  return value;
}

function hasType(type: JsonType, value: unknown): boolean {
  switch (type) {
    case 'string': return typeof value === 'string';
    case 'integer': return typeof value === 'number' && Number.isInteger(value);
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'boolean': return typeof value === 'boolean';
    case 'array': return Array.isArray(value);
    case 'object': return isPlainObject(value);
    case 'null': return value === null;
  }
}

function checkString(schema: JsonSchema, value: string, field: string): void {
  // JSON Schema counts code points, not UTF-16 units.
  const length = schema.minLength !== undefined || schema.maxLength !== undefined ? [...value].length : 0;
  if (schema.minLength !== undefined && length < schema.minLength) {
    throw new SchemaViolation(field, `${field} must have at least ${schema.minLength} character${schema.minLength === 1 ? '' : 's'}, received ${show(value)}`);
  }
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    throw new SchemaViolation(field, `${field} must have at most ${schema.maxLength} characters, received ${length}`);
  }
}

function checkNumber(schema: JsonSchema, value: number, field: string): void {
  if (schema.minimum !== undefined && value < schema.minimum) throw new SchemaViolation(field, `${field} must be ≥ ${schema.minimum}, received ${value}`);
  if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) throw new SchemaViolation(field, `${field} must be > ${schema.exclusiveMinimum}, received ${value}`);
  if (schema.maximum !== undefined && value > schema.maximum) throw new SchemaViolation(field, `${field} must be ≤ ${schema.maximum}, received ${value}`);
}

function checkArray(schema: JsonSchema, value: unknown[], field: string): unknown[] {
  if (schema.minItems !== undefined && value.length < schema.minItems) throw new SchemaViolation(field, `${field} must have at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}, received ${show(value)}`);
  if (schema.maxItems !== undefined && value.length > schema.maxItems) throw new SchemaViolation(field, `${field} must have at most ${schema.maxItems} items, received ${value.length}`);
  return schema.items ? value.map((item, i) => validate(schema.items!, item, `${field}[${i}]`)) : value;
}

function checkObject(schema: JsonSchema, value: Record<string, unknown>, field: string): Record<string, unknown> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const at = (key: string) => (field === '' ? key : `${field}.${key}`);
  const out: Record<string, unknown> = {};
  for (const key of required) {
    if (!Object.hasOwn(value, key) || value[key] === undefined) throw new SchemaViolation(at(key), `${at(key)} is required`);
  }
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const child = Object.hasOwn(properties, key) ? properties[key]! : schema.additionalProperties;
    if (child === false) {
      const known = Object.keys(properties);
      throw new SchemaViolation(at(key), `${field === '' ? 'the arguments have' : `${field} has`} an unknown field ${JSON.stringify(key)}${known.length ? `; known: ${known.join(', ')}` : ''}`);
    }
    if (v === null && !required.has(key) && typeof child === 'object' && !allowsNull(child)) continue;
    out[key] = child === undefined || child === true ? v : validate(child, v, at(key));
  }
  return out;
}

function describeTypes(types: readonly JsonType[]): string {
  const names = types.map((t) => (t === 'integer' ? 'an integer' : t === 'array' ? 'an array' : t === 'object' ? 'an object' : t === 'null' ? 'null' : `a ${t}`));
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}
