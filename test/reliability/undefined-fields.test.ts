/**
 * An optional field given as `undefined` is a field left out, in every call that takes an object:
 * what `exactOptionalPropertyTypes` apps pass when they forward a value they may not have
 * (`{ kind: maybeKind }`), and what the declarations promise (`test/optional-properties.test.ts`).
 */
import { describe, expect, it } from 'vitest';
import { CONTEXT_KEYS } from '../../src/agent/context.js';
import { HybridMemory } from '../../src/hybrid-memory.js';
import { RELATE_KEYS } from '../../src/memory/edge-spec.js';
import { LIST_KEYS } from '../../src/memory/listing.js';
import { OPEN_KEYS } from '../../src/memory/open-options.js';
import { FILTER_KEYS, RECALL_KEYS } from '../../src/memory/recall-options.js';
import { INPUT_KEYS } from '../../src/memory/rows.js';
import { TRACE_KEYS } from '../../src/memory/traversal.js';
import { HashEmbedder } from '../support/hash-embedder.js';

/** Every key of `keys` but those in `except`, each set to undefined. */
const unset = (keys: readonly string[], except: readonly string[] = []): Record<string, undefined> =>
  Object.fromEntries(keys.filter((key) => !except.includes(key)).map((key) => [key, undefined]));

const NOW = Date.parse('2026-06-01T00:00:00Z');
const INPUTS = [
  { id: 'adr-7', text: 'ADR-007: SQLite-WASM on OPFS is the source of truth', kind: 'decision', createdAt: NOW - 86_400_000 },
  { id: 'adr-9', text: 'ADR-009: HNSW above 20,000 memories, the exact scan below', kind: 'decision', createdAt: NOW - 3_600_000 },
  { id: 'order', text: 'Order #4821 shipped with the storage change', domain: 'sales', createdAt: NOW },
];

/** A store opened with `options`, holding INPUTS (each with `extra`) and one edge relating with `relate`. */
async function seeded(options: object, extra: object, relate: object): Promise<HybridMemory> {
  const mem = await HybridMemory.open({ embedder: new HashEmbedder(32), now: () => NOW, ...options });
  await mem.storeMany(INPUTS.map((input) => ({ ...extra, ...input })));
  await mem.store({ ...extra, id: 'note', text: 'a note with nothing else set' });
  await mem.relate('adr-9', 'adr-7', 'DEPENDS_ON', relate);
  return mem;
}

describe('an optional field given as undefined is one left out', () => {
  it('in open, store, storeMany and relate: the two stores hold the same memories and edges', async () => {
    const left = await seeded({}, {}, {});
    const given = await seeded(unset(OPEN_KEYS, ['embedder', 'now']), unset(INPUT_KEYS, ['id', 'text']), unset(RELATE_KEYS));
    const records = async (mem: HybridMemory) => Promise.all(['adr-7', 'adr-9', 'order', 'note'].map((id) => mem.get(id)));
    expect((await records(left)).every((record) => record !== null)).toBe(true);
    expect(await records(given)).toEqual(await records(left));
    // An edge's id is generated, so only the rest is compared.
    const edges = async (mem: HybridMemory) => (await mem.edges('adr-9')).map(({ id: _id, ...edge }) => edge);
    expect(await edges(left)).toHaveLength(1);
    expect(await edges(given)).toEqual(await edges(left));
    await Promise.all([left.close(), given.close()]);
  });

  it('in recall and its filter, recallReport, compare, list, trace and context: the same answers', async () => {
    const mem = await seeded({}, {}, {});
    const recall = { ...unset(RECALL_KEYS, ['filter']), filter: unset(FILTER_KEYS) };
    expect(await mem.recall('ADR-007 storage', recall)).toEqual(await mem.recall('ADR-007 storage'));
    expect(await mem.recallReport('ADR-007 storage', recall)).toEqual(await mem.recallReport('ADR-007 storage'));
    expect(await mem.compare('ADR-007 storage', recall)).toEqual(await mem.compare('ADR-007 storage'));
    expect(await mem.list(unset(LIST_KEYS))).toEqual(await mem.list());
    expect(await mem.trace('which ADR covers storage', unset(TRACE_KEYS))).toEqual(await mem.trace('which ADR covers storage'));
    const context = { ...unset(CONTEXT_KEYS), ...recall };
    delete (context as Record<string, unknown>)['k'];
    delete (context as Record<string, unknown>)['explain'];
    expect(await mem.context('ADR-007 storage', context)).toEqual(await mem.context('ADR-007 storage'));
    await mem.close();
  });
});
