import { foldsChanges } from '../../util/saved-changes.js';
import type { EntityLeg, EntityWalkOptions, Scored } from '../types.js';
import { EXTRACTOR_VERSION, extractEntities } from './entities.js';
import { decodeEntities, encodeEntities, type EntityChanges } from './entity-format.js';
import { LoadedEntities, type EntityColumns } from './loaded-entities.js';

/** Memories' entity ids as columns, in the map's order. */
function columnsOf(entries: ReadonlyMap<number, ArrayLike<number>>): EntityColumns {
  const nos = new Float64Array(entries.size);
  const counts = new Uint32Array(entries.size);
  const ids: number[] = [];
  let i = 0;
  for (const [no, named] of entries) {
    nos[i] = no;
    counts[i++] = named.length;
    for (let j = 0; j < named.length; j++) ids.push(named[j]!);
  }
  return { nos, counts, ids: Uint32Array.from(ids) };
}

/**
 * What the walk reads of a memory–entity graph. The embedded index holds all of it; the Postgres
 * engine fetches only what a walk from these seeds can reach, so both run the same arithmetic.
 */
export interface EntityGraphView {
  /** The most memories an entity may be named by and still link them (see {@link entityCap}). */
  readonly cap: number;
  /** The entities a memory names, in the order its text names them. */
  entitiesOf(no: number): readonly number[] | undefined;
  /** The memories naming an entity, in the order they were indexed. */
  posting(id: number): Iterable<number>;
  /** How many memories name an entity. */
  df(id: number): number;
}

/**
 * The most memories an entity may be named by and still link them, in a graph of `memories`:
 * more than `maxShare` of them (and more than `minCap`) and it cannot change a ranking, while it
 * would make the walk touch most of the store.
 */
export function entityCap(memories: number, maxShare = 0.05, minCap = 20): number {
  return Math.max(minCap, Math.floor(maxShare * memories));
}

/**
 * A conversation turn (`turn` = its session and position) is also linked to the turns right
 * before and after it, through a key only that pair shares, so an answer given in the reply to a
 * question is one hop from the question. Pair keys contain a double quote, which no entity key
 * does (names and identifiers are letters, digits and `.'’-_/#`; quoted phrases exclude it), and no
 * NUL, so a database column can hold them.
 */
export function entityKeys(text: string, turn: { session: string; turn: number } | null): string[] {
  const keys = extractEntities(text);
  if (turn) keys.push(JSON.stringify([turn.session, turn.turn - 1]), JSON.stringify([turn.session, turn.turn]));
  return keys;
}

/**
 * Personalized PageRank over the memory–entity graph, restarting at the seed memories (weighted,
 * e.g. by their fused score; each must be in the graph) and the query's own entities. Returns
 * memories the walk reaches, by visit probability, seeds included: a seed that other seeds'
 * entities also lead to is confirmed. Deterministic: sparse maps iterate in insertion order and
 * ties break by memory number.
 */
export function entityWalk(graph: EntityGraphView, seeds: ReadonlyArray<{ no: number; weight: number }>, queryEntities: readonly number[], options: EntityWalkOptions): Scored[] {
  const walk = entityWalkSteps(graph, seeds, queryEntities, options);
  for (;;) {
    const next = walk.next();
    if (next.done) return next.value;
  }
}

/** What the next step of {@link entityWalkSteps} reads: these memories' entities, these entities' postings. */
export interface WalkNeeds {
  readonly memories: readonly number[];
  readonly entities: readonly number[];
}

/**
 * {@link entityWalk} one step at a time: before each step it yields the nodes that step expands
 * (those holding at least `tolerance` of mass), so a graph kept elsewhere (Postgres) can fetch
 * exactly those and no more before the walk resumes; the walk's arithmetic is the same either way.
 */
export function* entityWalkSteps(graph: EntityGraphView, seeds: ReadonlyArray<{ no: number; weight: number }>, queryEntities: readonly number[], options: EntityWalkOptions): Generator<WalkNeeds, Scored[], void> {
  const damping = options.damping ?? 0.6;
  const steps = options.steps ?? 4;
  const tolerance = options.tolerance ?? 1e-4;
  const usable = (id: number) => {
    const df = graph.df(id);
    return df >= 2 && df <= graph.cap;
  };
  const restartMem = new Map<number, number>();
  const restartEnt = new Map<number, number>();
  let total = 0;
  for (const s of seeds) if (s.weight > 0) total += s.weight;
  const entities = queryEntities.filter(usable);
  // Query entities and seed memories share the restart mass equally when both exist.
  const memShare = entities.length > 0 ? (total > 0 ? 0.5 : 0) : 1;
  if (total > 0) for (const s of seeds) if (s.weight > 0) restartMem.set(s.no, (restartMem.get(s.no) ?? 0) + (memShare * s.weight) / total);
  for (const id of entities) restartEnt.set(id, (restartEnt.get(id) ?? 0) + (1 - memShare) / entities.length);

  // A memory's usable links and their total weight are the same at every step; work them out once.
  const linksOf = new Map<number, { links: number[]; norm: number }>();
  const linksFor = (no: number) => {
    let found = linksOf.get(no);
    if (!found) {
      const links = (graph.entitiesOf(no) ?? []).filter(usable);
      let norm = 0;
      for (const id of links) norm += 1 / graph.df(id);
      found = { links, norm };
      linksOf.set(no, found);
    }
    return found;
  };
  let mem = new Map(restartMem);
  let ent = new Map(restartEnt);
  for (let step = 0; step < steps; step++) {
    const nextEnt = new Map<number, number>();
    const nextMem = new Map<number, number>();
    // The last step's entity mass is never read: only memories are returned.
    const expandMems = step < steps - 1 ? [...mem].filter(([, p]) => p >= tolerance).map(([no]) => no) : [];
    const expandEnts = [...ent].filter(([, p]) => p >= tolerance).map(([id]) => id);
    yield { memories: expandMems, entities: expandEnts };
    for (const no of expandMems) {
      const p = mem.get(no)!;
      const { links, norm } = linksFor(no);
      for (const id of links) nextEnt.set(id, (nextEnt.get(id) ?? 0) + (damping * p * (1 / graph.df(id))) / norm);
    }
    for (const id of expandEnts) {
      const p = ent.get(id)!;
      const df = graph.df(id);
      for (const no of graph.posting(id)) nextMem.set(no, (nextMem.get(no) ?? 0) + (damping * p) / df);
    }
    for (const [no, r] of restartMem) nextMem.set(no, (nextMem.get(no) ?? 0) + (1 - damping) * r);
    for (const [id, r] of restartEnt) nextEnt.set(id, (nextEnt.get(id) ?? 0) + (1 - damping) * r);
    mem = nextMem;
    ent = nextEnt;
  }
  const out: Scored[] = [];
  for (const [no, score] of mem) if (score > 0 && (!options.accept || options.accept(no))) out.push({ no, score });
  out.sort((a, b) => b.score - a.score || a.no - b.no);
  return out.slice(0, options.k);
}

/**
 * The entity graph: memories linked to the entities their text names (see `entities.ts`), kept
 * in memory and derived from the text like the BM25 postings, so nothing is written to SQLite
 * and a store without it answers exactly as before.
 *
 * Two memories are connected when they name the same entity; a link through an entity that `df`
 * memories name carries 1/df (its specificity, as HippoRAG weighs nodes), so "Caroline" in every
 * turn of her conversation connects nothing in particular while a rare name is a strong bridge.
 * Entities named by more than `maxShare` of the memories (and at least `minCap`) are skipped
 * entirely (see {@link entityCap}).
 */
export class EntityIndex implements EntityLeg {
  readonly #keys = new Map<string, number>();
  /** A loaded index, read in place and never changed; what changed since is kept in the fields below. */
  #base: LoadedEntities | null = null;
  /** How many of the keys `#base` has: those after it were added since. */
  #baseKeys = 0;
  /** Memories of `#base` removed (or added again, then they are in `#added` too). */
  readonly #removed = new Set<number>();
  /** Per entity, how many of the memories `#base` lists for it are removed. */
  readonly #removedDf = new Map<number, number>();
  /** Memories added since the load (all of them when nothing was loaded), in the order last added. */
  readonly #added = new Map<number, number[]>();
  /** Per entity, the memories of `#added` naming it, in the order they were added. */
  readonly #addedPostings = new Map<number, Set<number>>();
  readonly #maxShare: number | undefined;
  readonly #minCap: number | undefined;

  constructor(options: { maxShare?: number | undefined; minCap?: number | undefined } = {}) {
    this.#maxShare = options.maxShare;
    this.#minCap = options.minCap;
  }

  get size(): number {
    return (this.#base?.count ?? 0) - this.#removed.size + this.#added.size;
  }

  #df(id: number): number {
    return (this.#base?.df(id) ?? 0) - (this.#removedDf.get(id) ?? 0) + (this.#addedPostings.get(id)?.size ?? 0);
  }

  #entitiesOf(no: number): readonly number[] | undefined {
    return this.#added.get(no) ?? (this.#removed.has(no) ? undefined : this.#base?.entitiesOf(no));
  }

  /**
   * The saved memories naming `id` that are still there, then those added since: the order a set
   * per entity would hold them in had every change been made to it, as the walk's sums follow it.
   */
  #posting(id: number): Iterable<number> {
    const saved = this.#base?.posting(id) ?? [];
    const added = this.#addedPostings.get(id);
    if (!this.#removedDf.has(id) && !added) return saved;
    const out: number[] = [];
    for (const no of saved) if (!this.#removed.has(no)) out.push(no);
    if (added) for (const no of added) out.push(no);
    return out;
  }

  /** Indexes the entities of `text`, and for a conversation turn its pair links (see {@link entityKeys}). */
  add(no: number, text: string, turn: { session: string; turn: number } | null = null): void {
    this.remove(no);
    const ids: number[] = [];
    for (const key of entityKeys(text, turn)) {
      let id = this.#keys.get(key);
      if (id === undefined) {
        id = this.#keys.size;
        this.#keys.set(key, id);
      }
      ids.push(id);
    }
    this.#addEntry(no, ids);
  }

  /** `no` naming `ids`, in the added layer (which does not hold it). */
  #addEntry(no: number, ids: number[]): void {
    for (const id of ids) {
      let posting = this.#addedPostings.get(id);
      if (!posting) this.#addedPostings.set(id, (posting = new Set()));
      posting.add(no);
    }
    this.#added.set(no, ids);
  }

  remove(no: number): void {
    const added = this.#added.get(no);
    if (added) {
      for (const id of added) {
        const posting = this.#addedPostings.get(id)!;
        posting.delete(no);
        if (posting.size === 0) this.#addedPostings.delete(id);
      }
      this.#added.delete(no);
      return;
    }
    const saved = this.#removed.has(no) ? undefined : this.#base?.entitiesOf(no);
    if (!saved) return;
    this.#removed.add(no);
    // A memory the save lists with an entity twice is one posting of it.
    for (const id of new Set(saved)) this.#removedDf.set(id, (this.#removedDf.get(id) ?? 0) + 1);
  }

  clear(): void {
    this.#keys.clear();
    this.#rebase(null, 0);
  }

  /**
   * The entity keys (in id order, so ids survive) and each memory's entity ids (in the order
   * memories were last added, so postings come back in the order they were built and a walk sums
   * in the same order). A loaded index with few changes writes its base as it was and the changes
   * after it (`entity-format.ts` version 3), so a store's save after a few writes leaves the
   * base's bytes, and SQLite its pages, as they were (at 100k memories the index is ~1 MB); many
   * changes (`foldsChanges`) are folded into a new base first, as an open would otherwise apply
   * them all.
   */
  save(): Uint8Array {
    const keys = [...this.#keys.keys()];
    const base = this.#base;
    if (base && !this.#foldsChanges()) {
      const added = columnsOf(this.#added);
      return encodeEntities(EXTRACTOR_VERSION, { keys: keys.slice(0, this.#baseKeys), ...base.columns }, { keys: keys.slice(this.#baseKeys), ...added, removed: Float64Array.from(this.#removed) });
    }
    return encodeEntities(EXTRACTOR_VERSION, { keys, ...this.#fold().columns });
  }

  /** Folds many changes since the base into a new one, as a save would, without writing anything; whether it folded. */
  compact(): boolean {
    if (this.#removed.size + this.#added.size === 0 || (this.#base !== null && !this.#foldsChanges())) return false;
    this.#fold();
    return true;
  }

  #foldsChanges(): boolean {
    return foldsChanges(this.#removed.size + this.#added.size, this.size);
  }

  /** The base and the changes since merged into a new base, which it returns. */
  #fold(): LoadedEntities {
    const entries = new Map<number, ArrayLike<number>>();
    this.#base?.forEach((no, ids) => {
      if (!this.#removed.has(no)) entries.set(no, ids);
    });
    for (const [no, ids] of this.#added) entries.set(no, ids);
    const base = new LoadedEntities(this.#keys.size, columnsOf(entries));
    this.#rebase(base, this.#keys.size);
    return base;
  }

  /** `base` in place of the saved form and every change made since. */
  #rebase(base: LoadedEntities | null, keys: number): void {
    this.#base = base;
    this.#baseKeys = keys;
    this.#removed.clear();
    this.#removedDf.clear();
    this.#added.clear();
    this.#addedPostings.clear();
  }

  /** Restores {@link EntityIndex.save}'s bytes (or an older version's); throws on anything else (the caller rebuilds from the texts). */
  static load(bytes: Uint8Array, options: { maxShare?: number | undefined; minCap?: number | undefined } = {}): EntityIndex {
    const { saved, changes } = decodeEntities(bytes, EXTRACTOR_VERSION);
    const index = new EntityIndex(options);
    for (const key of [...saved.keys, ...(changes?.keys ?? [])]) {
      if (index.#keys.has(key)) throw new Error('entity keys must be distinct');
      index.#keys.set(key, index.#keys.size);
    }
    const base = new LoadedEntities(saved.keys.length, saved);
    index.#rebase(base, saved.keys.length);
    if (changes) index.#restore(base, changes);
    return index;
  }

  /** Applies the changes a version 3 save holds, as the calls that made them did; throws on changes no calls could have made. */
  #restore(base: LoadedEntities, changes: EntityChanges): void {
    for (const no of changes.removed) {
      if (this.#removed.has(no) || !base.has(no)) throw new Error(`removed memory ${no} is not one of the base's`);
      this.remove(no);
    }
    let at = 0;
    changes.nos.forEach((no, i) => {
      const ids = Array.from(changes.ids.subarray(at, (at += changes.counts[i]!)));
      if (!Number.isSafeInteger(no) || no < 0) throw new Error(`malformed memory number ${no}`);
      if (this.#added.has(no) || (base.has(no) && !this.#removed.has(no))) throw new Error(`added memory ${no} is held already`);
      if (ids.some((id) => id >= this.#keys.size)) throw new Error(`added memory ${no} names entities past the keys`);
      this.#addEntry(no, ids);
    });
    if (at !== changes.ids.length) throw new Error(`the counts name ${at} entity ids, the changes hold ${changes.ids.length}`);
  }

  /** The entities of `text` (a query) that some memory names. */
  known(text: string): number[] {
    const out: number[] = [];
    for (const key of extractEntities(text)) {
      const id = this.#keys.get(key);
      if (id !== undefined && this.#df(id) > 0) out.push(id);
    }
    return out;
  }

  /** {@link entityWalk} over this index; seeds it does not hold are left out. */
  walk(seeds: ReadonlyArray<{ no: number; weight: number }>, queryEntities: readonly number[], options: EntityWalkOptions): Scored[] {
    const view: EntityGraphView = {
      cap: entityCap(this.size, this.#maxShare, this.#minCap),
      entitiesOf: (no) => this.#entitiesOf(no),
      posting: (id) => this.#posting(id),
      df: (id) => this.#df(id),
    };
    return entityWalk(view, seeds.filter((s) => this.#entitiesOf(s.no) !== undefined), queryEntities, options);
  }
}
