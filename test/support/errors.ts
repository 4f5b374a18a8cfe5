import { expect } from 'vitest';
import { HybridMindError } from '../../src/index.js';

/** The code of the HybridMindError a promise rejects with; fails the test when it resolves or throws anything else. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HybridMindError);
  return (error as HybridMindError).code;
}
