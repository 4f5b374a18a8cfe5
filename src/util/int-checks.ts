import { invalid } from '../errors.js';

/** What an int32 parameter (a row number bound as SQLite's `int`) holds. */
export const INT32_MIN = -0x8000_0000;
export const INT32_MAX = 0x7fff_ffff;

/**
 * The one integer-argument rule, below every layer that checks one (legs, embedders, storage and
 * the memory facade), so each says the same thing for the same mistake.
 */
export function checkIntInRange(method: string, name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalid(method, `${name} must be ${rangeText(min, max)}`, value);
  }
  return value;
}

export function checkPositiveInt(method: string, name: string, value: unknown, max = 10_000): number {
  return checkIntInRange(method, name, value, 1, max);
}

export function checkNonNegativeInt(method: string, name: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number {
  return checkIntInRange(method, name, value, 0, max);
}

function rangeText(min: number, max: number): string {
  if (max < Number.MAX_SAFE_INTEGER) return `an integer from ${min} to ${max}`;
  if (min === 0) return 'a non-negative integer';
  if (min === 1) return 'a positive integer';
  return `an integer ≥ ${min}`;
}
