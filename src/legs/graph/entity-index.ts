import type { EntityLeg, EntityWalkOptions, Scored } from '../types.js';
import { extractEntities } from './entities.js';

/**
 * The entity graph: memories linked to the entities their text names (see `entities.ts`), kept
 * in memory and derived from the text like the BM25 postings, so nothing is written to SQLite
 * and a store without it answers exactly as before.
 *
 * Two memories are connected when they name the same entity; a link through an entity that `df`
 * memories name carries 1/df (its specificity, as HippoRAG weighs nodes), so "Caroline" in every
 * turn of her conversation connects nothing in particular while a rare name is a strong bridge.
 * Entities named by more than `maxShare` of the memories (and at least `minCap`) are skipped
 * entirely: they cannot change a ranking and would make the walk touch most of the store.
 */
export class EntityIndex implements EntityLeg {
  readonly #keys = new Map<string, number>();
  readonly #postings: Array<Set<number>> = [];
  readonly #of = new Map<number, number[]>();
  readonly #maxShare: number;
  readonly #minCap: number;

  constructor(options: { maxShare?: number; minCap?: number } = {}) {
    this.#maxShare = options.maxShare ?? 0.05;
    this.#minCap = options.minCap ?? 20;
  }

  get size(): number {
    return this.#of.size;
  }

  /**
   * Indexes the entities of `text`. A conversation turn (`turn` = its session and position) is
   * also linked to the turns right before and after it, through an entity only that pair shares,
   * so an answer given in the reply to a question is one hop from the question.
   */
  add(no: number, text: string, turn: { session: string; turn: number } | null = null): void {
    this.remove(no);
    const ids: number[] = [];
    const keys = extractEntities(text);
    // Keys of pair links start with a character extractEntities never produces.
    if (turn) keys.push(`\u0000${turn.session}\u0000${turn.turn - 1}`, `\u0000${turn.session}\u0000${turn.turn}`);
    for (const key of keys) {
      let id = this.#keys.get(key);
      if (id === undefined) {
        id = this.#postings.length;
        this.#keys.set(key, id);
        this.#postings.push(new Set());
      }
      this.#postings[id]!.add(no);
      ids.push(id);
    }
    this.#of.set(no, ids);
  }

  remove(no: number): void {
    const ids = this.#of.get(no);
    if (!ids) return;
    for (const id of ids) this.#postings[id]!.delete(no);
    this.#of.delete(no);
  }

  clear(): void {
    this.#keys.clear();
    this.#postings.length = 0;
    this.#of.clear();
  }

  /** The entities of `text` (a query) that some memory names. */
  known(text: string): number[] {
    const out: number[] = [];
    for (const key of extractEntities(text)) {
      const id = this.#keys.get(key);
      if (id !== undefined && this.#postings[id]!.size > 0) out.push(id);
    }
    return out;
  }

  /**
   * Personalized PageRank over the memory–entity graph, restarting at the seed memories (weighted,
   * e.g. by their fused score) and the query's own entities. Returns memories the walk reaches, by
   * visit probability, seeds included: a seed that other seeds' entities also lead to is confirmed.
   * Deterministic: sparse maps iterate in insertion order and ties break by memory number.
   */
  walk(seeds: ReadonlyArray<{ no: number; weight: number }>, queryEntities: readonly number[], options: EntityWalkOptions): Scored[] {
    const damping = options.damping ?? 0.6;
    const steps = options.steps ?? 4;
    const cap = Math.max(this.#minCap, Math.floor(this.#maxShare * this.#of.size));
    const usable = (id: number) => {
      const df = this.#postings[id]!.size;
      return df >= 2 && df <= cap;
    };
    const restartMem = new Map<number, number>();
    const restartEnt = new Map<number, number>();
    let total = 0;
    for (const s of seeds) if (s.weight > 0 && this.#of.has(s.no)) total += s.weight;
    const entities = queryEntities.filter(usable);
    // Query entities and seed memories share the restart mass equally when both exist.
    const memShare = entities.length > 0 ? (total > 0 ? 0.5 : 0) : 1;
    if (total > 0) for (const s of seeds) if (s.weight > 0 && this.#of.has(s.no)) restartMem.set(s.no, (restartMem.get(s.no) ?? 0) + (memShare * s.weight) / total);
    for (const id of entities) restartEnt.set(id, (restartEnt.get(id) ?? 0) + (1 - memShare) / entities.length);

    let mem = new Map(restartMem);
    let ent = new Map(restartEnt);
    for (let step = 0; step < steps; step++) {
      const nextEnt = new Map<number, number>();
      const nextMem = new Map<number, number>();
      for (const [no, p] of mem) {
        const links = (this.#of.get(no) ?? []).filter(usable);
        let norm = 0;
        for (const id of links) norm += 1 / this.#postings[id]!.size;
        for (const id of links) nextEnt.set(id, (nextEnt.get(id) ?? 0) + (damping * p * (1 / this.#postings[id]!.size)) / norm);
      }
      for (const [id, p] of ent) {
        const posting = this.#postings[id]!;
        for (const no of posting) nextMem.set(no, (nextMem.get(no) ?? 0) + (damping * p) / posting.size);
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
}
