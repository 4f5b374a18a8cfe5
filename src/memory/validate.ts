import { HybridMindError, invalid } from '../errors.js';
import type { Embedder } from '../embedder/types.js';
import type { Metadata, TimeInput } from '../types.js';
import {
  edgeTypeProblem, idProblem, isPlainObject, jsonValueProblem, labelProblem, MAX_METADATA_DEPTH, MAX_QUERY_LENGTH, MAX_TEXT_LENGTH, textProblem, timeProblem,
} from '../validation/rules.js';
import { normalizeInto, squaredNorm } from '../util/vector.js';

export { checkIntInRange, checkNonNegativeInt, checkPositiveInt } from '../util/int-checks.js';

/**
 * Argument checks shared by the public methods. Each throws INVALID_ARGUMENT (or
 * DIMENSION_MISMATCH) naming the method, the argument and the value received, before anything
 * is written.
 */

export { isPlainObject, MAX_ID_LENGTH, MAX_QUERY_LENGTH, MAX_TEXT_LENGTH } from '../validation/rules.js';

/**
 * The keys of an options type, spelled once as `{ key: true, … }` so the compiler refuses a
 * missing or an extra one: the list a check uses cannot drift from the type it checks.
 */
export function keysOf<T>(keys: { [K in keyof Required<T>]: true }): Array<keyof T & string> {
  return Object.keys(keys) as Array<keyof T & string>;
}

/** Refuses any key of `value` outside `keys`, naming it and the known ones. */
export function checkKeys(method: string, name: string, value: object, keys: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) throw invalid(method, `${name} has an unknown key "${key}"; known: ${keys.join(', ')}`, key);
  }
}

/** An options argument: `undefined` is `{}`; anything but a plain object with only `keys` is INVALID_ARGUMENT. */
export function checkOptions<K extends string>(method: string, name: string, value: unknown, keys: readonly K[]): { [P in K]?: unknown } {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw invalid(method, `${name} must be an object`, value);
  checkKeys(method, name, value, keys);
  return value as { [P in K]?: unknown };
}

export type StoreProgress = (p: { done: number; total: number }) => void;

/** `storeMany`'s arguments, checked the same way by every engine before anything is written. */
export function checkStoreMany(inputs: unknown, options: unknown): { inputs: unknown[]; onProgress: StoreProgress | undefined } {
  const o = checkOptions('storeMany', 'options', options, ['onProgress']);
  if (!Array.isArray(inputs)) throw invalid('storeMany', 'inputs must be an array of memory inputs', inputs);
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') throw invalid('storeMany', 'options.onProgress must be a function', o.onProgress);
  return { inputs, onProgress: o.onProgress as StoreProgress | undefined };
}

export function checkText(method: string, name: string, value: unknown): string {
  const problem = textProblem(value);
  if (problem) throw invalid(method, `${name} ${problem}`, typeof value === 'string' && value.length > MAX_TEXT_LENGTH ? `${value.length} characters` : value);
  return value as string;
}

/** A recall, context, compare or trace query: bounded, so no call can be made arbitrarily expensive. */
export function checkQuery(method: string, name: string, value: unknown): string {
  const problem = textProblem(value, MAX_QUERY_LENGTH);
  if (problem) throw invalid(method, `${name} ${problem}`, typeof value === 'string' && value.length > MAX_QUERY_LENGTH ? `${value.length} characters` : value);
  return value as string;
}

export function checkId(method: string, name: string, value: unknown): string {
  const problem = idProblem(value);
  if (problem) throw invalid(method, `${name} ${problem}`, value);
  return value as string;
}

export function checkOptionalLabel(method: string, name: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const problem = labelProblem(value);
  if (problem) throw invalid(method, `${name} ${problem}`, value);
  return value as string;
}

export function checkEdgeType(method: string, value: unknown): string {
  const problem = edgeTypeProblem(value);
  if (problem) throw invalid(method, `type ${problem}`, value);
  return value as string;
}

export function checkTime(method: string, name: string, value: unknown): number {
  let ms: number;
  if (typeof value === 'number') ms = value;
  else if (value instanceof Date) ms = value.getTime();
  else if (typeof value === 'string' && value.trim() !== '') ms = Date.parse(value);
  else throw invalid(method, `${name} must be epoch milliseconds, a Date or an ISO-8601 string`, value);
  const rounded = Math.round(ms);
  if (timeProblem(rounded)) throw invalid(method, `${name} must be a valid time (what a Date can show)`, value);
  return rounded;
}

export function checkOptionalTime(method: string, name: string, value: unknown): number | undefined {
  return value === undefined ? undefined : checkTime(method, name, value as TimeInput);
}

export function checkMetadata(method: string, name: string, value: unknown): Metadata {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) throw invalid(method, `${name} must be a plain object`, value);
  const bad = jsonValueProblem(value, MAX_METADATA_DEPTH);
  if (bad?.unstorable) throw invalid(method, `${name} must hold well-formed Unicode without U+0000; ${bad.path.slice(1)} ${bad.problem}`, value);
  if (bad !== null) {
    throw invalid(method, `${name}${bad.path} ${bad.problem}; metadata holds JSON values (null, booleans, finite numbers, strings, arrays, plain objects, and Dates kept as ISO-8601 strings) nested at most ${MAX_METADATA_DEPTH} deep`, bad.found);
  }
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch {
    throw invalid(method, `${name} must be JSON-serialisable`, value);
  }
  return JSON.parse(json) as Metadata;
}

/** What every door accepts as an embedder option: an object with a string `id` and an `embed` function. */
export function isEmbedder(value: unknown): value is Embedder {
  return typeof value === 'object' && value !== null && typeof (value as Embedder).embed === 'function' && typeof (value as Embedder).id === 'string';
}

export function checkFiniteNumber(method: string, name: string, value: unknown, { min = -Infinity, exclusiveMin = false } = {}): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || (exclusiveMin && value === min)) {
    throw invalid(method, `${name} must be a finite number ${exclusiveMin ? '>' : '≥'} ${min}`, value);
  }
  return value;
}

export function checkOneOf<T extends string>(method: string, name: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalid(method, `${name} must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`, value);
  }
  return value as T;
}

export function checkStringList(method: string, name: string, value: unknown, check: (v: unknown, i: number) => string): string[] {
  if (!Array.isArray(value)) throw invalid(method, `${name} must be an array of strings`, value);
  return value.map((v, i) => check(v, i));
}

/**
 * Checks a vector and returns an L2-normalised copy, in an array from `take` (a batch's `slab`)
 * when given. No padding or truncation: a vector of another length is a DIMENSION_MISMATCH.
 */
export function normalizedVector(method: string, name: string, value: unknown, dim: number | null, take?: (length: number) => Float32Array): Float32Array {
  if (!(value instanceof Float32Array)) throw invalid(method, `${name} must be a Float32Array`, value);
  if (dim !== null && value.length !== dim) {
    throw new HybridMindError('DIMENSION_MISMATCH', method, `${name} has ${value.length} dimensions, the store has ${dim}`);
  }
  if (value.length === 0) throw invalid(method, `${name} must not be empty`, value);
  // The norm doubles as the check; only a failing vector is searched for the culprit.
  const norm = squaredNorm(value);
  if (!Number.isFinite(norm)) {
    const at = value.findIndex((x) => !Number.isFinite(x));
    throw invalid(method, `${name} must contain only finite numbers; index ${at} is`, value[at]);
  }
  if (norm === 0) throw invalid(method, `${name} must not be all zeros`, value);
  return normalizeInto(value, norm, take ? take(value.length) : new Float32Array(value.length));
}

