import { MEMORY_METHODS } from './client/protocol.js';
import { HybridMindError } from './errors.js';

/** A store's own methods a caller can call. */
const INSTANCE_METHODS: readonly string[] = [...MEMORY_METHODS, 'close'];
/** What a caller can call, so what an error may name without being renamed. */
const PUBLIC_METHODS: ReadonlySet<string> = new Set([...INSTANCE_METHODS, 'HybridMemory.open', 'HybridMemory.importSnapshot', 'HybridMemory.connect']);

/**
 * A failure inside a public call as that call's error. A part of the store names itself when it
 * fails (`SqlDriver.all`, `ann.load`, `readVectors`), which tells a caller nothing about which of
 * its calls broke; the call's name goes in front, the part's stays in the message, and the
 * original is the cause. Errors already naming a public method (an argument check, a nested
 * public call) pass unchanged.
 */
export function asCallError(method: string, error: unknown): unknown {
  if (!(error instanceof HybridMindError) || PUBLIC_METHODS.has(error.method)) return error;
  return new HybridMindError(error.code, method, error.message, { cause: error });
}

/**
 * Puts `asCallError` around every public method of a class, in one place, so a method added to
 * the public list is covered without remembering to wrap its body.
 */
export function nameFailuresByCall(prototype: object): void {
  for (const method of INSTANCE_METHODS) {
    const body = Reflect.get(prototype, method) as (...args: unknown[]) => Promise<unknown>;
    const { [method]: wrapped } = {
      async [method](this: unknown, ...args: unknown[]): Promise<unknown> {
        try {
          return await body.apply(this, args);
        } catch (error) {
          throw asCallError(method, error);
        }
      },
    };
    Reflect.defineProperty(prototype, method, { value: wrapped, writable: true, configurable: true, enumerable: false });
  }
}
