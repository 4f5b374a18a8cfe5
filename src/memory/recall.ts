import { reciprocalRankFusion, sortFused, tiedRanks, type Fused, type RankedList } from '../fusion/rrf.js';
import { linearFusion } from '../fusion/linear.js';
import { convexFusion, type ScoredList } from '../fusion/score-fusion.js';
import { isCompound, queryTerms } from '../legs/lexical/tokenizer.js';
import { inTimeOrder, recordedBy, weighByTime, statusAt, recencyWeight, type TimeRanked } from '../legs/time/temporal.js';
import { LEG_NAMES, sameGraphRank, type Accept, type EntityLeg, type GraphHit, type GraphLeg, type LexicalHit, type LexicalIndex, type Scored, type VectorIndex } from '../legs/types.js';
import type { Repository } from '../storage/repository.js';
import { rerank, rerankPool } from './rerank.js';
import { LABEL_CHARS, mayNameSomeone, namedIn, speakerOf } from './speakers.js';
import { FARTHEST_DEPTH, readRelationQuestion, relationAnswers, type RelationQuestion } from './relation-question.js';
import type { Hit, HitLegs, LegName, Metadata } from '../types.js';
import type { Catalog } from './catalog.js';
import { matchesFilter, type ResolvedRecall } from './recall-options.js';

/**
 * What fusion and hit building read: the catalog, rows for the top k, and who supersedes whom.
 * The Postgres engine fills these from its own queries and fuses with the same functions.
 */
export interface FusionParts {
  catalog: Catalog;
  repository: Pick<Repository, 'memoryByNo' | 'textsByNo' | 'textHeadsByNo'>;
  graph: Pick<GraphLeg, 'sources'>;
}

/** The parts of a store a recall reads. */
export interface RecallParts extends FusionParts {
  catalog: Catalog;
  repository: Repository;
  lexical: LexicalIndex;
  graph: GraphLeg;
  vector: VectorIndex | null;
  /** The entity graph; a store without one has only the edges it was given to walk. */
  entities?: EntityLeg | undefined;
}

/** Each leg's list for one query, before fusion. */
export interface LegLists {
  vector: Scored[] | null;
  lexical: LexicalHit[] | null;
  graph: GraphHit[] | null;
  /** The graph leg's walk over shared entities (personalized PageRank), beside the edge walk; absent in engines without an entity graph. */
  entity?: Scored[] | null | undefined;
  /** Where the graph walks started (the caller's anchors or the best vector+lexical candidates). */
  starts?: number[] | undefined;
  /** When the query asks about a typed relation: its answers, best first (they lead the fused list). */
  relation?: RelationAnswers | null | undefined;
  /** Candidates said by a person the query names, with that name: a vote in the fusion. */
  speakers?: Map<number, string> | null | undefined;
  /** Every candidate with its recency weight and status; in rank order only once `answer` needs the ranks (`inTimeOrder`). */
  time: TimeRanked[] | null;
}

export interface RelationAnswers {
  question: RelationQuestion;
  hits: GraphHit[];
}

export interface RecallOutcome {
  hits: Hit[];
  legsRun: LegName[];
}

/**
 * How deep each leg looks before fusion: enough that fusion can reorder, small enough to stay
 * fast. With the speaker vote, 100 instead of 50 let more of a named person's turns be weighed
 * (LoCoMo-dev recall@10 0.755 → 0.758, multi-hop 0.496 → 0.506, SciFact nDCG@10 0.851 → 0.857)
 * at a cost on HotpotQA-100 (all-supporting@10 0.92 → 0.91); 75 sat in between.
 */
export function poolSize(k: number): number {
  return Math.max(100, k * 5);
}

/** The reference time of a query and which memories it may return. */
export function scope(parts: Pick<FusionParts, 'catalog'>, o: ResolvedRecall, now: number): { reference: number; accept: Accept; traversable: Accept } {
  const reference = o.asOf ?? now;
  const { catalog } = parts;
  const traversable: Accept = o.asOf === null ? () => true : (no) => recordedBy(catalog.entry(no), reference);
  const valid = catalog.acceptor(reference, o.asOf !== null, o.includeHistorical);
  const filter = o.filter;
  const accept: Accept = filter === null ? valid : (no) => valid(no) && matchesFilter(filter, catalog.entry(no));
  return { reference, accept, traversable };
}

/**
 * Runs the legs the mode asks for. Graph anchors are the caller's, or the top 3 of the
 * vector and lexical lists fused, so the walk starts from what the query is about.
 */
export function runLegs(parts: RecallParts, o: ResolvedRecall, query: string, queryVector: Float32Array | null, now: number): LegLists {
  const { reference, accept, traversable } = scope(parts, o, now);
  const pool = poolSize(o.k);
  const plan = legPlan(o, parts.vector !== null && queryVector !== null && parts.vector.size > 0);
  // The vector index holds only memories the catalog does: a test that passes them all is skipped.
  const acceptsAll = o.filter === null && parts.catalog.acceptsEvery(reference, o.asOf !== null, o.includeHistorical);
  // A vector recall returns the leg's top k: an exact scan's is the first k of a deeper search,
  // and an approximate index finds its top k better weighing the pool's worth of candidates. Asked
  // for k with that breadth, neither re-scores the rest (100k on a file store: ~145 vectors read
  // back from SQLite for 100, ~20 for 10).
  const vectorDepth = o.mode === 'vector' ? o.k : pool;
  const vector = plan.vector ? parts.vector!.search(queryVector!, vectorDepth, acceptsAll ? undefined : accept, pool) : null;
  const lexical = plan.lexical ? parts.lexical.search(query, pool, accept) : null;

  let graph: GraphHit[] | null = null;
  let entity: Scored[] | null = null;
  let relation: RelationAnswers | null = null;
  let starts: number[] = [];
  if (plan.walks) {
    const seeds = o.anchors !== null ? o.anchors.map((id) => ({ no: parts.catalog.noOf(id)!, weight: 1 })) : defaultSeeds(vector, lexical, o, query);
    const anchors = seeds.map((s) => s.no);
    starts = anchors;
    graph = parts.graph.search(anchors, {
      k: pool,
      depth: o.depth,
      direction: 'both',
      edgeTypes: o.edgeTypes,
      recordedBy: o.asOf ?? undefined,
      traversable,
      accept,
    });
    // Entity links are not edges of any type, so a walk restricted to edge types does not take them.
    if (o.entityGraph && parts.entities && o.edgeTypes.length === 0) {
      entity = parts.entities.walk(seeds, parts.entities.known(query), { k: pool, accept: (no) => accept(no) && traversable(no) });
    }
    const question = relationQuestion(o, query);
    if (question) {
      const subjects = o.anchors !== null ? anchors : subjectSeeds(vector, parts.lexical.search(question.subject, pool, accept), o, question);
      relation = { question, hits: relationAnswers(parts.graph.search(subjects, { ...relationWalk(o, question), k: pool, recordedBy: o.asOf ?? undefined, traversable, accept }), question) };
    }
  }

  let time: TimeRanked[] | null = null;
  if (plan.time) {
    const candidates = candidatesOf([vector, lexical, graph, entity]);
    time = weighByTime(candidates, parts.catalog.temporalReader(), reference, o.halfLifeDays);
  }
  return reportedLists(o, { vector, lexical, graph, entity, starts, relation, time });
}

/** Which legs a recall runs, by its mode. */
export interface LegPlan {
  vector: boolean;
  lexical: boolean;
  /** The graph walks (edges, entities, a relation question's). */
  walks: boolean;
  time: boolean;
}

/**
 * The one rule of both engines: a hybrid recall, and a graph recall without anchors, also runs the
 * vector and lexical legs, whose best results seed the graph walk; only a hybrid recall weighs by
 * time. `vectors`: the store can answer the vector leg for this query.
 */
export function legPlan(o: ResolvedRecall, vectors: boolean): LegPlan {
  const seeds = o.mode === 'hybrid' || (o.mode === 'graph' && o.anchors === null);
  return {
    vector: (o.mode === 'vector' || seeds) && vectors,
    lexical: o.mode === 'lexical' || seeds,
    walks: o.mode === 'hybrid' || o.mode === 'graph',
    time: o.mode === 'hybrid',
  };
}

/** The lists a recall reports: a leg that ran only to seed the graph walk is not one of them. */
export function reportedLists(o: ResolvedRecall, lists: LegLists): LegLists {
  return {
    ...lists,
    vector: o.mode === 'hybrid' || o.mode === 'vector' ? lists.vector : null,
    lexical: o.mode === 'hybrid' || o.mode === 'lexical' ? lists.lexical : null,
  };
}

/** The relation the query asks about, if the walk may take its edges (the caller's edge types allow it). */
export function relationQuestion(o: ResolvedRecall, query: string): RelationQuestion | null {
  if (!o.relationQuestions) return null;
  const question = readRelationQuestion(query);
  return question && (o.edgeTypes.length === 0 || o.edgeTypes.includes(question.type)) ? question : null;
}

/** The walk that answers a relation question: only its edges, in its direction, to the far ends when asked. */
export function relationWalk(o: ResolvedRecall, question: RelationQuestion): { depth: number; direction: RelationQuestion['direction']; edgeTypes: string[] } {
  return { depth: question.farthest ? Math.max(o.depth, FARTHEST_DEPTH) : o.depth, direction: question.direction, edgeTypes: [question.type] };
}

/**
 * Where a relation question's walk may start: the best vector+lexical candidates for its subject,
 * the lexical list asked for the query without the relation's words (the vector keeps the whole
 * query: an embedding weighs the subject's words over the frame's).
 */
export function subjectSeeds(vector: Scored[] | null, subjectLexical: LexicalHit[] | null, o: ResolvedRecall, question: RelationQuestion): number[] {
  return defaultSeeds(vector, subjectLexical, o, question.subject).map((s) => s.no);
}

/** Every memory the given leg lists hold, once: what the time leg ranks and the speaker vote reads. */
export function candidatesOf(lists: ReadonlyArray<readonly Scored[] | null | undefined>): Set<number> {
  const candidates = new Set<number>();
  for (const list of lists) for (const h of list ?? []) candidates.add(h.no);
  return candidates;
}

/** How many of the best vector+lexical candidates both graph walks start from (the entity walk weighs them by fused score). */
const ANCHORS = 3;

/**
 * Where the graph walks start when the caller names no anchors: the top 3 of the vector and
 * lexical lists fused as the store fuses them, weighted by their fused score (the entity walk
 * restarts in proportion; the edge walk ranks by their order).
 */
export function defaultSeeds(vector: Scored[] | null, lexical: LexicalHit[] | null, o: ResolvedRecall, query: string): Array<{ no: number; weight: number }> {
  return anchorList(vector, lexical, o, query).map((f) => ({ no: f.no, weight: f.score }));
}

/** The best `ANCHORS` of the vector and lexical lists fused as the store fuses them: where the graph walks start. */
function anchorList(vector: Scored[] | null, lexical: LexicalHit[] | null, o: ResolvedRecall, query: string): Fused[] {
  if (o.fusion === 'convex') {
    return convexFusion([scoredList(o.weights.vector, vector), lexicalList(o.weights.lexical, lexical, query)], undefined, ANCHORS);
  }
  return reciprocalRankFusion([{ weight: 1, nos: (vector ?? []).map((h) => h.no) }, { weight: 1, nos: (lexical ?? []).map((h) => h.no) }], o.rrfK, undefined, ANCHORS);
}

/**
 * The lexical list with each hit's share of the query's terms as its confidence, for choosing
 * where the graph walks start: a memory that matches one word of "how do I reset my password" is
 * a word coincidence however it ranks among the few that match at all, and a walk from it would
 * add graph votes to it and its neighbours. The final fusion keeps the plain lexical scores:
 * long questions match only part of their words even in the right memory (LoCoMo-dev recall@10
 * fell from 0.705 to 0.647 when the coverage weighed the final lexical vote too).
 */
function lexicalList(weight: number, list: readonly LexicalHit[] | null, query: string): ScoredList {
  const base = scoredList(weight, list);
  const terms = queryTerms(query).length;
  return { ...base, confidence: (list ?? []).map((h) => (terms > 0 ? Math.min(1, h.matched.length / terms) : 1)) };
}

function scoredList(weight: number, list: readonly Scored[] | null): ScoredList {
  return { weight, nos: (list ?? []).map((h) => h.no), scores: (list ?? []).map((h) => h.score) };
}

/**
 * Fuses the lists. A single-leg mode keeps its leg's order. Equal scores go to the memory that
 * is current, then the fresher one, so supersession shows even when relevance ties.
 */
export function fuse(parts: FusionParts, o: ResolvedRecall, query: string, lists: LegLists, now: number): Fused[] {
  const reference = o.asOf ?? now;
  const status = (no: number): number => (statusAt(parts.catalog.entry(no), reference) === 'current' ? 0 : 1);
  const tieBreak = (a: number, b: number): number =>
    status(a) - status(b) ||
    recencyWeight(parts.catalog.entry(b), reference, o.halfLifeDays) - recencyWeight(parts.catalog.entry(a), reference, o.halfLifeDays) ||
    a - b;
  if (o.mode === 'graph') {
    // Alone, the leg lists what its walks reach, not where they started (as the edge walk does).
    const edges = (lists.graph ?? []).map((h) => ({ no: h.no, score: h.score }));
    const seen = new Set([...edges.map((h) => h.no), ...(lists.starts ?? [])]);
    return answersFirst([...edges, ...(lists.entity ?? []).filter((h) => !seen.has(h.no)).map((h) => ({ no: h.no, score: h.score }))], lists.relation);
  }
  if (o.mode !== 'hybrid') {
    const only = lists[o.mode] ?? [];
    return only.map((h) => ({ no: h.no, score: h.score }));
  }
  const accept = scope(parts, o, now).accept;
  const fused = reweighHistorical(parts, fuseHybrid(o, lists, tieBreak, hitsRead(o, lists)), status, accept, o.historicalWeight, tieBreak);
  return answersFirst(o.rerank ? rerank(query, fused, o.k, (no) => parts.repository.memoryByNo(no)!.text) : fused, lists.relation);
}

/**
 * A relation question's answers lead, in the relation's order: the legs rank what resembles the
 * question, and the memory it asks about resembles it most, so no weight would put "what X
 * depends on" above X. Their scores sit just above the best other hit's, keeping scores ordered.
 */
function answersFirst(fused: Fused[], relation: RelationAnswers | null | undefined): Fused[] {
  const answers = relation?.hits ?? [];
  if (answers.length === 0) return fused;
  const lead = new Set(answers.map((h) => h.no));
  const rest = fused.filter((f) => !lead.has(f.no));
  const top = rest[0]?.score ?? 0;
  return [...answers.map((h, i) => ({ no: h.no, score: top + (answers.length - i) / answers.length })), ...rest];
}

/**
 * What is no longer true yields to what replaced it. A memory that supersedes a hit is lifted to
 * at least that hit's score (joining the answer if no leg found it), so the current fact comes
 * first even when the old wording matches the query better; ties go to the current one. Every
 * historical hit then keeps `historicalWeight` of its score.
 */
function reweighHistorical(parts: FusionParts, fused: Fused[], status: (no: number) => number, accept: Accept, weight: number, tieBreak: (a: number, b: number) => number): Fused[] {
  const historical = fused.filter((f) => status(f.no) === 1);
  // Nothing to lift or lower: the fused order already is the answer (most recalls of a live store).
  if (historical.length === 0) return fused;
  const scores = new Map(fused.map((f) => [f.no, f.score]));
  for (const f of historical) {
    for (const newer of parts.graph.sources(f.no, 'SUPERSEDES')) {
      if (accept(newer) && status(newer) === 0) scores.set(newer, Math.max(scores.get(newer) ?? 0, f.score));
    }
  }
  // Lifting only raises current memories, so the historical ones still hold their fused scores.
  for (const f of historical) scores.set(f.no, f.score * weight);
  return sortFused(scores, tieBreak);
}

/**
 * How much of the fused list the answer reads: the top k (the reranker's pool when it runs) and
 * room for the relation answers that lead it. All of it when a candidate is historical, since
 * lowering it and lifting what replaced it can reorder the whole list. Keeping only that many by
 * insertion instead of sorting every candidate (~400) was ~5% of a hybrid recall at 10k.
 */
function hitsRead(o: ResolvedRecall, lists: LegLists): number {
  // The time leg holds every candidate with its status at the reference time.
  if (!lists.time || lists.time.some((t) => t.status === 'historical')) return Infinity;
  return (o.rerank ? rerankPool(o.k) : o.k) + (lists.relation?.hits.length ?? 0);
}

function fuseHybrid(o: ResolvedRecall, lists: LegLists, tieBreak: (a: number, b: number) => number, limit: number): Fused[] {
  if (o.fusion === 'linear') {
    const similarity = new Map<number, number>();
    if (lists.vector && lists.vector.length > 0) {
      for (const h of lists.vector) similarity.set(h.no, h.score);
    } else if (lists.lexical && lists.lexical.length > 0) {
      const best = lists.lexical[0]!.score;
      for (const h of lists.lexical) similarity.set(h.no, best > 0 ? h.score / best : 0);
    }
    const proximity = new Map((lists.graph ?? []).map((h) => [h.no, h.score] as const));
    return linearFusion(similarity, proximity, o.alpha, o.beta, tieBreak);
  }
  // A whole identifier from the query (ADR-007, #4821, a UUID) matched verbatim is stronger
  // evidence than shared words, and a dense encoder blurs it with its near misses (ADR-017), so
  // such memories get a second lexical vote.
  const exact = lists.lexical?.filter((h) => h.matched.some(isCompound)) ?? [];
  if (o.fusion === 'convex') {
    const spoken = [...(lists.speakers?.keys() ?? [])];
    return convexFusion([
      scoredList(o.weights.vector, lists.vector),
      scoredList(o.weights.lexical, lists.lexical),
      scoredList(o.weights.lexical, exact),
      // Proximity 1/(1+d) of a reached memory is at most 1/2: 2/(1+d) puts one hop at 1.
      { ...scoredList(o.weights.graph, lists.graph), scores: (lists.graph ?? []).map((h) => Math.min(1, 2 * h.score)), bounded: true },
      scoredList(o.weights.graph, lists.entity ?? null),
      scoredList(o.weights.time, lists.time),
      { weight: SPEAKER_WEIGHT, nos: spoken, scores: spoken.map(() => 1), bounded: true },
    ], tieBreak, limit);
  }
  const ranks = legRanks(lists);
  const ranked: RankedList[] = [];
  for (const leg of LEG_NAMES) {
    const list = lists[leg];
    if (list) ranked.push({ weight: o.weights[leg], nos: list.map((h) => h.no), ranks: ranks[leg]! });
  }
  if (lists.entity && lists.entity.length > 0) ranked.push({ weight: o.weights.graph, nos: lists.entity.map((h) => h.no) });
  if (exact.length > 0) ranked.push({ weight: o.weights.lexical, nos: exact.map((h) => h.no) });
  return reciprocalRankFusion(ranked, o.rrfK, tieBreak, limit).filter((f) => f.score > 0);
}

/** Each leg's ranks with ties shared: equal scores; for the graph all but the number equal; for time equal status and weight. */
function legRanks(lists: LegLists): Partial<Record<LegName, number[]>> {
  const byScore = (a: Scored, b: Scored) => a.score === b.score;
  return {
    ...(lists.vector ? { vector: tiedRanks(lists.vector, byScore) } : {}),
    ...(lists.lexical ? { lexical: tiedRanks(lists.lexical, byScore) } : {}),
    ...(lists.graph ? { graph: tiedRanks(lists.graph, sameGraphRank) } : {}),
    ...(lists.time ? { time: tiedRanks(lists.time, (a, b) => a.status === b.status && a.score === b.score) } : {}),
  };
}

/** One recall from query to hits: the legs the mode asks for, their fusion, the top `k` as hits. */
export function search(parts: RecallParts, o: ResolvedRecall, query: string, queryVector: Float32Array | null, now: number): { hits: Hit[]; legsRun: LegName[] } {
  return answer(parts, o, query, runLegs(parts, o, query, queryVector, now), now);
}

/** What both engines do once their legs have run: who said the candidates, the fusion, the hits. */
export function answer(parts: FusionParts, o: ResolvedRecall, query: string, legs: LegLists, now: number): { hits: Hit[]; legsRun: LegName[] } {
  const lists = { ...legs, speakers: o.mode === 'hybrid' && o.fusion === 'convex' && o.speakers ? attribution(parts, query, legs) : null };
  // Convex fusion reads the time leg's weights; reciprocal ranks and explanations read its ranks.
  if (lists.time && (o.fusion === 'rrf' || o.explain)) lists.time = inTimeOrder([...lists.time]);
  return { hits: materialize(parts, o, lists, fuse(parts, o, query, lists, now), now), legsRun: legsRun(lists) };
}

/**
 * A vote as strong as a leg's best candidate's: on LoCoMo-dev 0.5 to 3 all lifted every category
 * (overall recall@10 0.738 → 0.746–0.755, multi-hop 0.473 → 0.483–0.496), 1 and 3 the most.
 */
const SPEAKER_WEIGHT = 1;

/**
 * The candidates said by someone the query names (see speakers.ts). Only the opening of a
 * candidate's text is read, once per memory (kept in its catalog entry: reading 200 openings
 * through the WASM binding took 0.85 ms a recall), and none when the query has no capitalised
 * word past its first.
 */
function attribution(parts: FusionParts, query: string, lists: LegLists): Map<number, string> | null {
  if (!mayNameSomeone(query)) return null;
  const candidates = candidatesOf([lists.vector, lists.lexical, lists.graph, lists.entity]);
  const unread = [...candidates].filter((no) => parts.catalog.entry(no).speaker === undefined);
  if (unread.length > 0) {
    const heads = parts.repository.textHeadsByNo(unread, LABEL_CHARS);
    for (const no of unread) {
      const entry = parts.catalog.entry(no);
      entry.speaker = speakerOf(entry.metadata, heads.get(no) ?? '');
    }
  }
  const said = new Map<number, string>();
  for (const no of candidates) {
    const speaker = parts.catalog.entry(no).speaker;
    if (speaker) said.set(no, speaker);
  }
  const named = namedIn(query, new Set(said.values()));
  if (named.size === 0) return null;
  return new Map([...said].filter(([, speaker]) => named.has(speaker)));
}

export function legsRun(lists: LegLists): LegName[] {
  return LEG_NAMES.filter((leg) => lists[leg] !== null);
}

/** Builds the final hits: rows are read from SQLite only for the top k. */
export function materialize(parts: FusionParts, o: ResolvedRecall, lists: LegLists, fused: Fused[], now: number): Hit[] {
  const reference = o.asOf ?? now;
  const top = fused.slice(0, o.k);
  const explain = o.explain ? explanations(parts, lists, legRanks(lists), new Set(top.map((f) => f.no))) : null;
  const texts = parts.repository.textsByNo(top.map((f) => f.no));
  return top.map((f) => {
    const entry = parts.catalog.entry(f.no);
    return {
      id: entry.id,
      text: texts.get(f.no)!,
      score: f.score,
      kind: entry.kind,
      domain: entry.domain,
      metadata: ownCopy(entry.metadata),
      createdAt: entry.createdAt,
      validFrom: entry.validFrom,
      validTo: entry.validTo,
      status: statusAt(entry, reference),
      legs: explain?.get(f.no) ?? {},
    };
  });
}

function explanations(parts: FusionParts, lists: LegLists, ranks: Partial<Record<LegName, number[]>>, wanted: Set<number>): Map<number, HitLegs> {
  const out = new Map<number, HitLegs>();
  const at = (no: number): HitLegs => {
    let legs = out.get(no);
    if (!legs) out.set(no, (legs = {}));
    return legs;
  };
  lists.vector?.forEach((h, i) => {
    if (wanted.has(h.no)) at(h.no).vector = { rank: ranks.vector![i]!, score: h.score };
  });
  lists.lexical?.forEach((h, i) => {
    if (wanted.has(h.no)) at(h.no).lexical = { rank: ranks.lexical![i]!, score: h.score, matched: h.matched };
  });
  lists.graph?.forEach((h, i) => {
    if (wanted.has(h.no)) at(h.no).graph = { rank: ranks.graph![i]!, distance: h.distance, via: h.via.map((no) => parts.catalog.entry(no).id) };
  });
  // An answer to the query's relation question is explained by that relation's path.
  lists.relation?.hits.forEach((h, i) => {
    if (wanted.has(h.no)) at(h.no).graph = { rank: i + 1, distance: h.distance, via: h.via.map((no) => parts.catalog.entry(no).id), relation: lists.relation!.question.type };
  });
  lists.time?.forEach((h, i) => {
    if (wanted.has(h.no)) at(h.no).time = { rank: ranks.time![i]!, weight: h.score };
  });
  for (const [no, name] of lists.speakers ?? []) if (wanted.has(no)) at(no).speaker = name;
  return out;
}

/**
 * The hit's own metadata: the catalog's object is what metadata filters read, and a caller that
 * changed the one it was handed changed what the store's filters saw, though SQLite kept the old.
 * Metadata is JSON by construction (`checkMetadata`); most is empty and needs no copy's work.
 */
function ownCopy(metadata: Metadata): Metadata {
  return Object.keys(metadata).length === 0 ? {} : (JSON.parse(JSON.stringify(metadata)) as Metadata);
}
