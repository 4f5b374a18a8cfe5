/**
 * Every failure the library reports on purpose is a `HybridMindError` with a stable `code`.
 * Callers (and tests) branch on `code`; the message is for people and always starts with the
 * method that failed and shows the value it received.
 */
export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'CONFLICT',
  'DIMENSION_MISMATCH',
  'MODEL_MISMATCH',
  'STORAGE',
  'CORRUPT',
  'CLOSED',
  'EMBEDDER',
  'UNSUPPORTED',
  // An optional peer dependency the called feature needs is not installed; the message names it.
  'MISSING_DEPENDENCY',
  // Another tab owns the store (OPFS allows one writer) and forwarding to it was not possible, or
  // another process owns a file store.
  'BUSY',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class HybridMindError extends Error {
  override readonly name = 'HybridMindError';
  readonly code: ErrorCode;
  /** The method that failed, e.g. `store` or `recall`. */
  readonly method: string;

  constructor(code: ErrorCode, method: string, message: string, options?: { cause?: unknown }) {
    super(`${method}: ${message}`, options);
    this.code = code;
    this.method = method;
  }
}

const UNDEFINED = '\u0000undefined\u0000';
const UNDEFINED_JSON = JSON.stringify(UNDEFINED);

/** Renders a received value for an error message: short, single-line, never throws. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return value.toString();
  if (value instanceof Date) return `Date(${Number.isNaN(value.getTime()) ? 'Invalid' : value.toISOString()})`;
  if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${(value as unknown as { length?: number }).length ?? value.byteLength})`;
  if (Array.isArray(value)) return `array(${value.length})`;
  if (value instanceof Map || value instanceof Set) return `${value.constructor.name}(${value.size})`;
  // JSON would show a class instance as a plain object, or `{}`: its class says more.
  const proto = typeof value === 'object' ? Object.getPrototypeOf(value) : null;
  if (proto !== null && proto !== Object.prototype && typeof proto.constructor === 'function') return `an instance of ${proto.constructor.name || 'a class'}`;
  try {
    // JSON drops a property whose value is undefined, and `{ kind: undefined }` read as `{}` hides what was passed.
    const json = JSON.stringify(value, (_key, v: unknown) => (v === undefined ? UNDEFINED : v)).replaceAll(UNDEFINED_JSON, 'undefined');
    return json.length > 80 ? `${json.slice(0, 77)}...` : json;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

export function invalid(method: string, what: string, value: unknown): HybridMindError {
  return new HybridMindError('INVALID_ARGUMENT', method, `${what}, received ${show(value)}`);
}

export function notFound(method: string, what: string, value: unknown): HybridMindError {
  return new HybridMindError('NOT_FOUND', method, `${what} ${show(value)} does not exist`);
}

/** The text of anything thrown: an Error's message, any other value as a string. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
