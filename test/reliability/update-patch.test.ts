/**
 * `update`'s patch has one rule for every field: absent or undefined leaves it as it is, null
 * clears it. Before, an undefined `kind`, `domain`, `metadata` or `validTo` cleared the field, so
 * `update(id, { text, kind: maybeKind })` silently dropped the kind whenever `maybeKind` was
 * undefined, while an undefined `text` or `validFrom` left those alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HybridMemory, type MemoryPatch } from '../../src/index.js';
import { refusal } from '../support/errors.js';
import { DAY, NOW, openMemory } from '../support/memory.js';

let mem: HybridMemory | undefined;
afterEach(async () => {
  await mem?.close();
  mem = undefined;
});

const FULL = { id: 'a', text: 'the build uses webpack', kind: 'decision', domain: 'build', metadata: { team: 'web' }, validFrom: NOW - 10 * DAY, validTo: NOW - DAY };

async function stored(): Promise<HybridMemory> {
  mem = await openMemory({ embedder: null, dim: 2 });
  await mem.store({ ...FULL, embedding: new Float32Array([1, 0]) });
  return mem;
}

describe("update's patch: undefined leaves a field, null clears it", () => {
  it('leaves every field given as undefined as it was', async () => {
    const m = await stored();
    const maybe: Partial<MemoryPatch> = {};
    const updated = await m.update('a', { text: 'the build uses vite', kind: maybe.kind, domain: maybe.domain, metadata: maybe.metadata, validFrom: maybe.validFrom, validTo: maybe.validTo, embedding: maybe.embedding });
    expect(updated).toMatchObject({ text: 'the build uses vite', kind: 'decision', domain: 'build', metadata: { team: 'web' }, validFrom: FULL.validFrom, validTo: FULL.validTo, status: 'historical' });
    expect((await m.list({ kind: 'decision', domain: 'build' })).records.map((r) => r.id)).toEqual(['a']);
  });

  it('clears kind, domain, metadata and validTo given as null, in the record and in the filters', async () => {
    const m = await stored();
    const updated = await m.update('a', { kind: null, domain: null, metadata: null, validTo: null });
    expect(updated).toMatchObject({ text: FULL.text, kind: null, domain: null, metadata: {}, validFrom: FULL.validFrom, validTo: null, status: 'current' });
    expect((await m.list({ kind: 'decision' })).total).toBe(0);
    expect((await m.list({ domain: 'build' })).total).toBe(0);
    expect(await m.get('a')).toEqual(updated);
  });

  it('refuses null for a field that cannot be cleared, naming the method, field and value, and changes nothing', async () => {
    const m = await stored();
    const before = await m.get('a');
    for (const field of ['text', 'validFrom', 'embedding'] as const) {
      const error = await refusal(() => m.update('a', { [field]: null } as never));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(new RegExp(`^update: patch\\.${field} .*received null$`));
    }
    expect(await m.get('a')).toEqual(before);
  });

  it('refuses a patch whose every field is undefined, as it refuses {}, and changes nothing', async () => {
    const m = await stored();
    const before = await m.get('a');
    const shown = ['{}', '{"kind":undefined}', '{"text":undefined,"metadata":undefined,"validTo":undefined}'];
    for (const [i, patch] of [{}, { kind: undefined }, { text: undefined, metadata: undefined, validTo: undefined }].entries()) {
      const error = await refusal(() => m.update('a', patch));
      expect(error.code).toBe('INVALID_ARGUMENT');
      // The message shows the fields given as undefined, which JSON alone would print as {}.
      expect(error.message).toBe(`update: patch must change at least one field (an undefined field leaves it as it is; null clears it), received ${shown[i]}`);
    }
    expect(await m.get('a')).toEqual(before);
  });
});
