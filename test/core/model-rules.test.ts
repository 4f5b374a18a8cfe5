import { describe, expect, it } from 'vitest';
import { HybridMemory, HybridMindError, SqliteWasmDriver } from '../../src/index.js';
import { modelConflict } from '../../src/memory/model.js';
import { SCHEMA_VERSION, checkSchemaVersion } from '../../src/storage/schema.js';

const codeOf = async (p: Promise<unknown>) => p.then(() => 'resolved', (e: unknown) => (e instanceof HybridMindError ? `${e.code}: ${e.message}` : String(e)));

describe('the schema-version rule, one function for every door', () => {
  it('refuses a store written by a newer library as UNSUPPORTED and an unreadable version as CORRUPT', async () => {
    for (const [value, expected] of [
      [String(SCHEMA_VERSION + 1), `UNSUPPORTED: HybridMemory.open: the store has schema version ${SCHEMA_VERSION + 1}; this library reads up to ${SCHEMA_VERSION}`],
      ['two', 'CORRUPT: HybridMemory.open: the store has no readable schema version, found "two"'],
    ] as const) {
      const driver = await SqliteWasmDriver.open();
      driver.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
      driver.exec("INSERT INTO meta (key, value) VALUES ('schema_version', ?)", [value]);
      try {
        expect(await codeOf(HybridMemory.open({ storage: driver, embedder: null }))).toContain(expected);
      } finally {
        driver.close();
      }
    }
  });

  it('reads the text meta keeps and the numbers a manifest holds alike, with the minimum the door asks', () => {
    expect(checkSchemaVersion('m', '3', 'x', { supported: 5 })).toBe(3);
    expect(checkSchemaVersion('m', 3, 'x', { supported: 5 })).toBe(3);
    expect(checkSchemaVersion('m', '0', 'x', { min: 0 })).toBe(0);
    expect(() => checkSchemaVersion('m', '0', 'x')).toThrow(/x has no readable schema version, found "0"/);
    expect(() => checkSchemaVersion('m', '', 'x')).toThrow(/no readable schema version/);
    expect(() => checkSchemaVersion('m', 1.5, 'x')).toThrow(/no readable schema version/);
    expect(() => checkSchemaVersion('m', 6, 'x', { supported: 5 })).toThrowError(expect.objectContaining({ code: 'UNSUPPORTED' }));
    expect(() => checkSchemaVersion('m', 'x', 'y', { corrupt: (message) => new HybridMindError('CORRUPT', 'door', `own: ${message}`) })).toThrow(/^door: own: y has no/);
  });
});

describe('the model rule, one function for stores, snapshots, open options and Postgres', () => {
  const held = { holder: 'the store', dim: 4, embedderId: 'model-a' };

  it('refuses another dimension before another model, naming both sides and the hint', () => {
    const dim = modelConflict('open', held, { embedder: { id: 'model-b', dim: 8 } }, '; hint');
    expect([dim?.code, dim?.message]).toEqual(['DIMENSION_MISMATCH', 'open: the store holds 4-d vectors, received the embedder "model-b", which makes 8-d vectors; hint']);
    const model = modelConflict('open', held, { embedder: { id: 'model-b', dim: 4 } });
    expect([model?.code, model?.message]).toEqual(['MODEL_MISMATCH', `open: the store's vectors come from "model-a", received embedder "model-b"`]);
    expect(modelConflict('open', held, { dim: 5, embedder: null })?.message).toBe('open: the store holds 4-d vectors, received options.dim 5');
    expect(modelConflict('restore', held, { dim: 5, dimFrom: "the snapshot's dim", embedder: null })?.message).toBe("restore: the store holds 4-d vectors, received the snapshot's dim 5");
  });

  it('lets through what fits or what is not known yet', () => {
    expect(modelConflict('open', held, { embedder: { id: 'model-a', dim: 4 } })).toBeNull();
    expect(modelConflict('open', held, { embedder: null })).toBeNull();
    expect(modelConflict('open', { holder: 'the store', dim: null, embedderId: null }, { dim: 3, embedder: { id: 'x', dim: 3 } })).toBeNull();
  });
});
