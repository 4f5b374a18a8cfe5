/**
 * Would the lexical leg on SQLite FTS5 (over the tokenizer's output) keep its scores and speed?
 * `node --import tsx bench/lexical/fts5-probe.ts [n]`: the speed corpus indexed twice, by the
 * lexical leg (minisearch) and by a contentless FTS5 table whose column holds `tokenize(text)`
 * joined by spaces (FTS5 only splits them again). Queries score FTS5's postings with the leg's
 * own BM25+ (term frequencies from `fts5vocab`, lengths from a side table), so the top 10 must be
 * the leg's; FTS5's native `bm25()` ranking is timed beside it for reference.
 */
import { makeCorpus } from '../lib/corpus.js';
import { summarize } from '../lib/stats.js';
import { Bm25Index, BM25_DEFAULTS } from '../../src/legs/lexical/bm25-index.js';
import { isCompound, queryTerms, tokenize } from '../../src/legs/lexical/tokenizer.js';
import { loadSqlite3 } from '../../src/storage/sqlite3-module.js';

interface Stmt {
  bind(values: unknown[]): Stmt;
  stepReset(): Stmt;
  finalize(): void;
}

interface Db {
  prepare(sql: string): Stmt;
  exec(sql: string | { sql: string; bind?: unknown[] }): void;
  selectValue(sql: string, bind?: unknown[]): unknown;
  selectValues(sql: string, bind?: unknown[]): unknown[];
  selectArray(sql: string, bind?: unknown[]): unknown[] | undefined;
}

const n = Number(process.argv[2] ?? 10_000);
const { docs, queries } = makeCorpus(n, 8);
const sqlite3 = await loadSqlite3();
const raw = new sqlite3.oo1.DB(':memory:', 'c');
const db = raw as unknown as Db;
console.log(`SQLite ${sqlite3.version.libVersion}, FTS5 compiled in: ${Boolean(db.selectValue("SELECT sqlite_compileoption_used('ENABLE_FTS5')"))}`);
// Everything the tokenizer keeps inside a term is a token character, so FTS5 splits on spaces only.
db.exec(`CREATE VIRTUAL TABLE lex USING fts5(terms, content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 0 tokenchars '-_.:/\\@#+~?&=%$'")`);
db.exec("CREATE VIRTUAL TABLE lexv USING fts5vocab(lex, 'instance')");
db.exec('CREATE TABLE lexlen (no INTEGER PRIMARY KEY, len INTEGER NOT NULL)');

const BATCH = 1000;
let t0 = performance.now();
const insertTerms = db.prepare('INSERT INTO lex (rowid, terms) VALUES (?, ?)');
const insertLength = db.prepare('INSERT INTO lexlen (no, len) VALUES (?, ?)');
for (let i = 0; i < docs.length; i += BATCH) {
  db.exec('BEGIN');
  docs.slice(i, i + BATCH).forEach((d, j) => {
    const terms = tokenize(d.text);
    insertTerms.bind([i + j, terms.join(' ')]).stepReset();
    // minisearch's field length counts distinct terms.
    insertLength.bind([i + j, new Set(terms).size]).stepReset();
  });
  db.exec('COMMIT');
}
insertTerms.finalize();
insertLength.finalize();
const ftsIngest = n / ((performance.now() - t0) / 1000);
t0 = performance.now();
const bm25 = new Bm25Index();
docs.forEach((d, i) => bm25.add(i, d.text));
const miniIngest = n / ((performance.now() - t0) / 1000);
t0 = performance.now();
const saved = bm25.save();
Bm25Index.load(saved);
const miniLoad = performance.now() - t0;
console.log(`n=${n}: ingest (tokenize + index) FTS5 ${ftsIngest.toFixed(0)} docs/s, minisearch ${miniIngest.toFixed(0)} docs/s; minisearch saved ${(saved.byteLength / 2 ** 20).toFixed(1)} MiB, load ${miniLoad.toFixed(0)} ms`);

const { k1, b, d, identifierBoost } = BM25_DEFAULTS;
function ftsSearch(query: string, k: number): Array<{ no: number; score: number }> {
  const total = Number(db.selectValue('SELECT count(*) FROM lexlen'));
  const avg = Number(db.selectValue('SELECT avg(len) FROM lexlen'));
  const combined = new Map<number, { score: number; terms: number }>();
  for (const term of queryTerms(query)) {
    const row = db.selectArray(
      'SELECT json_group_array(doc), json_group_array(n), json_group_array(len) FROM (SELECT doc, count(*) AS n FROM lexv WHERE term = ? GROUP BY doc) JOIN lexlen ON lexlen.no = doc',
      [term],
    )!;
    const nos = JSON.parse(row[0] as string) as number[];
    const tfs = JSON.parse(row[1] as string) as number[];
    const lens = JSON.parse(row[2] as string) as number[];
    const idf = Math.log(1 + (total - nos.length + 0.5) / (nos.length + 0.5));
    const boost = isCompound(term) ? identifierBoost : 1;
    nos.forEach((no, i) => {
      const tf = tfs[i]!;
      const score = boost * idf * (d + (tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lens[i]!) / avg)));
      const c = combined.get(no);
      if (c) {
        c.score += score;
        c.terms++;
      } else combined.set(no, { score, terms: 1 });
    });
  }
  return [...combined].map(([no, c]) => ({ no, score: c.score * c.terms })).sort((x, y) => y.score - x.score || x.no - y.no).slice(0, k);
}
function nativeSearch(query: string, k: number): number[] {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  return db.selectValues('SELECT rowid FROM lex WHERE lex MATCH ? ORDER BY rank LIMIT ?', [terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR '), k]).map(Number);
}

const times = { leg: [] as number[], fts: [] as number[], native: [] as number[] };
let sameTop = 0;
let sameNative = 0;
for (const q of queries) {
  let t = performance.now();
  const mine = bm25.search(q.text, 10);
  times.leg.push(performance.now() - t);
  t = performance.now();
  const fts = ftsSearch(q.text, 10);
  times.fts.push(performance.now() - t);
  t = performance.now();
  const native = nativeSearch(q.text, 10);
  times.native.push(performance.now() - t);
  if (JSON.stringify(mine.map((h) => h.no)) === JSON.stringify(fts.map((h) => h.no))) sameTop++;
  if (JSON.stringify(mine.map((h) => h.no)) === JSON.stringify(native)) sameNative++;
}
const show = (name: string, ms: number[]) => {
  const s = summarize(ms);
  return `${name} p50 ${s.median.toFixed(2)} p95 ${s.p95.toFixed(2)} ms`;
};
console.log(`${queries.length} queries: ${show('lexical leg (minisearch)', times.leg)}; ${show('FTS5 postings + leg BM25+', times.fts)}; ${show('FTS5 native bm25()', times.native)}`);
console.log(`top 10 identical to the leg's: FTS5 postings + leg BM25+ ${sameTop}/${queries.length}, FTS5 native bm25() ${sameNative}/${queries.length}`);
console.log(`database ${(sqlite3.capi.sqlite3_js_db_export(raw).byteLength / 2 ** 20).toFixed(1)} MiB`);
