import { BM25_DEFAULTS } from '../legs/lexical/bm25-index.js';
import { isCompound, queryTerms } from '../legs/lexical/tokenizer.js';
import { inTimeOrder, weighByTime, type TimeRanked } from '../legs/time/temporal.js';
import { arrivesBefore, compareHits, type ArrivalEdge, type GraphHit, type LexicalHit, type Scored } from '../legs/types.js';
import type { ResolvedRecall } from '../memory/recall-options.js';
import type { Direction } from '../types.js';
import type { Db, Query } from './db.js';
import type { Rescorer } from './rescore.js';
import { parseVector, vectorLiteral } from './rows.js';

/** Positional parameters collected while a statement is assembled. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Keeps the rows whose `column` is one of `labels` (none when it is empty); null among them keeps the rows without one. */
export function labelSql(column: string, labels: ReadonlySet<string | null>, p: Params): string {
  const values = [...labels].filter((label) => label !== null);
  const conds = values.length > 0 ? [`${column} = ANY(${p.add(values)})`] : [];
  if (labels.has(null)) conds.push(`${column} IS NULL`);
  return conds.length === 0 ? 'false' : conds.length === 1 ? conds[0]! : `(${conds.join(' OR ')})`;
}

/**
 * The SQL form of the core's `accept` (recall.ts `scope`): recorded by the as-of time, current
 * when historical memories are excluded, and the kind / domain / metadata filter. `m` is the
 * memories alias.
 */
export function acceptSql(o: ResolvedRecall, reference: number, p: Params): string {
  const conds: string[] = [];
  if (o.asOf !== null) conds.push(`m.created_at <= ${p.add(reference)}`);
  if (!o.includeHistorical) {
    const ref = p.add(reference);
    conds.push(`(m.valid_from <= ${ref} AND (m.valid_to IS NULL OR m.valid_to > ${ref}))`);
  }
  const f = o.filter;
  if (f?.kind) conds.push(labelSql('m.kind', f.kind, p));
  if (f?.domain) conds.push(labelSql('m.domain', f.domain, p));
  for (const [key, value] of f?.metadata ?? []) conds.push(`m.meta @> ${p.add(JSON.stringify({ [key]: value }))}::jsonb`);
  return conds.length === 0 ? 'true' : conds.join(' AND ');
}

/**
 * Dense leg in pgvector: the `k` nearest by cosine distance over the HNSW index, then scored by
 * the embedded leg's inner product of unit vectors (see Rescorer). Iterative index scans keep
 * filling the list when a filter rejects candidates.
 */
export async function vectorLeg(q: Query, db: Db, o: ResolvedRecall, reference: number, query: Float32Array, k: number, efSearch: number, rescorer: Rescorer): Promise<Scored[]> {
  await q(`SET LOCAL hnsw.ef_search = ${Math.max(efSearch, k)}`);
  await q(`SET LOCAL hnsw.iterative_scan = strict_order`);
  const p = new Params();
  const v = p.add(vectorLiteral(query));
  const where = acceptSql(o, reference, p);
  const join = where === 'true' ? '' : `JOIN ${db.t('memories')} m ON m.no = v.no`;
  const rows = (await q(
    `SELECT v.no, v.embedding::text AS embedding FROM ${db.t('vectors')} v ${join}
     WHERE ${where} ORDER BY v.embedding <=> ${v}::vector LIMIT ${p.add(k)}`,
    p.values,
  )).rows;
  // The index chooses the candidates; their scores and order (equal scores: smaller number first) are the embedded scan's.
  return rescorer.score(query, rows.map((r) => ({ no: Number(r['no']), vector: parseVector(r['embedding']) })));
}

/**
 * Lexical leg as BM25+ computed in SQL from the postings and term statistics, term for term
 * what the embedded leg's minisearch computes: idf = ln(1 + (N − df + ½)/(df + ½)), document
 * length = its distinct terms, identifiers boosted, the sum multiplied by the number of query
 * terms matched. N, df and the average length count the whole store; the filter applies after.
 */
export async function lexicalLeg(q: Query, db: Db, o: ResolvedRecall, reference: number, query: string, k: number): Promise<LexicalHit[]> {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  const { k1, b, d, identifierBoost } = BM25_DEFAULTS;
  const p = new Params();
  const t = p.add(terms);
  const boosts = p.add(terms.map((term) => (isCompound(term) ? identifierBoost : 1)));
  const where = acceptSql(o, reference, p);
  const rows = (await q(
    `WITH qt AS (SELECT * FROM unnest(${t}::text[], ${boosts}::float8[]) AS x(term, boost)),
          df AS (SELECT qt.term, qt.boost, count(*)::float8 AS df FROM qt JOIN ${db.t('postings')} po ON po.term = qt.term GROUP BY qt.term, qt.boost),
          st AS (SELECT docs::float8 AS n, CASE WHEN docs = 0 THEN 1 ELSE terms::float8 / docs END AS avglen FROM ${db.t('lexical_stats')})
     SELECT po.no, sum(df.boost * ln(1 + (st.n - df.df + 0.5) / (df.df + 0.5))
                 * (${d} + po.tf * (${k1} + 1) / (po.tf + ${k1} * (1 - ${b} + ${b} * m.term_count / st.avglen)))) * count(*) AS score,
            array_agg(po.term) AS matched
     FROM df JOIN ${db.t('postings')} po ON po.term = df.term JOIN ${db.t('memories')} m ON m.no = po.no CROSS JOIN st
     WHERE ${where}
     GROUP BY po.no ORDER BY score DESC, po.no LIMIT ${p.add(k)}`,
    p.values,
  )).rows;
  return rows.map((r) => ({ no: Number(r['no']), score: Number(r['score']), matched: r['matched'] as string[] }));
}

export interface WalkSpec {
  depth: number;
  direction: Direction;
  edgeTypes: readonly string[];
  /** As-of time: only edges and memories recorded by then are walked. */
  recordedBy: number | null;
}

export interface Arrival {
  anchorRank: number;
  no: number;
  distance: number;
  weight: number;
  via: number[];
  edges: string[];
}

/**
 * Breadth-first walks from each anchor by a recursive query over the edges table: the CTE finds
 * every memory's distance from each anchor (UNION drops repeats, so it ends within `depth`
 * steps), then each reached memory keeps its arrival from the previous level that
 * `arrivesBefore` picks, exactly the choice the embedded walk makes.
 */
export async function walk(q: Query, db: Db, anchors: readonly number[], w: WalkSpec): Promise<Arrival[]> {
  if (anchors.length === 0) return [];
  const p = new Params();
  const a = p.add(anchors);
  const out = w.direction !== 'in';
  const inward = w.direction !== 'out';
  const edgeConds: string[] = [];
  if (w.edgeTypes.length > 0) edgeConds.push(`e.type = ANY(${p.add(w.edgeTypes)})`);
  if (w.recordedBy !== null) edgeConds.push(`e.created_at <= ${p.add(w.recordedBy)}`);
  const edgeOk = edgeConds.length === 0 ? 'true' : edgeConds.join(' AND ');
  const enterOk = w.recordedBy === null ? 'true' : `m.created_at <= ${p.add(w.recordedBy)}`;
  const depth = p.add(w.depth);
  const rows = (await q(
    `WITH RECURSIVE reach(anchor, no, distance) AS (
       SELECT (x.ord - 1)::int, x.no, 0 FROM unnest(${a}::bigint[]) WITH ORDINALITY AS x(no, ord)
       UNION
       SELECT r.anchor, CASE WHEN e.src = r.no THEN e.dst ELSE e.src END, r.distance + 1
       FROM reach r
       JOIN ${db.t('edges')} e ON ((${out} AND e.src = r.no) OR (${inward} AND e.dst = r.no))
       JOIN ${db.t('memories')} m ON m.no = CASE WHEN e.src = r.no THEN e.dst ELSE e.src END
       WHERE r.distance < ${depth} AND ${edgeOk} AND ${enterOk}
     ),
     best AS (SELECT anchor, no, min(distance) AS d FROM reach GROUP BY anchor, no)
     SELECT b.anchor, b.no, b.d, p.no AS pred, e.weight, e.created_at, e.id AS edge
     FROM best b
     LEFT JOIN ${db.t('edges')} e ON b.d > 0 AND ${edgeOk}
       AND ((${out} AND e.dst = b.no) OR (${inward} AND e.src = b.no))
     LEFT JOIN best p ON p.anchor = b.anchor AND p.d = b.d - 1 AND p.no = CASE WHEN e.dst = b.no THEN e.src ELSE e.dst END
     WHERE b.d = 0 OR p.no IS NOT NULL
     ORDER BY b.anchor, b.d, b.no`,
    p.values,
  )).rows;
  const chosen = new Map<string, ArrivalEdge & { anchorRank: number; no: number; distance: number }>();
  for (const r of rows) {
    const anchorRank = Number(r['anchor']);
    const no = Number(r['no']);
    const distance = Number(r['d']);
    const candidate = { anchorRank, no, distance, from: r['pred'] === null ? -1 : Number(r['pred']), weight: distance === 0 ? Infinity : Number(r['weight']), createdAt: Number(r['created_at']), edge: r['edge'] === null ? '' : String(r['edge']) };
    const key = `${anchorRank}:${no}`;
    const prior = chosen.get(key);
    if (!prior || arrivesBefore(candidate, prior)) chosen.set(key, candidate);
  }
  const arrivals = new Map<string, Arrival>();
  for (const c of [...chosen.values()].sort((x, y) => x.distance - y.distance)) {
    const from = c.distance === 0 ? null : arrivals.get(`${c.anchorRank}:${c.from}`)!;
    arrivals.set(`${c.anchorRank}:${c.no}`, {
      anchorRank: c.anchorRank, no: c.no, distance: c.distance, weight: c.weight,
      via: from ? [...from.via, from.no] : [], edges: from ? [...from.edges, c.edge] : [],
    });
  }
  return [...arrivals.values()];
}

/**
 * The graph leg's list from the walks: each memory once, by the core's order (nearer, then from
 * a stronger anchor, then over a heavier edge); an anchor is listed only when another anchor
 * leads to it. `accepted` are the reached memories the recall may return.
 */
export async function graphLeg(
  q: Query,
  db: Db,
  o: ResolvedRecall,
  reference: number,
  anchors: readonly number[],
  k: number,
  along: Omit<WalkSpec, 'recordedBy'> = { depth: o.depth, direction: 'both', edgeTypes: o.edgeTypes },
): Promise<GraphHit[]> {
  const unique = [...new Set(anchors)];
  const arrivals = await walk(q, db, unique, { ...along, recordedBy: o.asOf });
  const reached = arrivals.filter((r) => r.no !== unique[r.anchorRank]);
  if (reached.length === 0) return [];
  const p = new Params();
  const nos = p.add([...new Set(reached.map((r) => r.no))]);
  const where = acceptSql(o, reference, p);
  const ok = new Set((await q(`SELECT m.no FROM ${db.t('memories')} m WHERE m.no = ANY(${nos}) AND ${where}`, p.values)).rows.map((r) => Number(r['no'])));
  const best = new Map<number, GraphHit>();
  for (const r of reached) {
    if (!ok.has(r.no)) continue;
    const hit: GraphHit = { ...r, score: 1 / (1 + r.distance) };
    const prior = best.get(r.no);
    if (!prior || compareHits(hit, prior) < 0) best.set(r.no, hit);
  }
  return [...best.values()].sort(compareHits).slice(0, k);
}

/**
 * The time leg: the candidates' validity read from SQL, weighed and ranked by the embedded
 * store's own rule. PostgreSQL's exp() raises an error where JavaScript's gives 0 (an age of a
 * few thousand half-lives), and one rule in both engines keeps their ranks equal.
 */
export async function timeLeg(q: Query, db: Db, candidates: readonly number[], reference: number, halfLifeDays: number): Promise<TimeRanked[]> {
  if (candidates.length === 0) return [];
  const rows = (await q(`SELECT no, created_at, valid_from, valid_to FROM ${db.t('memories')} WHERE no = ANY($1)`, [candidates])).rows;
  const validity = new Map(rows.map((r) => [Number(r['no']), { createdAt: Number(r['created_at']), validFrom: Number(r['valid_from']), validTo: r['valid_to'] === null ? null : Number(r['valid_to']) }]));
  return inTimeOrder(weighByTime(validity.keys(), (no) => validity.get(no)!, reference, halfLifeDays));
}
