/**
 * `storedEdges` is what an open's graph fill reads: every edge held when it began, once, in
 * stored order, leaving out those deleted meanwhile and those written after it began (the leg
 * is handed those by the write), and the edges around given memories as they are now.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GraphIndex } from '../../src/legs/graph/graph-index.js';
import type { GraphEdge } from '../../src/legs/types.js';
import type { SqlDriver } from '../../src/storage/driver.js';
import { storedEdges } from '../../src/storage/edge-source.js';
import { SqliteFileDriver } from '../../src/storage/node-file.js';
import { SqliteWasmDriver } from '../../src/storage/sqlite-wasm.js';

const dir = mkdtempSync(join(tmpdir(), 'hybridmind-edge-source-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const drivers: Array<[string, () => Promise<SqlDriver>]> = [
  ['SQLite-WASM', () => SqliteWasmDriver.open()],
  ['better-sqlite3 file', () => SqliteFileDriver.open(join(dir, `edges-${files++}.db`))],
];

const ends = (no: number): [number, number] => [no % 97, (no * 31 + 5) % 97];

function edgeOf(no: number): GraphEdge {
  const [from, to] = ends(no);
  return { id: `e${no}`, from, to, type: no % 2 ? 'DEPENDS_ON' : 'RELATES_TO', weight: 1 + (no % 3) / 2, createdAt: 1_700_000_000_000 + no };
}

function insert(db: SqlDriver, no: number, id: unknown = `e${no}`): void {
  const e = edgeOf(no);
  db.exec('INSERT INTO edges VALUES (?, ?, ?, ?, ?, ?, ?)', [no, id as string, e.from, e.to, e.type, e.weight, e.createdAt]);
}

async function withEdges(open: () => Promise<SqlDriver>, count: number, use: (db: SqlDriver) => void): Promise<void> {
  const db = await open();
  try {
    db.exec('CREATE TABLE edges (no INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, src INTEGER NOT NULL, dst INTEGER NOT NULL, type TEXT NOT NULL, weight REAL NOT NULL, created_at INTEGER NOT NULL)');
    db.exec('CREATE INDEX edges_src ON edges(src)');
    db.exec('CREATE INDEX edges_dst ON edges(dst)');
    db.exec('BEGIN');
    for (let no = 1; no <= count; no++) insert(db, no);
    db.exec('COMMIT');
    use(db);
  } finally {
    db.close();
  }
}

function drain(source: ReturnType<typeof storedEdges>): { edges: GraphEdge[]; calls: number } {
  const edges: GraphEdge[] = [];
  let calls = 0;
  for (let chunk = source.next(); ; chunk = source.next()) {
    calls += 1;
    if (chunk.length === 0) return { edges, calls };
    edges.push(...chunk);
  }
}

describe.each(drivers)('storedEdges (%s)', (_, open) => {
  it('hands out every edge held when it began, once, in stored order, without those deleted or written meanwhile', async () => {
    await withEdges(open, 1_203, (db) => {
      const source = storedEdges(db);
      expect(source.empty).toBe(false);
      const first = source.next();
      expect(first.map((e) => e.id)).toEqual(Array.from({ length: 500 }, (_, i) => `e${i + 1}`));
      expect(first[41]).toEqual(edgeOf(42));
      db.exec('DELETE FROM edges WHERE no IN (3, 700, 1203)');
      insert(db, 1_204);
      insert(db, 5_000);
      const rest = drain(source);
      expect(rest.calls).toBe(3);
      const expected = Array.from({ length: 1_202 }, (_, i) => i + 1).filter((no) => no > 500 && no !== 700);
      expect(rest.edges.map((e) => e.id)).toEqual(expected.map((no) => `e${no}`));
      expect(source.next()).toEqual([]);
    });
  });

  it('has nothing to hand out from a store without edges', async () => {
    await withEdges(open, 0, (db) => {
      const source = storedEdges(db);
      expect(source.empty).toBe(true);
      insert(db, 1);
      expect(source.next()).toEqual([]);
      expect(source.around([1, 32])).toEqual([edgeOf(1)]);
    });
  });

  it('reads the edges around memories as stored now: either end, each once, in stored order', async () => {
    await withEdges(open, 300, (db) => {
      const source = storedEdges(db);
      db.exec('DELETE FROM edges WHERE no = 10');
      insert(db, 301);
      const nos = [10, 36, 5];
      const expected = Array.from({ length: 301 }, (_, i) => i + 1).filter((no) => no !== 10 && ends(no).some((end) => nos.includes(end)));
      expect(expected.length).toBeGreaterThan(6);
      expect(source.around(nos)).toEqual(expected.map(edgeOf));
      expect(source.around([])).toEqual([]);
    });
  });

  it('lets a graph that has not taken any of them find every path as the complete graph does', async () => {
    await withEdges(open, 150, (db) => {
      const source = storedEdges(db);
      let taken = 0;
      const counted = { empty: source.empty, next: () => (taken += 1, source.next()), around: (nos: readonly number[]) => source.around(nos) };
      const nodes = { has: (no: number) => Number.isInteger(no) && no >= 0 && no < 97, size: 97 };
      const filling = new GraphIndex(nodes);
      filling.fill(counted, () => {});
      const complete = new GraphIndex(nodes);
      for (const e of drain(storedEdges(db)).edges) complete.addEdge(e.id, e.from, e.to, { type: e.type, weight: e.weight, createdAt: e.createdAt });
      let found = 0;
      for (const direction of ['out', 'in', 'both'] as const) {
        // Each memory's edges lead to `ends(no)[1]`: pairs along them are connected, the others may not be.
        const along = (start: number, steps: number) => Array.from({ length: steps }).reduce<number>((at) => ends(at)[1], start);
        for (const [from, to] of [[0, along(0, 2)], [5, along(5, 4)], [12, along(12, 3)], [0, 96], [40, 3]]) {
          for (const options of [{ direction }, { direction, edgeTypes: ['DEPENDS_ON'], maxDepth: 3 }]) {
            const path = complete.path(from!, to!, options);
            if (path) found += 1;
            expect(filling.path(from!, to!, options), `${from} → ${to} ${JSON.stringify(options)}`).toEqual(path);
          }
        }
      }
      expect(found).toBeGreaterThan(6);
      expect(taken).toBe(0);
    });
  });

  it('reads row by row what JSON cannot carry (a blob where an id belongs)', async () => {
    await withEdges(open, 20, (db) => {
      db.exec('UPDATE edges SET id = ? WHERE no = 4', [Uint8Array.of(1, 2, 3)]);
      const source = storedEdges(db);
      const { edges } = drain(source);
      expect(edges.map((e) => e.createdAt)).toEqual(Array.from({ length: 20 }, (_, i) => edgeOf(i + 1).createdAt));
      // better-sqlite3 hands blobs as Buffers.
      expect(Uint8Array.from(edges[3]!.id as unknown as Uint8Array)).toEqual(Uint8Array.of(1, 2, 3));
      const [from] = ends(4);
      expect(source.around([from]).map((e) => e.createdAt)).toContain(edgeOf(4).createdAt);
    });
  });
});
