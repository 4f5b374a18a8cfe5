import { HybridMindError, invalid } from '../errors.js';
import type { Metadata, TimeInput } from '../types.js';

/**
 * Argument checks shared by the public methods. Each throws INVALID_ARGUMENT (or
 * DIMENSION_MISMATCH) naming the method, the argument and the value received, before anything
 * is written.
 */

export const MAX_TEXT_LENGTH = 1_000_000;
export const MAX_ID_LENGTH = 512;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function checkOptions(method: string, name: string, value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw invalid(method, `${name} must be an object`, value);
  return value;
}

export function checkText(method: string, name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim().length === 0) throw invalid(method, `${name} must be a non-empty string`, value);
  if (value.length > MAX_TEXT_LENGTH) throw invalid(method, `${name} must be at most ${MAX_TEXT_LENGTH} characters`, `${value.length} characters`);
  return value;
}

export function checkId(method: string, name: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH || value.trim() !== value) {
    throw invalid(method, `${name} must be a non-empty string of at most ${MAX_ID_LENGTH} characters without surrounding spaces`, value);
  }
  return value;
}

export function checkOptionalLabel(method: string, name: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length === 0 || value.length > 256) throw invalid(method, `${name} must be a non-empty string of at most 256 characters`, value);
  return value;
}

export function checkEdgeType(method: string, value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z][A-Za-z0-9_:.-]{0,63}$/.test(value)) {
    throw invalid(method, 'type must be a word of letters, digits, _ : . - (at most 64, starting with a letter), e.g. "DEPENDS_ON"', value);
  }
  return value;
}

export function checkTime(method: string, name: string, value: unknown): number {
  let ms: number;
  if (typeof value === 'number') ms = value;
  else if (value instanceof Date) ms = value.getTime();
  else if (typeof value === 'string' && value.trim() !== '') ms = Date.parse(value);
  else throw invalid(method, `${name} must be epoch milliseconds, a Date or an ISO-8601 string`, value);
  if (!Number.isFinite(ms) || !Number.isInteger(Math.round(ms)) || Math.abs(ms) > 8.64e15) {
    throw invalid(method, `${name} must be a valid time`, value);
  }
  return Math.round(ms);
}

export function checkOptionalTime(method: string, name: string, value: unknown): number | undefined {
  return value === undefined ? undefined : checkTime(method, name, value as TimeInput);
}

export function checkMetadata(method: string, name: string, value: unknown): Metadata {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) throw invalid(method, `${name} must be a plain object`, value);
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch {
    throw invalid(method, `${name} must be JSON-serialisable`, value);
  }
  return JSON.parse(json) as Metadata;
}

export function checkPositiveInt(method: string, name: string, value: unknown, max = 10_000): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw invalid(method, `${name} must be an integer from 1 to ${max}`, value);
  }
  return value;
}

export function checkNonNegativeInt(method: string, name: string, value: unknown, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw invalid(method, `${name} must be an integer from 0 to ${max}`, value);
  }
  return value;
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
 * Checks a vector and returns an L2-normalised copy. No padding or truncation: a vector of
 * another length is a DIMENSION_MISMATCH.
 */
export function normalizedVector(method: string, name: string, value: unknown, dim: number | null): Float32Array {
  if (!(value instanceof Float32Array)) throw invalid(method, `${name} must be a Float32Array`, value);
  if (dim !== null && value.length !== dim) {
    throw new HybridMindError('DIMENSION_MISMATCH', method, `${name} has ${value.length} dimensions, the store has ${dim}`);
  }
  if (value.length === 0) throw invalid(method, `${name} must not be empty`, value);
  let norm = 0;
  for (let i = 0; i < value.length; i++) {
    const x = value[i]!;
    if (!Number.isFinite(x)) throw invalid(method, `${name} must contain only finite numbers; index ${i} is`, x);
    norm += x * x;
  }
  if (norm === 0) throw invalid(method, `${name} must not be all zeros`, value);
  const inv = 1 / Math.sqrt(norm);
  const out = new Float32Array(value.length);
  for (let i = 0; i < value.length; i++) out[i] = value[i]! * inv;
  return out;
}

