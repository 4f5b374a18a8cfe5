import { OPEN_GRACE_MS } from '../../src/util/slices.js';

/** Resolves once the first slice of background work an open started (`afterOpen`) has run. */
export async function afterFirstSlice(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, OPEN_GRACE_MS));
  await new Promise((resolve) => setImmediate(resolve));
}
