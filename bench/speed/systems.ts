import { create, insertMultiple, search, type AnyOrama } from '@orama/orama';
import MiniSearch from 'minisearch';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { HybridMemory, SqliteWasmDriver, type RecallMode } from '../../src/index.js';
import { QUESTION_WORD_LIST, STOP_WORDS } from '../../src/legs/lexical/tokenizer.js';
import { ANN_THRESHOLD } from '../../src/legs/vector/ann-settings.js';
import { FlatVectorIndex } from '../../src/legs/vector/flat-index.js';
import { loadVectorKernel } from '../../src/legs/vector/kernel.js';
import { SPLIT_FROM } from '../../src/legs/vector/scan-threads.js';
import { loadSqlite3 } from '../../src/storage/sqlite3-module.js';
import type { Doc, SpeedQuery } from '../lib/corpus.js';

/**
 * Every system the speed benchmark measures. Each runs alone in its own process (see child.ts):
 * built from the same documents and precomputed vectors, then asked the same queries in one or
 * more modes. `config` is printed in the report so every setting can be checked against the
 * system's own documentation.
 */
export interface Mode {
  name: string;
  /** What the query searches: text, vector, or both. */
  kind: 'lexical' | 'vector' | 'hybrid' | 'floor';
  query(q: SpeedQuery): Promise<string[]> | string[];
}

export interface Built {
  modes: Mode[];
  /** Bytes the system keeps on disk (its persisted form), when it has one. */
  persistedBytes?(): Promise<number>;
  /** Persisted form → reopened → first hybrid answer, in ms (ours only). */
  coldOpen?(q: SpeedQuery): Promise<number>;
  /** Settles when indexes built in the background are done (queries wait for it; ingest does not). */
  ready?: Promise<void>;
  /** What the system logged about its background indexes (HybridMind's `ann:` lines), printed in the report. */
  notes?: string[];
  /** Frees what the system keeps outside the process (a store's files). */
  close?(): Promise<void>;
}

export interface BuildContext {
  docs: readonly Doc[];
  edges: ReadonlyArray<[string, string]>;
  /** Orama's vector threshold: the lowest exact 10th-best similarity over the query set. */
  similarity: number;
}

export interface System {
  name: string;
  /** Smallest store the system is run at (below it, it would be another system's duplicate). */
  minN?: number;
  config: Record<string, unknown>;
  /** Untimed: loads the library (WASM modules) and turns the documents into the input its API takes. */
  prepare?(ctx: BuildContext): unknown;
  /** Timed: everything needed before the first query can be answered. */
  build(ctx: BuildContext, prepared: unknown): Promise<Built>;
}

export const K = 10;
const BATCH = 1000;
const STOP = [...STOP_WORDS];

const QUESTION = new Set(QUESTION_WORD_LIST);

/**
 * Lowercased whitespace terms without the shared stop words, and without question words unless
 * nothing else is left: the query processing HybridMind's lexical leg applies (`queryTerms`), so
 * every peer's lexical search gets the same query.
 */
export function contentTerms(text: string): string[] {
  const terms = text.toLowerCase().split(/\s+/).filter((t) => t !== '' && !STOP_WORDS.has(t));
  const content = terms.filter((t) => !QUESTION.has(t));
  return content.length > 0 ? content : terms;
}

/** {@link contentTerms} as the text a peer's own tokenizer reads. */
const peerText = (text: string) => contentTerms(text).join(' ');

/**
 * HybridMind as a user opens it. `exact`: the WASM-SIMD scan at every size (`ann: false`).
 * `default`: the library's defaults, where HNSW takes over past 20k vectors, built in the
 * background; ingest is timed until every leg answers (the scan answers meanwhile) and the
 * queries run once HNSW is ready. `file`: the defaults on the Node file store (better-sqlite3),
 * where a Node user keeps a memory that outlives the process: durable ingest, the data on disk
 * rather than in the process, and a cold open from the file (the scale run measures it alone).
 */
type Variant = 'exact' | 'default' | 'file' | 'file-exact';

const HYBRIDMIND_NAMES: Record<Variant, string> = { exact: 'hybridmind', default: 'hybridmind (default ann)', file: 'hybridmind (node file store)', 'file-exact': 'hybridmind (node file store + exact scan)' };
/** What a mode's name adds after the leg, so the variants' modes stay apart in one report. */
const MODE_SUFFIX: Record<Variant, string> = { exact: '', default: ', HNSW', file: ', file store', 'file-exact': ', file store + exact scan' };
const onFile = (variant: Variant) => variant === 'file' || variant === 'file-exact';
const scanOnly = (variant: Variant) => variant === 'exact' || variant === 'file-exact';
const DEFAULT_ANN = 'default (past 20,000 vectors an HNSW graph built by hnswlib-wasm with M 16, efConstruction 100, then walked at efSearch 64 over the int8 codes with an exact re-rank)';

/** The bytes of the files in `folder`, 0 when there is none. */
async function folderBytes(folder: string): Promise<number> {
  const names = await readdir(folder).catch(() => []);
  const sizes = await Promise.all(names.map(async (name) => (await stat(join(folder, name))).size));
  return sizes.reduce((a, b) => a + b, 0);
}

const hybridMind = (variant: Variant): System => ({
  name: HYBRIDMIND_NAMES[variant],
  ...(variant === 'default' ? { minN: 20_001 } : {}),
  config: {
    open: { ...(onFile(variant) ? { storage: '<fresh temp dir>/scale.db' } : {}), embedder: null, dim: 384, ann: scanOnly(variant) ? false : DEFAULT_ANN },
    threads: `vectorThreads default (true): on ${availableParallelism()} cores, each int8 pass of the exact scan over ${SPLIT_FROM.toLocaleString('en-US')} vectors or more is shared with one helper thread (both claim its calls of 8,192 vectors)`,
    ingest: `storeMany in batches of ${BATCH} (id, text, embedding, createdAt), then relateMany(DEPENDS_ON edges)`,
    recall: { k: K, queryEmbedding: 'precomputed', explain: false },
    lexical: 'own tokenizer (identifier-aware, Porter stemming) with the shared stop-word list',
    ...(onFile(variant)
      ? {
        persisted: 'size of the database file, its WAL and its derived files\' folder on disk after ingest and the settle time (see the method), so with the derived indexes the store saves once writes go quiet',
        coldOpen: 'close() (saves the derived indexes; the HNSW graph was saved when its build finished); timed: open({ storage: the same file }) and one hybrid recall; then, untimed, the wait for the saved HNSW graph to be read',
      }
      : { coldOpen: 'exportDatabase() (saves the derived indexes first), close() and two full GCs, so the reopen does not collect the built store\'s heap; timed: SqliteWasmDriver.open({ bytes }) (the persisted file as a driver, as the OPFS and Node file stores open it), open({ storage: driver }) and one hybrid recall' }),
  },
  async prepare({ docs }) {
    let hnswReady!: () => void;
    const ready = new Promise<void>((resolve) => (hnswReady = resolve));
    const notes: string[] = [];
    const dir = onFile(variant) ? await mkdtemp(join(tmpdir(), 'hybridmind-scale-')) : null;
    const mem = await HybridMemory.open({
      ...(dir ? { storage: join(dir, 'scale.db') } : {}),
      embedder: null,
      dim: docs[0]!.vector.length,
      ...(scanOnly(variant) ? { ann: false } : {
        logger: (_level: string, message: string) => {
          if (message.startsWith('ann:')) notes.push(message);
          if (message.startsWith('ann: HNSW built') || message.startsWith('ann: HNSW disabled')) hnswReady();
        },
      }),
    });
    return { mem, ready, notes, dir };
  },
  async build({ docs, edges }, prepared) {
    const { mem, ready, notes, dir } = prepared as { mem: HybridMemory; ready: Promise<void>; notes: string[]; dir: string | null };
    for (let i = 0; i < docs.length; i += BATCH) {
      await mem.storeMany(docs.slice(i, i + BATCH).map((d) => ({ id: d.id, text: d.text, embedding: d.vector, createdAt: d.createdAt })));
    }
    await mem.relateMany(edges.map(([from, to]) => ({ from, to, type: 'DEPENDS_ON' })));
    const suffix = MODE_SUFFIX[variant];
    const leg = (mode: RecallMode, kind: Mode['kind']): Mode => ({
      name: `${mode === 'hybrid' ? 'hybridmind hybrid (4 legs)' : `hybridmind ${mode} leg`}${suffix}`,
      kind,
      query: async (q) => (await mem.recall(q.text, { k: K, mode, queryEmbedding: q.vector, explain: false })).map((h) => h.id),
    });
    const modes = [leg('hybrid', 'hybrid'), leg('vector', 'vector'), leg('lexical', 'lexical'), leg('graph', 'lexical')];
    if (dir) {
      const file = join(dir, 'scale.db');
      const withHnsw = !scanOnly(variant) && docs.length >= ANN_THRESHOLD;
      return {
        modes,
        // Below the threshold no HNSW is built, so nothing would ever settle `ready`.
        ...(withHnsw ? { ready } : {}),
        notes,
        persistedBytes: async () => (await stat(file)).size + (await stat(`${file}-wal`).catch(() => ({ size: 0 }))).size + (await folderBytes(`${file}-derived`)),
        coldOpen: async (q) => {
          await mem.close();
          let annSettled!: (message: string) => void;
          const ann = new Promise<string>((resolve) => (annSettled = resolve));
          const t0 = performance.now();
          const reopened = await HybridMemory.open({
            storage: file,
            embedder: null,
            ...(scanOnly(variant) ? { ann: false } : {}),
            logger: (_level: string, message: string) => {
              if (message.startsWith('ann: HNSW') || message.startsWith('ann: saved HNSW')) annSettled(`${message} (${((performance.now() - t0) / 1000).toFixed(1)} s after the reopen began)`);
            },
          });
          await reopened.recall(q.text, { k: K, queryEmbedding: q.vector, explain: false });
          const ms = performance.now() - t0;
          // What the reopen did with the saved graph: restored (the save worked) or rebuilt.
          if (withHnsw) notes.push(`reopen: ${await Promise.race([ann, new Promise<string>((resolve) => setTimeout(() => resolve('no HNSW message within 10 min'), 600_000).unref())])}`);
          await reopened.close();
          return ms;
        },
        close: async () => {
          await mem.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    }
    return {
      modes,
      ...(variant === 'default' ? { ready, notes } : {}),
      persistedBytes: async () => (await mem.exportDatabase()).byteLength,
      coldOpen: async (q) => {
        const bytes = await mem.exportDatabase();
        // A user reopens in a process that does not hold the store it was built as (the file
        // store's variant closes it too); with it still there, the reopen paid for collecting it.
        await mem.close();
        collectGarbage();
        const t0 = performance.now();
        const driver = await SqliteWasmDriver.open({ bytes });
        const reopened = await HybridMemory.open({ storage: driver, embedder: null, ...(variant === 'exact' ? { ann: false } : {}) });
        await reopened.recall(q.text, { k: K, queryEmbedding: q.vector, explain: false });
        const ms = performance.now() - t0;
        await reopened.close();
        return ms;
      },
    };
  },
});

/** Two full collections, when the process was started with --expose-gc (the benchmark's children are). */
function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
}

/** The system the scale run measures (`--part scale`): HybridMind's defaults on the Node file store. */
export const SCALE_SYSTEM = HYBRIDMIND_NAMES.file;

interface OramaDoc {
  id: string;
  text: string;
  embedding: number[];
}

const orama = (dim: number): System => ({
  name: 'orama',
  config: {
    create: { schema: { text: 'string', embedding: `vector[${dim}]` }, components: { tokenizer: { stopWords: 'the shared list (33 words)' } } },
    ids: 'document `id` (not in the schema, so not indexed as text)',
    ingest: `insertMultiple(db, docs, ${BATCH})`,
    fulltext: { term: 'query text after the shared query processing (stop words, then question words unless nothing else is left)', properties: ['text'], limit: K },
    vector: { mode: 'vector', property: 'embedding', similarity: 'lowest exact 10th-best score over the query set (keeps every exact top 10)', limit: K },
    hybrid: { mode: 'hybrid', properties: ['text'], similarity: 'as vector', limit: K },
  },
  prepare: ({ docs }) => docs.map((d): OramaDoc => ({ id: d.id, text: d.text, embedding: Array.from(d.vector) })),
  async build({ similarity }, prepared) {
    const db: AnyOrama = create({
      schema: { text: 'string', embedding: `vector[${dim}]` } as const,
      components: { tokenizer: { stopWords: STOP } },
    });
    await insertMultiple(db, prepared as OramaDoc[], BATCH);
    const ids = (r: { hits: Array<{ id: string }> }) => r.hits.map((h) => h.id);
    const vector = (q: SpeedQuery) => ({ value: Array.from(q.vector), property: 'embedding' });
    return {
      modes: [
        { name: 'orama hybrid', kind: 'hybrid', query: async (q) => ids(await search(db, { mode: 'hybrid', term: peerText(q.text), properties: ['text'], vector: vector(q), similarity, limit: K })) },
        { name: 'orama fulltext', kind: 'lexical', query: async (q) => ids(await search(db, { term: peerText(q.text), properties: ['text'], limit: K })) },
        { name: 'orama vector', kind: 'vector', query: async (q) => ids(await search(db, { mode: 'vector', vector: vector(q), similarity, limit: K })) },
      ],
    };
  },
});

const miniSearch: System = {
  name: 'minisearch',
  config: {
    options: { fields: ['text'], processTerm: 'lowercase, null for the shared stop words (as minisearch documents for stop words)' },
    search: { query: 'query text after the shared query processing', combineWith: 'OR (default)', prefix: false, fuzzy: false },
  },
  async build({ docs }) {
    const ms = new MiniSearch<{ id: string; text: string }>({
      fields: ['text'],
      processTerm: (term) => {
        const t = term.toLowerCase();
        return STOP_WORDS.has(t) ? null : t;
      },
    });
    ms.addAll(docs.map((d) => ({ id: d.id, text: d.text })));
    return { modes: [{ name: 'minisearch', kind: 'lexical', query: (q) => ms.search(peerText(q.text)).slice(0, K).map((r) => String(r.id)) }] };
  },
};

interface Oo1Db {
  exec(opts: string | { sql: string; bind?: unknown[] }): unknown;
  selectValues(sql: string, bind: unknown[]): unknown[];
}

const fts5: System = {
  name: 'sqlite fts5',
  config: {
    table: 'CREATE VIRTUAL TABLE f USING fts5(text) (tokenizer unicode61, rowid = document number)',
    ingest: 'one transaction, one INSERT per document',
    query: "content terms (shared stop words removed) quoted and OR-ed: SELECT rowid FROM f WHERE f MATCH ? ORDER BY rank LIMIT 10",
    note: 'FTS5 has no stop-word option; the stop words are removed from the query',
  },
  prepare: () => loadSqlite3(),
  async build({ docs }, prepared) {
    const sqlite3 = prepared as Awaited<ReturnType<typeof loadSqlite3>>;
    const raw = new sqlite3.oo1.DB(':memory:', 'c');
    const db = raw as unknown as Oo1Db;
    db.exec('CREATE VIRTUAL TABLE f USING fts5(text)');
    db.exec('BEGIN');
    docs.forEach((d, i) => db.exec({ sql: 'INSERT INTO f (rowid, text) VALUES (?, ?)', bind: [i, d.text] }));
    db.exec('COMMIT');
    const ids = docs.map((d) => d.id);
    return {
      modes: [{
        name: 'sqlite fts5',
        kind: 'lexical',
        query: (q) => {
          const terms = contentTerms(q.text);
          if (terms.length === 0) return [];
          return db.selectValues('SELECT rowid FROM f WHERE f MATCH ? ORDER BY rank LIMIT 10', [terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ')]).map((no) => ids[Number(no)]!);
        },
      }],
      persistedBytes: async () => sqlite3.capi.sqlite3_js_db_export(raw).byteLength,
    };
  },
};

/** Exact scans over one contiguous copy of the vectors: the project's WASM-SIMD kernel and plain JS. */
const exactScan = (useWasm: boolean): System => ({
  name: useWasm ? 'exact scan wasm-simd' : 'exact scan plain js',
  config: { index: `FlatVectorIndex (this project's code), ${useWasm ? `WASM SIMD kernel, its int8 pass split with a helper thread from ${SPLIT_FROM.toLocaleString('en-US')} vectors` : 'plain JavaScript loop'}`, k: K },
  prepare: () => (useWasm ? loadVectorKernel() : null),
  async build({ docs }, prepared) {
    const index = new FlatVectorIndex(docs[0]!.vector.length, prepared as Awaited<ReturnType<typeof loadVectorKernel>> | null, { capacity: docs.length });
    const ids = docs.map((d) => d.id);
    docs.forEach((d, i) => index.add(i, d.vector));
    return {
      modes: [{ name: useWasm ? 'exact scan wasm-simd (project kernel)' : 'exact scan plain js (project)', kind: 'vector', query: (q) => index.search(q.vector, K).map((s) => ids[s.no]!) }],
      // Ends the int8 pass's helper thread, as a store's close() does.
      close: async () => index.dispose(),
    };
  },
});

/**
 * What no one-thread exact scan over f32 vectors can beat: reading as many bytes as the vectors
 * take once. `memchr` (Node's `Buffer.indexOf` of one byte, here never found) runs as fast as one
 * core reads memory and is not our code.
 */
const bandwidthFloor: System = {
  name: 'memory bandwidth floor',
  config: { pass: 'Buffer.indexOf(0) (memchr, no match) over a buffer of n × dim × 4 bytes filled with 0x2a' },
  async build({ docs }) {
    const bytes = Buffer.alloc(docs.length * docs[0]!.vector.length * 4, 0x2a);
    return { modes: [{ name: 'memory-bandwidth floor (memchr over the vector bytes)', kind: 'floor', query: () => (bytes.indexOf(0) === -1 ? [] : ['unexpected']) }] };
  },
};

type HnswLib = Awaited<ReturnType<typeof import('hnswlib-wasm/dist/hnswlib.js')['loadHnswlib']>>;

/** hnswlib-wasm is built for browsers; in Node it needs `importScripts` to exist before it loads. */
async function loadHnsw(): Promise<HnswLib> {
  const g = globalThis as { importScripts?: () => void };
  g.importScripts ??= () => {};
  return (await import('hnswlib-wasm/dist/hnswlib.js')).loadHnswlib();
}

/** hnswlib's README settings (M 16, ef_construction 200); each ef setting gets its own query order. */
const hnsw = (efConstruction: number, efSearches: readonly number[]): System => ({
  name: `hnswlib-wasm efC${efConstruction}`,
  config: {
    space: 'ip (unit vectors)', M: 16, efConstruction, efSearch: efSearches, randomSeed: 100, build: 'addPoint one by one',
    note: "loaded with the package's own loadHnswlib(), which mounts IDBFS for its saves; without indexedDB in Node it prints an Emscripten assertion (\"IDBFS used, but indexedDB not supported\") and a failed FS sync to stderr, and the index, held in WebAssembly memory and never saved here, is unaffected",
  },
  prepare: () => loadHnsw(),
  async build({ docs }, prepared) {
    const lib = prepared as HnswLib;
    const index = new lib.HierarchicalNSW('ip', docs[0]!.vector.length, '');
    index.initIndex(docs.length, 16, efConstruction, 100);
    const ids = docs.map((d) => d.id);
    docs.forEach((d, i) => index.addPoint(d.vector, i, false));
    return {
      modes: efSearches.map((ef): Mode => ({
        name: `hnswlib-wasm M16 efC${efConstruction} ef${ef}`,
        kind: 'vector',
        query: (q) => {
          index.setEfSearch(ef);
          return Array.from(index.searchKnn(q.vector, K, undefined).neighbors, (n) => ids[n]!);
        },
      })),
    };
  },
});

/** Does nothing: its process shows what the corpus alone leaves behind, the base other systems' memory is read against. */
const baseline: System = { name: 'baseline', config: { note: 'corpus generated, then dropped; no system built' }, build: async () => ({ modes: [] }) };

/** Every system, in the order the speed run measures them; the scale run measures the file store alone. */
export function systems(dim: number): System[] {
  return [baseline, hybridMind('exact'), hybridMind('default'), hybridMind('file'), hybridMind('file-exact'), orama(dim), miniSearch, fts5, exactScan(true), exactScan(false), bandwidthFloor, hnsw(200, [64, 128])];
}
