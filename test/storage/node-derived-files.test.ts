import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, truncateSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridMindError } from '../../src/index.js';
import { SqliteFileDriver } from '../../src/storage/node-file.js';
import { DERIVED_NAMES } from '../../src/memory/indexes.js';
import { answers, MEMORIES } from '../support/derived-corpus.js';
import { ids, openMemory, recorder } from '../support/memory.js';

/**
 * A Node file store's derived values in files beside its database, on real files and
 * better-sqlite3: the open reads them instead of rebuilding, they never stand in for rows they
 * were not derived from (a `.db` copied alone, or copied back over its original after both were
 * written), and a store can keep everything in the one `.db` instead.
 */
const root = mkdtempSync(join(tmpdir(), 'hm-node-derived-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let count = 0;
const freshPath = () => join(root, `s${count++}`, 'memory.db');

const LOADED = ['loaded the saved lexical index', 'loaded the saved entity index', 'opened the dense leg from its saved codes; vectors are read from the store when needed'];

/** Opens the store at `path`, runs `use` on it, closes it (which saves its derived values) and returns what it logged. */
async function withStore<T>(path: string, use: (mem: Awaited<ReturnType<typeof openMemory>>) => Promise<T>, derivedFiles = true): Promise<{ result: T; messages: string[] }> {
  const log = recorder();
  const mem = await openMemory({ storage: await SqliteFileDriver.open(path, { derivedFiles }), logger: log.logger });
  try {
    return { result: await use(mem), messages: log.messages };
  } finally {
    await mem.close();
  }
}

/** better-sqlite3 itself, to look into a file without a driver that would act on its folder. */
const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => { prepare(sql: string): { get(): { n: number } }; close(): void };

/** The rows of `derived_index` in the file at `path`. */
function tableRows(path: string): number {
  const db = new Database(path);
  try {
    return db.prepare('SELECT count(*) AS n FROM derived_index').get().n;
  } finally {
    db.close();
  }
}

async function savedStore(path: string): Promise<unknown> {
  return (await withStore(path, async (mem) => {
    await mem.storeMany(MEMORIES);
    await mem.relate('invoice', 'adr7', 'DEPENDS_ON');
    return answers(mem);
  })).result;
}

describe('a Node file store\'s derived files', () => {
  it('are written beside the database, not in it, and the next open loads them and answers as the store did', async () => {
    const path = freshPath();
    const expected = await savedStore(path);
    expect(readdirSync(`${path}-derived`).sort()).toEqual(DERIVED_NAMES.map((name) => `${name}.bin`).sort());
    const again = await withStore(path, answers);
    expect(again.messages).toEqual(expect.arrayContaining(LOADED));
    expect(again.result).toEqual(expected);
    expect(tableRows(path)).toBe(0);
  });

  it('are not needed: a .db copied alone rebuilds what it lacks and answers the same; copied with its folder it loads them', async () => {
    const path = freshPath();
    const expected = await savedStore(path);
    const alone = freshPath();
    mkdirSync(join(alone, '..'), { recursive: true });
    copyFileSync(path, alone);
    const rebuilt = await withStore(alone, answers);
    expect(rebuilt.messages.filter((m) => LOADED.includes(m))).toEqual([]);
    expect(rebuilt.result).toEqual(expected);

    const both = freshPath();
    mkdirSync(join(both, '..'), { recursive: true });
    copyFileSync(path, both);
    cpSync(`${path}-derived`, `${both}-derived`, { recursive: true });
    const loaded = await withStore(both, answers);
    expect(loaded.messages).toEqual(expect.arrayContaining(LOADED));
    expect(loaded.result).toEqual(expected);
  });

  it('never stand in for other rows: a copy written apart and put back over its original is rebuilt from its own rows', async () => {
    const path = freshPath();
    await savedStore(path);
    const away = freshPath();
    mkdirSync(join(away, '..'), { recursive: true });
    copyFileSync(path, away);
    cpSync(`${path}-derived`, `${away}-derived`, { recursive: true });
    // The same number of writes on each side: the same generation, count and last number, other text.
    await withStore(path, (mem) => mem.store({ id: 'late', text: 'the walrus census on Svalbard' }));
    await withStore(away, (mem) => mem.store({ id: 'late', text: 'the pelican census on Lake Eyre' }));
    copyFileSync(away, path);

    const back = await withStore(path, async (mem) => ({
      pelican: ids(await mem.recall('pelican', { k: 1, mode: 'lexical' })),
      walrus: ids(await mem.recall('walrus', { k: 1, mode: 'lexical' })),
      text: (await mem.get('late'))?.text,
    }));
    expect(back.messages.filter((m) => LOADED.includes(m))).toEqual([]);
    expect(back.result).toEqual({ pelican: ['late'], walrus: [], text: 'the pelican census on Lake Eyre' });
    expect((await withStore(path, async () => null)).messages).toEqual(expect.arrayContaining(LOADED));
  });

  it('are rebuilt, not trusted, when a file is cut short', async () => {
    const path = freshPath();
    const expected = await savedStore(path);
    truncateSync(join(`${path}-derived`, 'lexical.bin'), 300);
    const again = await withStore(path, answers);
    expect(again.messages).not.toContain('loaded the saved lexical index');
    expect(again.messages).toContain('loaded the saved entity index');
    expect(again.result).toEqual(expected);
  });

  it('are kept in the database with derivedFiles: false, which removes the folder of an earlier open; true reads them from there until its first save moves them out', async () => {
    const path = freshPath();
    const expected = await savedStore(path);
    const inside = await withStore(path, answers, false);
    expect(existsSync(`${path}-derived`)).toBe(false);
    expect(inside.result).toEqual(expected);
    expect(tableRows(path)).toBeGreaterThan(0);
    expect((await withStore(path, async () => null, false)).messages).toEqual(expect.arrayContaining(LOADED));

    // As a store saved inside the database by a version before the files opens.
    const out = await withStore(path, async (mem) => {
      const before = await answers(mem);
      await mem.store({ id: 'moved', text: 'the first save after this write moves the values out' });
      return before;
    });
    expect(out.messages).toEqual(expect.arrayContaining(LOADED));
    expect(out.result).toEqual(expected);
    expect(tableRows(path)).toBe(0);
    expect(readdirSync(`${path}-derived`).sort()).toEqual(DERIVED_NAMES.map((name) => `${name}.bin`).sort());
    expect((await withStore(path, async () => null)).messages).toEqual(expect.arrayContaining(LOADED));
  });

  it('hold only values there are: a store without vectors has no codes file, after any number of opens', async () => {
    const path = freshPath();
    for (let open = 0; open < 2; open++) {
      const mem = await openMemory({ storage: path, embedder: null });
      await mem.store({ id: `t${open}`, text: `text only ${open}` });
      await mem.close();
    }
    expect(readdirSync(`${path}-derived`).sort()).toEqual(['catalog.bin', 'edge-types.bin', 'entities.bin', 'lexical.bin']);
  });

  it('refuses a derivedFiles that is not a boolean, naming the method and the value', async () => {
    const error = await SqliteFileDriver.open(freshPath(), { derivedFiles: 'yes' as unknown as boolean }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(HybridMindError);
    expect([(error as HybridMindError).code, (error as HybridMindError).message]).toEqual(['INVALID_ARGUMENT', expect.stringMatching(/SqliteFileDriver\.open.*derivedFiles.*"yes"/s)]);
  });
});
