import { afterEach, describe, expect, it } from 'vitest';
import { HybridMemory, HybridMindError } from '../../src/index.js';
import { MEMORY_METHODS } from '../../src/client/protocol.js';
import { SqliteWasmDriver } from '../../src/storage/sqlite-wasm.js';

let mem: HybridMemory | null = null;
afterEach(async () => {
  await mem?.close().catch(() => {});
  mem = null;
});

const failure = (run: () => Promise<unknown>): Promise<unknown> => run().then(() => null, (e: unknown) => e);

/** A store whose memories and edges tables SQLite no longer has: every statement that reads or writes them fails in the driver. */
async function brokenStore(): Promise<HybridMemory> {
  const driver = await SqliteWasmDriver.open();
  const opened = await HybridMemory.open({ storage: driver, embedder: null });
  await opened.storeMany([
    { id: 'adr-7', text: 'ADR-007: the store keeps SQLite-WASM on OPFS' },
    { id: 'adr-9', text: 'ADR-009: HNSW above 20,000 memories' },
  ]);
  await opened.relate('adr-9', 'adr-7', 'DEPENDS_ON');
  driver.exec('ALTER TABLE memories RENAME TO memories_gone');
  driver.exec('ALTER TABLE edges RENAME TO edges_gone');
  return opened;
}

describe('a failure inside a public call names that call', () => {
  it('SQLite failures under store, get, recall, trace, context and the rest name the method called, the driver in the message', async () => {
    mem = await brokenStore();
    const m = mem;
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['store', () => m.store({ text: 'one more' })],
      ['storeMany', () => m.storeMany([{ text: 'two more' }])],
      ['update', () => m.update('adr-7', { text: 'ADR-007, revised' })],
      ['forget', () => m.forget('adr-9')],
      ['get', () => m.get('adr-7')],
      ['recall', () => m.recall('ADR-007')],
      ['recallReport', () => m.recallReport('ADR-007')],
      ['compare', () => m.compare('ADR-007')],
      ['trace', () => m.trace('which ADR covers storage')],
      ['context', () => m.context('ADR-007')],
      ['relate', () => m.relate('adr-7', 'adr-9', 'DERIVED_FROM')],
      ['edges', () => m.edges('adr-7')],
      ['exportSnapshot', () => m.exportSnapshot()],
    ];
    for (const [method, call] of calls) {
      const error = await failure(call);
      expect(error, method).toBeInstanceOf(HybridMindError);
      expect(error, method).toMatchObject({ code: 'STORAGE', method });
      expect((error as Error).message, method).toMatch(new RegExp(`^${method}: SqlDriver\\.\\w+: .*(memories|edges)`));
      expect(((error as Error).cause as HybridMindError).method, method).toMatch(/^SqlDriver\./);
    }
  });

  it('connect refuses what is not a Worker or a MessagePort, naming what it received', async () => {
    for (const value of [null, './worker.js', { onmessage: null }]) {
      const error = await failure(() => HybridMemory.connect(value as never));
      expect(error, String(value)).toMatchObject({ code: 'INVALID_ARGUMENT', method: 'HybridMemory.connect' });
      expect((error as Error).message).toBe(`HybridMemory.connect: worker must be a Worker or MessagePort, received ${JSON.stringify(value)}`);
    }
  });

  it('argument errors keep the name they were raised with', async () => {
    mem = await HybridMemory.open({ embedder: null });
    expect(await failure(() => mem!.recallReport(''))).toMatchObject({ code: 'INVALID_ARGUMENT', method: 'recall' });
    expect(await failure(() => mem!.context('x', { mode: 'sideways' } as never))).toMatchObject({ code: 'INVALID_ARGUMENT', method: 'context' });
    expect(await failure(() => mem!.get(42 as never))).toMatchObject({ code: 'INVALID_ARGUMENT', method: 'get' });
  });

  it('an open that fails in the driver names HybridMemory.open', async () => {
    const driver = await SqliteWasmDriver.open();
    driver.exec('CREATE TABLE memories (no INTEGER PRIMARY KEY)');
    const error = await failure(() => HybridMemory.open({ storage: driver, embedder: null }));
    expect(error).toBeInstanceOf(HybridMindError);
    expect((error as HybridMindError).method).toBe('HybridMemory.open');
  });

  it('every method a client may call, and close, goes through the rule', () => {
    for (const method of [...MEMORY_METHODS, 'close']) {
      expect(Object.hasOwn(HybridMemory.prototype, method), method).toBe(true);
      expect((HybridMemory.prototype as unknown as Record<string, () => unknown>)[method]!.name, method).toBe(method);
    }
  });
});
