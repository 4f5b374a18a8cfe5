import { invalid } from '../errors.js';
import type { HybridMemory } from '../hybrid-memory.js';
import { isPlainObject } from '../memory/validate.js';
import { sha256Hex } from '../snapshot/sha256.js';
import type { EdgeRow, MemoryRow } from '../storage/repository.js';
import type { Metadata } from '../types.js';
import type { Db, Query } from './db.js';
import { EDGE_COLUMNS, MEMORY_COLUMNS, parseVector, toEdgeRow, toMemoryRow } from './rows.js';
import { SNAPSHOT_XMIN } from './schema.js';
import { readSnapshotContent, type PgContent } from './snapshot.js';
import { dropEdges, edgeKey, forgetMemory, insertEdges, insertMemories, updateMemory, writeVectors } from './writer.js';

/**
 * Where a device stands after a sync; it keeps this (it is plain JSON) and passes it to the
 * next one. `generation`: the server generation it has seen up to. `memories`: a digest of each
 * memory as of that sync, `edges`: the edge keys `[from, to, type]` then — so the next sync can
 * tell what the device changed while offline.
 */
export interface SyncCursor {
  generation: number;
  memories: Record<string, string>;
  edges: string[];
}

export interface SyncCounts {
  /** Memories written (new or changed). */
  memories: number;
  forgotten: number;
  related: number;
  unrelated: number;
}

export interface SyncReport {
  cursor: SyncCursor;
  /** The device's offline changes written to Postgres. */
  pushed: SyncCounts;
  /** Changes other writers made in Postgres, applied to the device. */
  pulled: SyncCounts;
}

/** What the Postgres side of a sync needs from its memory. */
export interface PgSide {
  db: Db;
  now: () => number;
  ensureDim: (method: string, dim: number) => Promise<void>;
}

interface RemoteChanges {
  xmin: number;
  memories: Array<{ row: MemoryRow; vector: Float32Array | null }>;
  forgotten: string[];
  edges: Array<{ key: string; fromId: string; toId: string; row: EdgeRow }>;
  unrelated: string[];
}

const emptyCounts = (): SyncCounts => ({ memories: 0, forgotten: 0, related: 0, unrelated: 0 });

/**
 * Two-way sync between a device's embedded store and a Postgres memory. Conflict rule: per
 * memory (and per edge), the last write to reach the server wins — a device's offline writes
 * reach it now, so where both sides changed the same memory since the cursor, the device's
 * version is kept; a forget is a write too (a tombstone on the server, a removal on the device).
 */
export async function syncDevice(method: string, pg: PgSide, local: HybridMemory, cursor: SyncCursor | null): Promise<SyncReport> {
  const base = checkCursor(method, cursor);
  await local.ready();
  const before = await readLocal(method, local);
  const digests = await digestsOf(method, before.memories);
  const idOf = new Map(before.memories.map((m) => [m.no, m.id]));
  const vectorOf = new Map(before.vectors.map((v) => [v.no, v.vector]));
  const localEdges = new Map(before.edges.map((e) => [edgeKey(idOf.get(e.src)!, idOf.get(e.dst)!, e.type), e]));

  const changed = before.memories.filter((m) => base.memories[m.id] !== digests.get(m.id));
  const forgotten = Object.keys(base.memories).filter((id) => !digests.has(id));
  const baseEdges = new Set(base.edges);
  const added = [...localEdges].filter(([key]) => !baseEdges.has(key));
  const removed = base.edges.filter((key) => !localEdges.has(key));

  const remote = await pg.db.transaction(method, (q) => readRemote(q, pg.db, base.generation), 'read');

  const firstVector = changed.map((m) => vectorOf.get(m.no)).find((v) => v !== undefined);
  if (firstVector) await pg.ensureDim(method, firstVector.length);
  const pushed = await pg.db.transaction(method, (q) => push(q, pg, method, { changed, forgotten, added, removed, idOf, vectorOf }));

  const mine = new Set([...changed.map((m) => m.id), ...forgotten]);
  const pulled = await pull(local, remote, { mine, digests, localEdges, added: new Set(added.map(([k]) => k)), removed: new Set(removed) }, method);

  const after = await readLocal(method, local);
  const afterIds = new Map(after.memories.map((m) => [m.no, m.id]));
  return {
    cursor: {
      generation: remote.xmin,
      memories: Object.fromEntries(await digestsOf(method, after.memories)),
      edges: after.edges.map((e) => edgeKey(afterIds.get(e.src)!, afterIds.get(e.dst)!, e.type)),
    },
    pushed,
    pulled,
  };
}

function checkCursor(method: string, cursor: unknown): SyncCursor {
  if (cursor === null || cursor === undefined) return { generation: 0, memories: {}, edges: [] };
  if (!isPlainObject(cursor) || !Number.isSafeInteger(cursor['generation']) || !isPlainObject(cursor['memories']) || !Array.isArray(cursor['edges'])) {
    throw invalid(method, 'cursor must be null or the cursor a previous sync returned ({ generation, memories, edges })', cursor);
  }
  return cursor as unknown as SyncCursor;
}

async function readLocal(method: string, local: HybridMemory): Promise<PgContent> {
  return readSnapshotContent(method, await local.exportSnapshot(), null, undefined);
}

/** What decides whether a memory changed: every field a write can change. */
async function digestsOf(method: string, rows: readonly MemoryRow[]): Promise<Map<string, string>> {
  const encoder = new TextEncoder();
  const out = new Map<string, string>();
  for (const m of rows) out.set(m.id, await sha256Hex(method, encoder.encode(JSON.stringify([m.text, m.kind, m.domain, m.metadata, m.created_at, m.valid_from, m.valid_to]))));
  return out;
}

/** Everything written on the server since `generation`, read in one snapshot, with the xmin to resume from. */
async function readRemote(q: Query, db: Db, generation: number): Promise<RemoteChanges> {
  const xmin = Number((await q(`SELECT ${SNAPSHOT_XMIN} AS x`)).rows[0]!['x']);
  const hasVectors = (await q(`SELECT to_regclass($1) IS NOT NULL AS v`, [db.t('vectors')])).rows[0]!['v'] === true;
  const vectorColumn = hasVectors ? `(SELECT v.embedding::text FROM ${db.t('vectors')} v WHERE v.no = m.no)` : 'NULL';
  const memories = (await q(`SELECT ${MEMORY_COLUMNS}, ${vectorColumn} AS e FROM ${db.t('memories')} m WHERE generation >= $1 ORDER BY no`, [generation])).rows
    .map((r) => ({ row: toMemoryRow(r), vector: r['e'] === null ? null : parseVector(r['e']) }));
  const tombstones = (await q(`SELECT kind, key FROM ${db.t('tombstones')} WHERE generation >= $1 ORDER BY generation`, [generation])).rows;
  const edges = (await q(
    `SELECT ${EDGE_COLUMNS.split(', ').map((c) => `e.${c}`).join(', ')}, a.id AS from_id, b.id AS to_id FROM ${db.t('edges')} e
     JOIN ${db.t('memories')} a ON a.no = e.src JOIN ${db.t('memories')} b ON b.no = e.dst WHERE e.generation >= $1 ORDER BY e.no`,
    [generation],
  )).rows.map((r) => ({ key: edgeKey(String(r['from_id']), String(r['to_id']), String(r['type'])), fromId: String(r['from_id']), toId: String(r['to_id']), row: toEdgeRow(r) }));
  return {
    xmin,
    memories,
    forgotten: tombstones.filter((t) => t['kind'] === 'memory').map((t) => String(t['key'])),
    edges,
    unrelated: tombstones.filter((t) => t['kind'] === 'edge').map((t) => String(t['key'])),
  };
}

interface LocalChanges {
  changed: MemoryRow[];
  forgotten: string[];
  added: Array<[string, EdgeRow]>;
  removed: string[];
  idOf: Map<number, string>;
  vectorOf: Map<number, Float32Array>;
}

/** The device's changes, written to Postgres in one transaction. */
async function push(q: Query, pg: PgSide, method: string, c: LocalChanges): Promise<SyncCounts> {
  const { db } = pg;
  const now = pg.now();
  const counts = emptyCounts();
  const existing = async (id: string) => {
    const row = (await q(`SELECT ${MEMORY_COLUMNS} FROM ${db.t('memories')} WHERE id = $1 FOR UPDATE`, [id])).rows[0];
    return row ? toMemoryRow(row) : null;
  };
  for (const m of c.changed) {
    const server = await existing(m.id);
    const vector = c.vectorOf.get(m.no);
    let no: number;
    if (server) {
      no = server.no;
      await updateMemory(q, db, { ...m, no }, server.text === m.text ? null : server.text, now);
    } else {
      const { no: _local, ...row } = m;
      no = (await insertMemories(q, db, [row], now)).get(m.id)!;
    }
    if (vector) await writeVectors(q, db, [[no, vector]]);
    counts.memories++;
  }
  for (const id of c.forgotten) {
    const server = await existing(id);
    if (!server) continue;
    await forgetMemory(q, db, server, now);
    counts.forgotten++;
  }
  for (const [key, e] of c.added) {
    const [fromId, toId, type] = JSON.parse(key) as [string, string, string];
    if (!(await existing(fromId)) || !(await existing(toId)) || (await edgeByKey(q, db, fromId, toId, type))) continue;
    await insertEdges(q, db, method, [{ id: e.id, fromId, toId, type, weight: e.weight, metadata: e.metadata, validFrom: e.valid_from, createdAt: e.created_at }], now);
    counts.related++;
  }
  for (const key of c.removed) {
    const [fromId, toId, type] = JSON.parse(key) as [string, string, string];
    const edge = await edgeByKey(q, db, fromId, toId, type);
    if (!edge) continue;
    await dropEdges(q, db, [edge], now);
    counts.unrelated++;
  }
  return counts;
}

async function edgeByKey(q: Query, db: Db, fromId: string, toId: string, type: string): Promise<EdgeRow | null> {
  const row = (await q(
    `SELECT ${EDGE_COLUMNS.split(', ').map((c) => `e.${c}`).join(', ')} FROM ${db.t('edges')} e
     JOIN ${db.t('memories')} a ON a.no = e.src JOIN ${db.t('memories')} b ON b.no = e.dst WHERE a.id = $1 AND b.id = $2 AND e.type = $3`,
    [fromId, toId, type],
  )).rows[0];
  return row ? toEdgeRow(row) : null;
}

/** Applies the server's changes to the device through its public API, skipping what the device itself changed. */
async function pull(
  local: HybridMemory,
  remote: RemoteChanges,
  own: { mine: Set<string>; digests: Map<string, string>; localEdges: Map<string, EdgeRow>; added: Set<string>; removed: Set<string> },
  method: string,
): Promise<SyncCounts> {
  const counts = emptyCounts();
  const remoteDigests = await digestsOf(method, remote.memories.map((m) => m.row));
  for (const { row, vector } of remote.memories) {
    if (own.mine.has(row.id) || own.digests.get(row.id) === remoteDigests.get(row.id)) continue;
    const fields = { text: row.text, kind: row.kind, domain: row.domain, metadata: JSON.parse(row.metadata) as Metadata, validFrom: row.valid_from, validTo: row.valid_to, ...(vector ? { embedding: vector } : {}) };
    if (own.digests.has(row.id)) await local.update(row.id, fields);
    else await local.store({ id: row.id, createdAt: row.created_at, ...fields });
    counts.memories++;
  }
  for (const e of remote.edges) {
    if (own.localEdges.has(e.key) || own.removed.has(e.key)) continue;
    if (!(await local.get(e.fromId)) || !(await local.get(e.toId))) continue;
    await local.relate(e.fromId, e.toId, e.row.type, { weight: e.row.weight, metadata: JSON.parse(e.row.metadata) as Metadata, validFrom: e.row.valid_from });
    counts.related++;
  }
  for (const key of remote.unrelated) {
    if (!own.localEdges.has(key) || own.added.has(key)) continue;
    const [fromId, toId, type] = JSON.parse(key) as [string, string, string];
    const edge = (await local.edges(fromId, { direction: 'out' })).find((x) => x.to === toId && x.type === type);
    if (edge) {
      await local.unrelate(edge.id);
      counts.unrelated++;
    }
  }
  for (const id of remote.forgotten) {
    if (own.mine.has(id) || !(await local.get(id))) continue;
    await local.forget(id);
    counts.forgotten++;
  }
  if (counts.memories + counts.related + counts.unrelated + counts.forgotten > 0) await local.ready();
  return counts;
}

export function checkSyncTarget(method: string, local: unknown): HybridMemory {
  if (typeof local !== 'object' || local === null || typeof (local as HybridMemory).exportSnapshot !== 'function' || typeof (local as HybridMemory).forget !== 'function') {
    throw invalid(method, "local must be a HybridMemory (the device's embedded store)", local);
  }
  return local as HybridMemory;
}
