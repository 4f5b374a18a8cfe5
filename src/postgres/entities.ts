import { extractEntities } from '../legs/graph/entities.js';
import { entityCap, entityKeys, entityWalkSteps, type EntityGraphView } from '../legs/graph/entity-index.js';
import type { Scored } from '../legs/types.js';
import { sessionOf } from '../memory/auto-edges.js';
import type { ResolvedRecall } from '../memory/recall-options.js';
import type { Metadata } from '../types.js';
import type { Db, Query } from './db.js';
import { acceptSql, Params } from './legs.js';

/** A memory as the entity graph indexes it. */
export interface MentionSource {
  no: number;
  text: string;
  /** The metadata's JSON text: a conversation turn's session and position link it to its neighbours. */
  metadata: string;
}

/**
 * Indexes memories' entities (the core's extraction, see `entity-index.ts`): their keys in
 * `entities`, one `mentions` row per memory and key in the order the text names them. A memory
 * indexed before is indexed afresh, its mentions taking new sequence numbers, as the embedded
 * index moves a re-added memory to the end of each posting.
 */
export async function writeMentions(q: Query, db: Db, sources: readonly MentionSource[]): Promise<void> {
  if (sources.length === 0) return;
  const keyed = sources.map((s) => ({ no: s.no, keys: entityKeys(s.text, sessionOf(JSON.parse(s.metadata) as Metadata)) }));
  await q(`DELETE FROM ${db.t('mentions')} WHERE no = ANY($1)`, [sources.map((s) => s.no)]);
  // Sorted, so two writers adding the same new keys lock them in the same order.
  const keys = [...new Set(keyed.flatMap((k) => k.keys))].sort();
  if (keys.length === 0) return;
  await q(`INSERT INTO ${db.t('entities')} (key) SELECT unnest($1::text[]) ON CONFLICT (key) DO NOTHING`, [keys]);
  const ids = new Map((await q(`SELECT id, key FROM ${db.t('entities')} WHERE key = ANY($1)`, [keys])).rows.map((r) => [String(r['key']), Number(r['id'])]));
  const entity: number[] = [];
  const no: number[] = [];
  const ord: number[] = [];
  for (const k of keyed) {
    k.keys.forEach((key, i) => {
      entity.push(ids.get(key)!);
      no.push(k.no);
      ord.push(i);
    });
  }
  await q(
    `INSERT INTO ${db.t('mentions')} (entity, no, ord) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[]) ORDER BY 2, 3`,
    [entity, no, ord],
  );
}

/**
 * The core's walk over the memory–entity graph in Postgres, fetching before each step exactly what
 * that step reads (see `entityWalkSteps`): each memory's usable entities (named by 2 to `cap`
 * memories) and each entity's whole posting, so the arithmetic is the embedded index's. A count
 * stops at `cap` + 1: beyond it an entity is unusable whatever its exact count.
 */
async function walkInSql(q: Query, db: Db, seeds: ReadonlyArray<{ no: number; weight: number }>, queryEntities: readonly number[], dfs: Map<number, number>, cap: number): Promise<Scored[]> {
  const of = new Map<number, number[]>();
  const postings = new Map<number, number[]>();
  const graph: EntityGraphView = { cap, entitiesOf: (no) => of.get(no), posting: (id) => postings.get(id) ?? [], df: (id) => dfs.get(id) ?? 0 };
  const walk = entityWalkSteps(graph, seeds, queryEntities, { k: Infinity, steps: STEPS });
  for (let next = walk.next(); ; next = walk.next()) {
    if (next.done) return next.value;
    const needOf = next.value.memories.filter((no) => !of.has(no));
    const needPostings = next.value.entities.filter((id) => !postings.has(id));
    if (needOf.length > 0) {
      for (const no of needOf) of.set(no, []);
      // Each distinct entity is counted once, however many of these memories name it.
      const rows = (await q(
        `WITH m AS (SELECT no, entity, ord FROM ${db.t('mentions')} WHERE no = ANY($1)),
              d AS (SELECT e.entity, (SELECT count(*) FROM (SELECT 1 FROM ${db.t('mentions')} x WHERE x.entity = e.entity LIMIT $2) s) AS df
                    FROM (SELECT DISTINCT entity FROM m) e)
         SELECT m.no, m.entity, d.df FROM m JOIN d ON d.entity = m.entity
         WHERE d.df BETWEEN 2 AND $3 ORDER BY m.no, m.ord`,
        [needOf, cap + 1, cap],
      )).rows;
      for (const r of rows) {
        of.get(Number(r['no']))!.push(Number(r['entity']));
        dfs.set(Number(r['entity']), Number(r['df']));
      }
    }
    if (needPostings.length > 0) {
      for (const id of needPostings) postings.set(id, []);
      const rows = (await q(`SELECT entity, no FROM ${db.t('mentions')} WHERE entity = ANY($1) ORDER BY entity, seq`, [needPostings])).rows;
      for (const r of rows) postings.get(Number(r['entity']))!.push(Number(r['no']));
    }
  }
}

/**
 * The graph leg's entity walk on Postgres: the query's entities that some memory names, the
 * reachable subgraph from SQL, then the core's personalized PageRank over it, keeping the
 * memories this recall may return (`accept` in SQL; as of a time, only those recorded by then).
 */
export async function entityLeg(q: Query, db: Db, o: ResolvedRecall, reference: number, seeds: ReadonlyArray<{ no: number; weight: number }>, query: string, k: number): Promise<Scored[]> {
  // Every memory is one lexical document, so the statistics row counts the memories the cap scales with.
  const cap = entityCap(Number((await q(`SELECT docs FROM ${db.t('lexical_stats')}`)).rows[0]!['docs']));
  const keys = extractEntities(query);
  const found = keys.length === 0 ? [] : (await q(
    `SELECT e.id, e.key, d.df FROM ${db.t('entities')} e
     CROSS JOIN LATERAL (SELECT count(*) AS df FROM (SELECT 1 FROM ${db.t('mentions')} x WHERE x.entity = e.id LIMIT $2) s) d
     WHERE e.key = ANY($1) AND d.df > 0`,
    [keys, cap + 1],
  )).rows;
  const byKey = new Map(found.map((r) => [String(r['key']), Number(r['id'])]));
  const known = keys.flatMap((key) => (byKey.has(key) ? [byKey.get(key)!] : []));
  const dfs = new Map(found.map((r) => [Number(r['id']), Number(r['df'])]));
  const reached = await walkInSql(q, db, seeds, known, dfs, cap);
  if (reached.length === 0) return [];
  const p = new Params();
  const nos = p.add(reached.map((h) => h.no));
  const where = acceptSql(o, reference, p);
  const ok = new Set((await q(`SELECT m.no FROM ${db.t('memories')} m WHERE m.no = ANY(${nos}) AND ${where}`, p.values)).rows.map((r) => Number(r['no'])));
  return reached.filter((h) => ok.has(h.no)).slice(0, k);
}

/** Power-iteration steps of the walk: the core's default, two hops memory → entity → memory. */
const STEPS = 4;
