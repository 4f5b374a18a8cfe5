import { create, insertMultiple, search, type AnyOrama } from '@orama/orama';
import MiniSearch from 'minisearch';
import { HybridMemory, type RecallMode } from '../../src/index.js';
import { loadSqlite3 } from '../../src/storage/sqlite-wasm.js';
import { FlatVectorIndex } from '../../src/legs/vector/flat-index.js';
import { loadVectorKernel } from '../../src/legs/vector/kernel.js';
import type { Doc, SpeedQuery } from '../lib/corpus.js';

/**
 * Every system the speed benchmark runs, behind one shape: build from the same documents (the
 * same precomputed vectors), then answer the same queries. `query` returns the ids it found so
 * the vector peers' recall against the exact answer can be scored.
 */
export interface Peer {
  name: string;
  /** What the query searches: text, vector, or both. */
  kind: 'lexical' | 'vector' | 'hybrid';
  build(docs: readonly Doc[], edges: ReadonlyArray<[string, string]>): Promise<void>;
  query(q: SpeedQuery): Promise<string[]> | string[];
  /** Bytes the peer keeps on disk (or in its persisted form), when it has one. */
  persistedBytes?(): Promise<number>;
  close?(): Promise<void> | void;
}

const K = 10;
const BATCH = 1000;

export function hybridMindPeers(): { store: () => HybridMemory; peers: Peer[] } {
  let mem!: HybridMemory;
  const build: Peer['build'] = async (docs, edges) => {
    // The exact scan, so the dense leg is compared with the WASM-SIMD floor; hnswlib-wasm runs as its own peer.
    mem = await HybridMemory.open({ embedder: null, dim: docs[0]!.vector.length, ann: false });
    for (let i = 0; i < docs.length; i += BATCH) {
      await mem.storeMany(docs.slice(i, i + BATCH).map((d) => ({ id: d.id, text: d.text, embedding: d.vector, createdAt: d.createdAt })));
    }
    await mem.relateMany(edges.map(([from, to]) => ({ from, to, type: 'DEPENDS_ON' })));
  };
  const leg = (mode: RecallMode, kind: Peer['kind']): Peer => ({
    name: mode === 'hybrid' ? 'hybridmind hybrid (4 legs)' : `hybridmind ${mode} leg`,
    kind,
    build: mode === 'hybrid' ? build : async () => {},
    query: async (q) => (await mem.recall(q.text, { k: K, mode, queryEmbedding: q.vector, explain: false })).map((h) => h.id),
    ...(mode === 'hybrid' ? { persistedBytes: async () => (await mem.exportDatabase()).byteLength, close: () => mem.close() } : {}),
  });
  return { store: () => mem, peers: [leg('hybrid', 'hybrid'), leg('vector', 'vector'), leg('lexical', 'lexical'), leg('graph', 'lexical')] };
}

export function oramaPeers(dim: number): Peer[] {
  let db!: AnyOrama;
  const build: Peer['build'] = async (docs) => {
    db = create({ schema: { id: 'string', text: 'string', embedding: `vector[${dim}]` } as const });
    await insertMultiple(db, docs.map((d) => ({ id: d.id, text: d.text, embedding: Array.from(d.vector) })), BATCH);
  };
  const ids = (r: { hits: Array<{ id: string }> }) => r.hits.map((h) => h.id);
  return [
    { name: 'orama hybrid', kind: 'hybrid', build, query: async (q) => ids(await search(db, { mode: 'hybrid', term: q.text, vector: { value: Array.from(q.vector), property: 'embedding' }, similarity: 0, limit: K })) },
    { name: 'orama fulltext', kind: 'lexical', build: async () => {}, query: async (q) => ids(await search(db, { term: q.text, limit: K })) },
    { name: 'orama vector', kind: 'vector', build: async () => {}, query: async (q) => ids(await search(db, { mode: 'vector', vector: { value: Array.from(q.vector), property: 'embedding' }, similarity: 0, limit: K })) },
  ];
}

export function miniSearchPeer(): Peer {
  let ms!: MiniSearch<{ id: string; text: string }>;
  return {
    name: 'minisearch',
    kind: 'lexical',
    build: async (docs) => {
      ms = new MiniSearch({ fields: ['text'] });
      ms.addAll(docs.map((d) => ({ id: d.id, text: d.text })));
    },
    query: (q) => ms.search(q.text).slice(0, K).map((r) => String(r.id)),
  };
}

export function fts5Peer(): Peer {
  let db!: { exec: (...a: unknown[]) => unknown; selectValues: (sql: string, bind: unknown[]) => unknown[]; close: () => void };
  let sqlite3!: Awaited<ReturnType<typeof loadSqlite3>>;
  return {
    name: 'sqlite fts5',
    kind: 'lexical',
    build: async (docs) => {
      sqlite3 = await loadSqlite3();
      db = new sqlite3.oo1.DB(':memory:', 'c') as unknown as typeof db;
      db.exec('CREATE VIRTUAL TABLE f USING fts5(id UNINDEXED, text)');
      db.exec('BEGIN');
      for (const d of docs) db.exec({ sql: 'INSERT INTO f (id, text) VALUES (?, ?)', bind: [d.id, d.text] });
      db.exec('COMMIT');
    },
    // Each term quoted and OR-ed: the same any-term BM25 query the other lexical peers run.
    query: (q) => db.selectValues('SELECT id FROM f WHERE f MATCH ? ORDER BY rank LIMIT 10', [q.text.split(/\s+/).filter(Boolean).map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ')]).map(String),
    persistedBytes: async () => sqlite3.capi.sqlite3_js_db_export(db as never).byteLength,
    close: () => db.close(),
  };
}

/** Exact scans over the same contiguous vectors: the WASM-SIMD kernel (the floor) and plain JS. */
export async function exactScanPeers(): Promise<Peer[]> {
  const kernel = await loadVectorKernel();
  const make = (name: string, useWasm: boolean): Peer => {
    let index!: FlatVectorIndex;
    let ids: string[] = [];
    return {
      name,
      kind: 'vector',
      build: async (docs) => {
        index = new FlatVectorIndex(docs[0]!.vector.length, useWasm ? kernel : null, { capacity: docs.length });
        ids = docs.map((d) => d.id);
        docs.forEach((d, i) => index.add(i, d.vector));
      },
      query: (q) => index.search(q.vector, K).map((s) => ids[s.no]!),
    };
  };
  return [make('exact scan wasm-simd (floor)', true), make('exact scan plain js', false)];
}
