/**
 * kill -9 at seeded random moments while a child process writes a file store, saves snapshots of
 * it, or restores snapshots into it; then the parent reopens the file and checks: it opens (no
 * corruption), no batch is half there, and every write the child acknowledged is there.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HybridMemory } from '../../src/index.js';
import { loadSnapshotFile } from '../../src/snapshot/node-files.js';
import { SqliteFileDriver } from '../../src/storage/node-file.js';
import { acknowledged, batchSizes, embeddingOf, runAndKill } from '../support/kill.js';
import { rng } from '../support/random.js';

/** What an open that read the dense scan's codes from the derived files logs. */
const CODES = 'opened the dense leg from its saved codes; vectors are read from the store when needed';

/** Issue 12 asks for 30 seeded kill points during storeMany and 30 during export. */
const KILLS = 30;
const dir = mkdtempSync(join(tmpdir(), 'hybridmind-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Counts of memories per batch number, read straight from the file after an integrity check. */
async function batchesInFile(path: string): Promise<Map<number, number>> {
  const db = await SqliteFileDriver.open(path);
  try {
    expect(db.all('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    const counts = new Map<number, number>();
    for (const { id } of db.all<{ id: string }>('SELECT id FROM memories')) {
      const batch = Number(/^b(\d+)-\d+$/.exec(id)![1]);
      counts.set(batch, (counts.get(batch) ?? 0) + 1);
    }
    return counts;
  } finally {
    db.close();
  }
}

describe('file store under kill -9', () => {
  it(`keeps every acknowledged storeMany batch and no half batch over ${KILLS} seeded kill points`, async () => {
    const path = join(dir, 'store', 'memory.db');
    const random = rng(20261130);
    const expected = new Map<number, number>();
    const sizes: number[][] = [];
    for (let round = 0; round < KILLS; round++) {
      const seed = 1000 + round;
      const first = round * 10_000;
      const lines = await runAndKill(['store', path, String(seed), String(first)], Math.floor(random() * 400));
      for (const { batch, size } of acknowledged(lines, 'ack')) expected.set(batch, size);
      sizes.push(batchSizes(seed, 10_000));
      const found = await batchesInFile(path);
      for (const [batch, size] of expected) expect(found.get(batch), `acknowledged batch ${batch}`).toBe(size);
      for (const [batch, count] of found) expect(count, `batch ${batch} is whole`).toBe(sizes[Math.floor(batch / 10_000)]![batch % 10_000]);
      // The in-flight batch may have committed before the kill: it is then whole, and expected from now on.
      for (const [batch, count] of found) expected.set(batch, count);
    }
    expect(expected.size).toBeGreaterThan(KILLS);
    const mem = await HybridMemory.open({ storage: path, embedder: null });
    try {
      expect((await mem.stats()).memories).toBe([...expected.values()].reduce((a, b) => a + b, 0));
      const [batch, size] = [...expected][expected.size - 1]!;
      expect((await mem.get(`b${batch}-${size - 1}`))?.text).toMatch(`batch ${batch} item ${size - 1}`);
      expect((await mem.recall(`batch ${batch} item`)).length).toBeGreaterThan(0);
    } finally {
      await mem.close();
    }
  }, 600_000);

  it(`leaves a whole snapshot (never a torn one) and no stale temp file over ${KILLS} seeded kills during export`, async () => {
    const path = join(dir, 'export', 'memory.db');
    const zip = join(dir, 'export', 'memory.mind.zip');
    const random = rng(7);
    for (let round = 0; round < KILLS; round++) {
      const lines = await runAndKill(['export', path, zip, String(2000 + round), String(round * 10_000)], Math.floor(random() * 600));
      const saved = acknowledged(lines, 'saved');
      if (!existsSync(zip)) {
        expect(saved).toEqual([]);
        continue;
      }
      const copy = await loadSnapshotFile(zip, { embedder: null });
      try {
        for (const { batch, size } of saved) expect(await copy.get(`b${batch}-${size - 1}`), `saved batch ${batch}`).not.toBeNull();
      } finally {
        await copy.close();
      }
      expect(readdirSync(join(dir, 'export')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
      const inFile = await batchesInFile(path);
      for (const { batch, size } of saved) expect(inFile.get(batch)).toBe(size);
    }
  }, 120_000);

  it(`never takes a derived file a kill tore: over ${KILLS} kills while the files are saved, the store answers as its rows rebuilt`, async () => {
    const path = join(dir, 'derived', 'memory.db');
    const alone = join(dir, 'derived-alone', 'memory.db');
    const random = rng(31);
    let fromFiles = 0;
    for (let round = 0; round < KILLS; round++) {
      await runAndKill(['derive', path, String(3000 + round), String(round * 10_000)], Math.floor(random() * 400));
      // Closed cleanly here, so the .db holds every committed batch without its log.
      const batches = [...(await batchesInFile(path)).keys()].slice(-3);
      rmSync(dirname(alone), { recursive: true, force: true });
      mkdirSync(dirname(alone), { recursive: true });
      copyFileSync(path, alone);
      const messages: string[] = [];
      const answers = async (storage: string, logger?: (level: string, message: string) => void) => {
        const mem = await HybridMemory.open({ storage, embedder: null, ...(logger ? { logger } : {}) });
        try {
          const ask = async (b: number, mode: 'lexical' | 'vector') => (await mem.recall(`batch ${b} item`, { k: 5, mode, queryEmbedding: embeddingOf(b, 0), explain: false })).map((h) => [h.id, h.score]);
          return await Promise.all(batches.flatMap((b) => [ask(b, 'lexical'), ask(b, 'vector')]));
        } finally {
          await mem.close();
        }
      };
      // The copy has no folder beside it: it answers from its rows.
      expect(await answers(path, (_level, message) => messages.push(message))).toEqual(await answers(alone));
      if (messages.includes('loaded the saved lexical index') && messages.includes(CODES)) fromFiles++;
    }
    // Some kills left the files current: the comparison above also covered opens from them, codes included.
    expect(fromFiles).toBeGreaterThan(0);
  }, 180_000);

  it('restoreSnapshot replaces a file store\'s content atomically: after 6 kills it holds one snapshot or the other, whole', async () => {
    const make = async (prefix: string, n: number) => {
      const mem = await HybridMemory.open({ embedder: null });
      await mem.storeMany(Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, text: `${prefix} memory ${i}` })));
      await mem.relate(`${prefix}1`, `${prefix}0`, 'DEPENDS_ON');
      const bytes = await mem.exportSnapshot();
      await mem.close();
      return bytes;
    };
    const { writeFileSync } = await import('node:fs');
    const a = join(dir, 'a.mind.zip');
    const b = join(dir, 'b.mind.zip');
    writeFileSync(a, await make('a', 300));
    writeFileSync(b, await make('b', 500));
    const path = join(dir, 'restore', 'memory.db');
    const random = rng(99);
    for (let round = 0; round < 6; round++) {
      // Armed at the first acknowledged restore, so the kill lands in a later one.
      await runAndKill(['restore', path, a, b], Math.floor(random() * 400), 'restored');
      const db = await SqliteFileDriver.open(path);
      let ids: string[];
      try {
        expect(db.all('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
        ids = db.all<{ id: string }>('SELECT id FROM memories ORDER BY no').map((r) => r.id);
        expect(db.all('SELECT count(*) AS n FROM edges')).toEqual([{ n: 1 }]);
      } finally {
        db.close();
      }
      const which = ids.length === 300 && ids.every((id, i) => id === `a${i}`) ? 'A' : ids.length === 500 && ids.every((id, i) => id === `b${i}`) ? 'B' : `torn (${ids.length} memories)`;
      expect(['A', 'B']).toContain(which);
    }
  }, 120_000);
});
