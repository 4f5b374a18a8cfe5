import { ERROR_CODES, HybridMindError, type ErrorCode } from '../errors.js';

/**
 * What crosses between the page, the worker and the other tabs. Errors never cross as objects
 * (wasm exceptions and class instances are not cloneable): they travel as `WireError` and are
 * rebuilt as `HybridMindError` on the other side, with the same code.
 */

/** Methods of `HybridMemory` a client may call, forwarded by name (`RemoteMemory` is typed from this list). */
export const MEMORY_METHODS = [
  'store', 'storeMany', 'relate', 'relateMany', 'unrelate', 'update', 'forget', 'get', 'list', 'edges', 'autoEdges', 'removeAutoEdges',
  'recall', 'recallReport', 'context', 'checkCitations', 'compare', 'trace', 'path', 'ready', 'reembed', 'stats', 'compact',
  'exportDatabase', 'exportSnapshot', 'restoreSnapshot',
] as const;
export type MemoryMethod = (typeof MEMORY_METHODS)[number];

const CODES = new Set<ErrorCode>(ERROR_CODES);

export interface WireError {
  code: ErrorCode;
  method: string;
  /** The message without the `method: ` prefix the constructor adds back. */
  detail: string;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: WireError };

/** Any thrown value as a cloneable coded error; unknown failures become STORAGE. */
export function toWire(error: unknown, fallbackMethod: string): WireError {
  if (error instanceof HybridMindError) {
    const prefix = `${error.method}: `;
    return { code: error.code, method: error.method, detail: error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message };
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : typeof error === 'object' && error !== null ? 'a non-Error exception (e.g. from WebAssembly)' : String(error);
  const busy = error instanceof Error && error.name === 'NoModificationAllowedError';
  return { code: busy ? 'BUSY' : 'STORAGE', method: fallbackMethod, detail: message };
}

export function fromWire(error: WireError): HybridMindError {
  return new HybridMindError(CODES.has(error.code) ? error.code : 'STORAGE', error.method, error.detail);
}

export async function settle<T>(method: string, run: () => Promise<T> | T): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error: toWire(error, method) };
  }
}

export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw fromWire(outcome.error);
}

/** Buffers of every Float32Array / Uint8Array inside `value` (to transfer instead of copying). */
export function transferables(value: unknown, out: ArrayBuffer[] = [], seen = new Set<unknown>()): ArrayBuffer[] {
  if (value === null || typeof value !== 'object' || seen.has(value)) return out;
  seen.add(value);
  if (ArrayBuffer.isView(value)) {
    const buffer = value.buffer;
    // Only whole, unshared buffers: transferring a view of a bigger buffer would detach the rest too.
    if (buffer instanceof ArrayBuffer && value.byteOffset === 0 && value.byteLength === buffer.byteLength && !out.includes(buffer)) out.push(buffer);
    return out;
  }
  for (const item of Array.isArray(value) ? value : Object.values(value)) transferables(item, out, seen);
  return out;
}

/** Events a worker sends its page (and an owner sends the other tabs). */
export type MemoryEvent =
  | { type: 'role'; role: 'owner' | 'follower'; store: string }
  | { type: 'model'; status: string; file?: string | undefined; progress?: number | undefined; loaded?: number | undefined; total?: number | undefined }
  | { type: 'model-ready'; id: string; dim: number; ms: number }
  | { type: 'model-error'; message: string }
  | { type: 'enrichment'; done: number; pending: number; failed: number }
  | { type: 'changed'; method: MemoryMethod };
