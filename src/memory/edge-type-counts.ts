/**
 * The store's edges per type, as `stats()` reports them: counted by SQLite once (a scan of every
 * edge: 17–40 ms at 50k edges in Node, 35–65 ms over OPFS in the browser worker) or read from the
 * value a save left, then kept as edges are committed and removed. The graph leg cannot answer
 * right after an open: it takes its edges in the background, so each `stats()` there used to
 * scan the table again.
 */
import { joined, type Saved } from './saved-lexical.js';

/** Saved: how many memories the store held (the stamp's check, as for every saved value) and the counts. */
export interface SavedEdgeTypes {
  memories: number;
  types: ReadonlyMap<string, number>;
}

export const EDGE_TYPES: Saved<SavedEdgeTypes> = { name: 'edge-types', label: 'edge counts', load: (_legs, parts) => decodeEdgeTypes(joined(parts)), size: (saved) => saved.memories };

export class EdgeTypeCounts {
  /** Null while not known: the next `read` counts in SQLite. */
  #types: Map<string, number> | null = null;

  /** Counts of the store's edges by type, keys in order; `count` is SQLite's, asked only when they are not known. */
  read(count: () => Record<string, number>): Record<string, number> {
    this.#types ??= new Map(Object.entries(count()));
    return Object.fromEntries([...this.#types].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** After a commit that added (`change` 1) or removed (-1) an edge of `type`. */
  change(type: string, change: number): void {
    if (this.#types === null) return;
    const count = (this.#types.get(type) ?? 0) + change;
    if (count === 0) this.#types.delete(type);
    else this.#types.set(type, count);
  }

  /** Counts that hold for the store as it is: zero of each (every edge is then added through `change`), or saved ones. */
  start(types: ReadonlyMap<string, number> = new Map()): void {
    this.#types = new Map(types);
  }

  /** Not known from now on: the indexes were cleared (a close, or indexes a restore discards). */
  forget(): void {
    this.#types = null;
  }

  save(memories: number, count: () => Record<string, number>): Uint8Array {
    const types = this.read(count);
    return new TextEncoder().encode(JSON.stringify({ memories, types }));
  }
}

/** Nothing is trusted: a value that is not what `save` writes throws, and the open counts again. */
export function decodeEdgeTypes(bytes: Uint8Array): SavedEdgeTypes {
  const value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
  if (typeof value !== 'object' || value === null) throw new Error('not an object');
  const { memories, types } = value as { memories?: unknown; types?: unknown };
  if (!Number.isSafeInteger(memories) || (memories as number) < 0) throw new Error(`memories is ${JSON.stringify(memories)}`);
  if (typeof types !== 'object' || types === null || Array.isArray(types)) throw new Error('types is not an object');
  const counts = new Map<string, number>();
  for (const [type, count] of Object.entries(types)) {
    if (type === '' || !Number.isSafeInteger(count) || (count as number) <= 0) throw new Error(`the count of ${JSON.stringify(type)} is ${JSON.stringify(count)}`);
    counts.set(type, count as number);
  }
  return { memories: memories as number, types: counts };
}
