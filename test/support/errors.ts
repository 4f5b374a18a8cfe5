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

/** The HybridMindError `run` rejects with; throws when it resolves or rejects with anything else. */
export async function refusal(run: () => Promise<unknown>): Promise<HybridMindError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof HybridMindError) return error;
    throw new Error(`expected a HybridMindError, received ${String(error)}`, { cause: error });
  }
  throw new Error('expected a refusal, the archive was accepted');
}
