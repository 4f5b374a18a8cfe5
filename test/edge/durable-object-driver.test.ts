/**
 * The driver's contract on a stand-in for `ctx.storage` that behaves like Durable Object SQLite
 * where it matters here (blobs come back as ArrayBuffer, BEGIN is refused, transactionSync nests
 * as savepoints). The real platform is exercised in workerd.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DurableObjectDriver, type DurableObjectStorageLike } from '../../src/edge/durable-object-driver.js';
import { HybridMemory } from '../../src/index.js';
import { SqliteWasmDriver } from '../../src/storage/sqlite-wasm.js';

function fakeStorage(db: SqliteWasmDriver): DurableObjectStorageLike & { statements: string[] } {
  const statements: string[] = [];
  let savepoints = 0;
  return {
    statements,
    sql: {
      exec(query: string, ...bindings: unknown[]) {
        statements.push(query);
        if (/^\s*(BEGIN|COMMIT|SAVEPOINT)/i.test(query)) throw new Error('To execute a transaction, please use the state.storage.transaction() API');
        if (/^\s*VACUUM/i.test(query)) throw new Error('cannot VACUUM from within a transaction: SQLITE_ERROR');
        for (const b of bindings) if (b instanceof Uint8Array && b.byteLength !== b.buffer.byteLength) throw new Error('test: a view was bound');
        const rows = bindings.length === 0 && query.includes(';') ? (db.exec(query), []) : db.all(query, bindings as never[]);
        return { toArray: () => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Uint8Array ? v.slice().buffer : v]))) };
      },
    },
    transactionSync<T>(fn: () => T): T {
      const name = `sp${savepoints++}`;
      db.exec(`SAVEPOINT ${name}`);
      try {
        const result = fn();
        db.exec(`RELEASE ${name}`);
        return result;
      } catch (error) {
        db.exec(`ROLLBACK TO ${name}`);
        db.exec(`RELEASE ${name}`);
        throw error;
      } finally {
        savepoints--;
      }
    },
  };
}

describe('DurableObjectDriver', () => {
  let db: SqliteWasmDriver;
  let storage: ReturnType<typeof fakeStorage>;
  let driver: DurableObjectDriver;

  beforeEach(async () => {
    db = await SqliteWasmDriver.open();
    storage = fakeStorage(db);
    driver = new DurableObjectDriver(storage);
    driver.exec('CREATE TABLE t (a INTEGER PRIMARY KEY, b BLOB); CREATE TABLE u (x TEXT)');
  });

  afterEach(() => db.close());

  it('refuses something that is not a SQLite-backed ctx.storage', () => {
    expect(() => new DurableObjectDriver({} as DurableObjectStorageLike)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('binds exactly a view\'s bytes and hands blobs back as Uint8Array', () => {
    const backing = new Uint8Array([9, 1, 2, 3, 9]);
    driver.exec('INSERT INTO t (b) VALUES (?)', [backing.subarray(1, 4)]);
    const [row] = driver.all<{ b: Uint8Array }>('SELECT b FROM t');
    expect(row!.b).toBeInstanceOf(Uint8Array);
    expect([...row!.b]).toEqual([1, 2, 3]);
  });

  it('runs transactions with transactionSync, never BEGIN; nested calls join the outer one', () => {
    expect(() => driver.transaction(() => {
      driver.exec("INSERT INTO u VALUES ('outer')");
      try {
        driver.transaction(() => {
          driver.exec("INSERT INTO u VALUES ('inner')");
          throw new Error('inner fails');
        });
      } catch {
        // Joined, not a savepoint: the inner write stays until the outer transaction decides.
      }
      expect(driver.all('SELECT x FROM u')).toHaveLength(2);
      throw new Error('outer fails');
    })).toThrow('outer fails');
    expect(driver.all('SELECT x FROM u')).toHaveLength(0);
    expect(storage.statements.some((s) => /BEGIN|SAVEPOINT/i.test(s))).toBe(false);
  });

  it('treats VACUUM as done (the platform compacts its own files) and wraps other failures as STORAGE', () => {
    expect(() => driver.exec('VACUUM')).not.toThrow();
    expect(() => driver.exec('SELECT * FROM missing')).toThrow(expect.objectContaining({ code: 'STORAGE' }));
  });

  it('serialises to a SQLite file, and stops after close()', async () => {
    driver.exec('INSERT INTO t (b) VALUES (?)', [new Uint8Array([7])]);
    const copy = await SqliteWasmDriver.open({ bytes: driver.serialize() });
    expect(copy.all('SELECT a, b FROM t')).toEqual([{ a: 1, b: new Uint8Array([7]) }]);
    copy.close();
    driver.close();
    expect(() => driver.all('SELECT 1')).toThrow(expect.objectContaining({ code: 'CLOSED' }));
  });

  it('carries a whole HybridMemory: compact() works and exportDatabase() reopens elsewhere', async () => {
    const mem = await HybridMemory.open({ storage: new DurableObjectDriver(fakeStorage(await SqliteWasmDriver.open())), embedder: null, dim: 2, ann: false });
    await mem.store({ id: 'a', text: 'alpha', embedding: new Float32Array([1, 0]) });
    await mem.compact();
    const copy = await HybridMemory.open({ storage: { bytes: await mem.exportDatabase() }, embedder: null });
    expect((await copy.recall('alpha', { queryEmbedding: new Float32Array([1, 0]) }))[0]!.id).toBe('a');
    await copy.close();
    await mem.close();
  });
});
