import type { DerivedStore, SqlDriver, SqlValue } from './driver.js';
import { HybridMindError, messageOf } from '../errors.js';
import { migrate } from './schema.js';
import { boundToDatabase } from './derived-lineage.js';
import { tableDerivedStore } from './derived-store.js';

/** A memory as stored: `no` is the rowid, the dense integer every index keys on. */
export interface MemoryRow {
  no: number;
  id: string;
  text: string;
  kind: string | null;
  domain: string | null;
  metadata: string;
  created_at: number;
  valid_from: number;
  valid_to: number | null;
}

export interface EdgeRow {
  no: number;
  id: string;
  src: number;
  dst: number;
  type: string;
  weight: number;
  metadata: string;
  valid_from: number;
  created_at: number;
  /** 1 when creating this edge closed the target's validity (a supersession). */
  closes_valid_to: number;
  /** The target's `valid_to` before this edge closed it, restored when the edge goes. */
  prior_valid_to: number | null;
}

export type NewMemory = Omit<MemoryRow, 'no'>;
export type NewEdge = Omit<EdgeRow, 'no'>;

const MEMORY_COLUMNS = 'no, id, text, kind, domain, metadata, created_at, valid_from, valid_to';
const EDGE_COLUMNS = 'no, id, src, dst, type, weight, metadata, valid_from, created_at, closes_valid_to, prior_valid_to';

/**
 * Every SQL statement HybridMind runs. It knows nothing of indexes; callers wrap writes in
 * `transaction()` and update indexes only after it returns.
 */
export class Repository {
  readonly db: SqlDriver;
  /** Where the indexes derived from the rows are saved (`storage/derived-store.ts`). */
  readonly derived: DerivedStore;
  /** Called after each committed write that changed a row (the store then schedules saving its derived indexes). */
  onWrite: (() => void) | null = null;

  constructor(db: SqlDriver) {
    this.db = db;
    this.derived = db.derived ? boundToDatabase(db.derived, db) : tableDerivedStore(db);
    migrate(db);
  }

  /**
   * One write batch. Whatever a driver throws surfaces as a coded STORAGE error of the public
   * method that wrote (the driver's error is its `cause`).
   */
  transaction<T>(method: string, fn: () => T): T {
    let changed = false;
    let result: T;
    try {
      result = this.db.transaction(() => {
        const before = this.#changes();
        const value = fn();
        // Every committed write that changed a row moves the generation, so saved indexes can tell they are stale.
        if (this.#changes() !== before) {
          this.db.exec("INSERT INTO meta (key, value) VALUES ('generation', '1') ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1");
          changed = true;
        }
        return value;
      });
    } catch (cause) {
      if (cause instanceof HybridMindError) throw cause;
      throw new HybridMindError('STORAGE', method, `the write was rolled back: ${messageOf(cause)}`, { cause });
    }
    if (changed) this.onWrite?.();
    return result;
  }

  #changes(): number {
    return Number(this.db.all<{ n: number }>('SELECT total_changes() AS n')[0]!.n);
  }

  getMeta(key: string): string | null {
    return this.db.all<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key])[0]?.value ?? null;
  }

  setMeta(key: string, value: string): void {
    this.db.exec('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, value]);
  }

  /**
   * Inserts many memories with one statement (their fields as one JSON parameter), returning their
   * numbers in input order: one call into SQLite instead of one per row is most of what a batch
   * write costs through a WASM binding.
   */
  insertMemories(ms: readonly NewMemory[]): number[] {
    return this.#insertRows(
      'memories', ['id', 'text', 'kind', 'domain', 'metadata', 'created_at', 'valid_from', 'valid_to'], ms,
      (no, m) => [no, m.id, m.text, m.kind, m.domain, m.metadata, m.created_at, m.valid_from, m.valid_to],
      (m) => m.text.length + m.metadata.length + m.id.length,
    );
  }

  updateMemory(m: MemoryRow): void {
    this.db.exec(
      'UPDATE memories SET text = ?, kind = ?, domain = ?, metadata = ?, valid_from = ?, valid_to = ? WHERE no = ?',
      [m.text, m.kind, m.domain, m.metadata, m.valid_from, m.valid_to, m.no],
    );
  }

  setValidTo(no: number, validTo: number | null): void {
    this.db.exec('UPDATE memories SET valid_to = ? WHERE no = ?', [validTo, no]);
  }

  deleteMemory(no: number): void {
    this.db.exec('DELETE FROM memories WHERE no = ?', [no]);
  }

  memoryById(id: string): MemoryRow | undefined {
    return this.db.all<MemoryRow & Record<string, never>>(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE id = ?`, [id])[0];
  }

  noOfId(id: string): number | undefined {
    const row = this.db.all<{ no: number }>('SELECT no FROM memories WHERE id = ?', [id])[0];
    return row === undefined ? undefined : Number(row.no);
  }

  memoryByNo(no: number): MemoryRow | undefined {
    return this.db.all<MemoryRow & Record<string, never>>(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE no = ?`, [no])[0];
  }

  /**
   * The texts of `nos` in one statement (a recall's top k): the list goes in as one JSON parameter,
   * so the statement text, and the prepared statement, is the same for any k.
   */
  textsByNo(nos: readonly number[]): Map<number, string> {
    if (!this.db.visitByKey) return this.#textsAsJson('text', [], nos);
    const texts = new Map<number, string>();
    this.db.visitByKey('SELECT text FROM memories WHERE no = ?', nos, (no, [text]) => texts.set(no, text as string));
    return texts;
  }

  /** The first `chars` characters of each text: what a label at the start needs, without the rest. */
  textHeadsByNo(nos: readonly number[], chars: number): Map<number, string> {
    return this.#textsAsJson('substr(text, 1, ?)', [chars], nos);
  }

  /**
   * One JSON value instead of a row per memory: through the WASM binding each row costs a round
   * of calls, 10 µs apiece, and a recall asks for ~200 labels and 10 texts.
   */
  #textsAsJson(column: string, params: SqlValue[], nos: readonly number[]): Map<number, string> {
    const [row] = this.db.all<{ texts: string }>(
      `SELECT json_group_array(json_array(no, ${column})) AS texts FROM memories WHERE no IN (SELECT value FROM json_each(?))`,
      [...params, JSON.stringify(nos)],
    );
    return new Map(JSON.parse(row?.texts ?? '[]') as Array<[number, string]>);
  }

  allMemories(): MemoryRow[] {
    return this.db.all<MemoryRow & Record<string, never>>(`SELECT ${MEMORY_COLUMNS} FROM memories ORDER BY no`);
  }

  /** `raw`: the model's vector when `vector` is a smoothed form of it (neighbour averaging). */
  setVector(no: number, vector: Float32Array, raw: Float32Array | null = null): void {
    this.db.exec('INSERT OR REPLACE INTO vectors (no, vector, raw) VALUES (?, ?, ?)', [no, vectorBytes(vector), raw && vectorBytes(raw)]);
  }

  /** Many vectors without a raw column in one statement: one blob holds them all, cut apart in SQL. */
  setVectors(entries: ReadonlyArray<{ no: number; vector: Float32Array }>): void {
    for (const chunk of chunksOf(entries, (e) => e.vector.byteLength)) {
      const width = chunk[0]!.vector.byteLength;
      const blob = new Uint8Array(width * chunk.length);
      chunk.forEach((e, i) => {
        if (e.vector.byteLength !== width) throw new Error(`setVectors: vector ${e.no} has ${e.vector.byteLength} bytes, the batch ${width}`);
        blob.set(vectorBytes(e.vector), i * width);
      });
      this.db.exec(
        'INSERT OR REPLACE INTO vectors (no, vector, raw) SELECT value, substr(?, key * ? + 1, ?), NULL FROM json_each(?)',
        [blob, width, width, JSON.stringify(chunk.map((e) => e.no))],
      );
    }
  }

  /** The model's vector of `no`: its raw column when averaging stored one, else the vector. */
  rawVector(no: number): Float32Array | undefined {
    const row = this.db.all<{ v: Uint8Array }>('SELECT coalesce(raw, vector) AS v FROM vectors WHERE no = ?', [no])[0];
    return row && blobToVector(row.v);
  }

  deleteVector(no: number): void {
    this.db.exec('DELETE FROM vectors WHERE no = ?', [no]);
  }

  /** Every vector, and the ANN index bytes derived from them. */
  deleteAllVectors(): void {
    this.db.exec('DELETE FROM vectors');
    this.db.exec('DELETE FROM ann_index');
  }

  allVectors(): Array<{ no: number; vector: Float32Array }> {
    return this.db.all<{ no: number; vector: Uint8Array }>('SELECT no, vector FROM vectors ORDER BY no').map((r) => ({
      no: Number(r.no),
      vector: blobToVector(r.vector),
    }));
  }

  /** Memories still waiting for an embedding (e.g. the process stopped before enrichment finished). */
  memoriesWithoutVector(): number[] {
    return this.db.all<{ no: number }>('SELECT m.no FROM memories m LEFT JOIN vectors v ON v.no = m.no WHERE v.no IS NULL ORDER BY m.no').map((r) => Number(r.no));
  }

  /** Inserts many edges with one statement, like `insertMemories`; their numbers in input order. */
  insertEdges(es: readonly NewEdge[]): number[] {
    return this.#insertRows(
      'edges', ['id', 'src', 'dst', 'type', 'weight', 'metadata', 'valid_from', 'created_at', 'closes_valid_to', 'prior_valid_to'], es,
      (no, e) => [no, e.id, e.src, e.dst, e.type, e.weight, e.metadata, e.valid_from, e.created_at, e.closes_valid_to, e.prior_valid_to],
      (e) => e.id.length + e.type.length + e.metadata.length + 64,
    );
  }

  /**
   * Rows inserted with one statement per chunk (their fields as one JSON parameter: `row` gives an
   * item's, its number first), numbered here as SQLite would number them: one past the table's
   * largest number, then on (neither table has AUTOINCREMENT, so SQLite reuses numbers past the
   * last row the same way). Asking SQLite for the
   * numbers it chose (RETURNING) cost more than the insert itself: ~0.4 of 1.5 s per 100k memories.
   * `jsonb_each`, not `json_each`: it hands each row over as binary JSON, which `->>` reads by
   * offset, where a row as JSON text was parsed again by every `->>` (nine per memory): 10k
   * memories went in in 64–73 ms of SQL instead of 100–115, their 5k edges in 32–40 instead of 49–54.
   */
  #insertRows<T>(table: 'memories' | 'edges', columns: readonly string[], items: readonly T[], row: (no: number, item: T) => unknown[], weight: (item: T) => number): number[] {
    if (items.length === 0) return [];
    const last = Number(this.db.all<{ last: number }>(`SELECT coalesce(max(no), 0) AS last FROM ${table}`)[0]!.last);
    const sql = `INSERT INTO ${table} (no, ${columns.join(', ')})
      SELECT value ->> 0, ${columns.map((_, i) => `value ->> ${i + 1}`).join(', ')} FROM jsonb_each(?)`;
    let no = last;
    for (const chunk of chunksOf(items, weight)) this.db.exec(sql, [JSON.stringify(chunk.map((item) => row(++no, item)))]);
    return Array.from({ length: items.length }, (_, i) => last + 1 + i);
  }

  /** Which of `keys` already have an edge, as `src:dst:type` (see `edgeKey`), in one query (`jsonb_each`: see `#insertRows`). */
  existingEdges(keys: ReadonlyArray<{ src: number; dst: number; type: string }>): Set<string> {
    const found = new Set<string>();
    for (const chunk of chunksOf(keys, (k) => k.type.length + 48)) {
      const rows = this.db.all<{ src: number; dst: number; type: string }>(
        'SELECT e.src, e.dst, e.type FROM jsonb_each(?) j JOIN edges e ON e.src = j.value ->> 0 AND e.dst = j.value ->> 1 AND e.type = j.value ->> 2',
        [JSON.stringify(chunk.map((k) => [k.src, k.dst, k.type]))],
      );
      for (const r of rows) found.add(`${Number(r.src)}:${Number(r.dst)}:${r.type}`);
    }
    return found;
  }

  deleteEdge(no: number): void {
    this.db.exec('DELETE FROM edges WHERE no = ?', [no]);
  }

  edgeById(id: string): EdgeRow | undefined {
    return this.db.all<EdgeRow & Record<string, never>>(`SELECT ${EDGE_COLUMNS} FROM edges WHERE id = ?`, [id])[0];
  }

  edgesOf(no: number): EdgeRow[] {
    return this.db.all<EdgeRow & Record<string, never>>(`SELECT ${EDGE_COLUMNS} FROM edges WHERE src = ? OR dst = ? ORDER BY no`, [no, no]);
  }

  /** Edges the store drew itself (`metadata.auto`), optionally of one kind. */
  autoEdges(by: string | null): EdgeRow[] {
    return by === null
      ? this.db.all<EdgeRow & Record<string, never>>(`SELECT ${EDGE_COLUMNS} FROM edges WHERE json_extract(metadata, '$.auto.by') IS NOT NULL ORDER BY no`)
      : this.db.all<EdgeRow & Record<string, never>>(`SELECT ${EDGE_COLUMNS} FROM edges WHERE json_extract(metadata, '$.auto.by') = ? ORDER BY no`, [by]);
  }

  allEdges(): EdgeRow[] {
    return this.db.all<EdgeRow & Record<string, never>>(`SELECT ${EDGE_COLUMNS} FROM edges ORDER BY no`);
  }

  edgeTypeCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const r of this.db.all<{ type: string; n: number }>('SELECT type, count(*) AS n FROM edges GROUP BY type ORDER BY type')) counts[r.type] = Number(r.n);
    return counts;
  }

  edgeBetween(src: number, dst: number, type: string): EdgeRow | undefined {
    return this.db.all<EdgeRow & Record<string, never>>(`SELECT ${EDGE_COLUMNS} FROM edges WHERE src = ? AND dst = ? AND type = ?`, [src, dst, type])[0];
  }

  vacuum(): void {
    this.db.exec('VACUUM');
  }
}

/**
 * Batch parameters are kept under this many characters (or bytes): Durable Object SQLite refuses
 * a string or blob over 2 MB, and UTF-8 takes up to three bytes per character.
 */
const CHUNK_BUDGET = 512 * 1024;

/** `items` in consecutive runs whose `weight`s add up to at most the budget (an item over it goes alone). */
function chunksOf<T>(items: readonly T[], weight: (item: T) => number): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let total = 0;
  for (const item of items) {
    const w = weight(item);
    if (current.length > 0 && total + w > CHUNK_BUDGET) {
      out.push(current);
      current = [];
      total = 0;
    }
    current.push(item);
    total += w;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** SQLite hands back blobs at arbitrary offsets; a Float32Array needs 4-byte alignment, so copy. */
export function blobToVector(blob: Uint8Array): Float32Array {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}

function vectorBytes(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}
