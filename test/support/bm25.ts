/** Small helpers of the lexical index's tests. */
import { HybridMindError } from '../../src/errors.js';
import { Bm25Index } from '../../src/legs/lexical/bm25-index.js';

/** An index over `texts`, each under its position as its number. */
export function indexOf(texts: readonly string[], options?: ConstructorParameters<typeof Bm25Index>[0]): Bm25Index {
  const index = new Bm25Index(options);
  texts.forEach((text, no) => index.add(no, text));
  return index;
}

/** The numbers `query` finds, best first. */
export function nos(index: Bm25Index, query: string, k = 100): number[] {
  return index.search(query, k).map((hit) => hit.no);
}

/** The code `fn` fails with, or undefined when it does not. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof HybridMindError ? error.code : `not a HybridMindError: ${String(error)}`;
  }
  return undefined;
}
