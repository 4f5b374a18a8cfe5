import { Catalog } from '../memory/catalog.js';
import { answer, candidatesOf, defaultSeeds, legPlan, poolSize, relationQuestion, relationWalk, reportedLists, subjectSeeds, type FusionParts, type LegLists, type RelationAnswers } from '../memory/recall.js';
import { relationAnswers } from '../memory/relation-question.js';
import type { ResolvedRecall } from '../memory/recall-options.js';
import type { MemoryRow } from '../storage/repository.js';
import { EDGE_TYPES, type Hit, type LegName } from '../types.js';
import type { Db, Query } from './db.js';
import { entityLeg } from './entities.js';
import { graphLeg, lexicalLeg, timeLeg, vectorLeg } from './legs.js';
import type { Rescorer } from './rescore.js';
import { MEMORY_COLUMNS, toMemoryRow } from './rows.js';

export interface PgRecallSettings {
  efSearch: number;
  /** False while the store has no vectors table (no dim yet): the dense leg cannot run. */
  hasVectors: boolean;
  rescorer: Rescorer;
}

/**
 * Runs the legs the mode asks for, each in PostgreSQL, inside the caller's read-only snapshot
 * transaction, with the same control flow as the core's `runLegs`: graph anchors are the
 * caller's or the top 3 of the vector and lexical lists fused as the core fuses them, and the
 * entity walk restarts from the same seeds.
 */
export async function runPgLegs(q: Query, db: Db, o: ResolvedRecall, query: string, queryVector: Float32Array | null, now: number, settings: PgRecallSettings): Promise<LegLists> {
  const reference = o.asOf ?? now;
  const pool = poolSize(o.k);
  const plan = legPlan(o, settings.hasVectors && queryVector !== null);
  const vector = plan.vector ? await vectorLeg(q, db, o, reference, queryVector!, pool, settings.efSearch, settings.rescorer) : null;
  const lexical = plan.lexical ? await lexicalLeg(q, db, o, reference, query, pool) : null;

  let graph = null;
  let entity = null;
  let relation: RelationAnswers | null = null;
  let starts: number[] = [];
  if (plan.walks) {
    const seeds = o.anchors !== null
      ? (await nosOf(q, db, o.anchors)).map((no) => ({ no, weight: 1 }))
      : defaultSeeds(vector, lexical, o, query);
    starts = seeds.map((s) => s.no);
    graph = await graphLeg(q, db, o, reference, starts, pool);
    // Entity links are not edges of any type, so a walk restricted to edge types does not take them.
    if (o.entityGraph && o.edgeTypes.length === 0) entity = await entityLeg(q, db, o, reference, seeds, query, pool);
    const question = relationQuestion(o, query);
    if (question) {
      const subjects = o.anchors !== null ? starts : subjectSeeds(vector, await lexicalLeg(q, db, o, reference, question.subject, pool), o, question);
      relation = { question, hits: relationAnswers(await graphLeg(q, db, o, reference, subjects, pool, relationWalk(o, question)), question) };
    }
  }

  let time = null;
  if (plan.time) {
    const candidates = candidatesOf([vector, lexical, graph, entity]);
    time = await timeLeg(q, db, [...candidates], reference, o.halfLifeDays);
  }
  return reportedLists(o, { vector, lexical, graph, entity, starts, relation, time });
}

async function nosOf(q: Query, db: Db, ids: readonly string[]): Promise<number[]> {
  const rows = (await q(`SELECT id, no FROM ${db.t('memories')} WHERE id = ANY($1)`, [ids])).rows;
  const byId = new Map(rows.map((r) => [String(r['id']), Number(r['no'])]));
  return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}

/**
 * What the core's fusion and hit building read, for just the memories this recall touched: the
 * candidates, the memories graph paths pass through, what supersedes them (fusion lifts the
 * newer fact), and those memories' rows.
 */
async function fusionParts(q: Query, db: Db, lists: LegLists): Promise<FusionParts> {
  const candidates = candidatesOf([lists.vector, lists.lexical, lists.graph, lists.entity, lists.time]);
  for (const h of [...(lists.graph ?? []), ...(lists.relation?.hits ?? [])]) {
    candidates.add(h.no);
    for (const no of h.via) candidates.add(no);
  }
  const supersededBy = new Map<number, number[]>();
  const edges = (await q(`SELECT src, dst FROM ${db.t('edges')} WHERE type = $1 AND dst = ANY($2) ORDER BY no`, [EDGE_TYPES.SUPERSEDES, [...candidates]])).rows;
  for (const e of edges) {
    const dst = Number(e['dst']);
    supersededBy.set(dst, [...(supersededBy.get(dst) ?? []), Number(e['src'])]);
    candidates.add(Number(e['src']));
  }
  const rows = (await q(`SELECT ${MEMORY_COLUMNS} FROM ${db.t('memories')} WHERE no = ANY($1)`, [[...candidates]])).rows.map(toMemoryRow);
  const catalog = new Catalog();
  const byNo = new Map<number, MemoryRow>();
  for (const row of rows) {
    catalog.set(row);
    byNo.set(row.no, row);
  }
  return {
    catalog,
    repository: {
      memoryByNo: (no) => byNo.get(no),
      textsByNo: (nos) => new Map(nos.map((no) => [no, byNo.get(no)!.text])),
      // SQLite's substr counts characters, not UTF-16 units: cut the same way so both engines read the same label.
      textHeadsByNo: (nos, chars) => new Map(nos.map((no) => [no, [...byNo.get(no)!.text.slice(0, 2 * chars)].slice(0, chars).join('')])),
    },
    graph: { sources: (no, type) => (type === EDGE_TYPES.SUPERSEDES ? supersededBy.get(no) ?? [] : []) },
  };
}

/** One recall: legs in SQL, then the core's fusion and hit building over the rows they touched. */
export async function pgRecall(q: Query, db: Db, o: ResolvedRecall, query: string, queryVector: Float32Array | null, now: number, settings: PgRecallSettings): Promise<{ hits: Hit[]; legsRun: LegName[] }> {
  const lists = await runPgLegs(q, db, o, query, queryVector, now, settings);
  const parts = await fusionParts(q, db, lists);
  return answer(parts, o, query, lists, now);
}
