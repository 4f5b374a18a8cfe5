import { invalid } from '../errors.js';
import { isCompound, tokenize } from '../legs/lexical/tokenizer.js';
import type { Metadata } from '../types.js';
import { checkIntInRange, checkKeys, checkOptions, isPlainObject, keysOf } from './validate.js';

/**
 * Edges the store draws by itself when memories arrive. Each is marked in its metadata as
 * `auto: { by, reason }`, can be listed (`autoEdges()`) and removed (`removeAutoEdges()`).
 */
export interface AutoEdgeOptions {
  /** A memory naming another's identifier ("see ADR-007", "Order #4821") → REFERENCES, or SUPERSEDES when the wording says so. */
  references?: boolean | undefined;
  /** Memories sharing a rare identifier (one that at most `maxShared` others mention) → RELATES_TO, weight 1/that count. */
  sharedIdentifiers?: boolean | undefined;
  /** Memories with the same `metadata.sessionId` (or `conversationId`) and a numeric `metadata.turn` → FOLLOWS the previous turn. */
  sequence?: boolean | undefined;
  /** How many other memories may share an identifier for it to still count as rare. Default 3. */
  maxShared?: number | undefined;
  /**
   * The seed reference's similarity edges, once a memory has its vector: RELATES_TO to up to `max`
   * earlier memories with cosine ≥ `threshold`, DERIVED_FROM at ≥ `derivedFrom`. `true`: 0.7, 5, 0.85.
   */
  similarity?: boolean | { threshold?: number | undefined; max?: number | undefined; derivedFrom?: number | undefined } | undefined;
}

export interface SimilarityEdges {
  threshold: number;
  max: number;
  derivedFrom: number;
}

export interface ResolvedAutoEdges {
  references: boolean;
  sharedIdentifiers: boolean;
  sequence: boolean;
  maxShared: number;
  similarity: SimilarityEdges | null;
}

export type AutoEdgeKind = 'references' | 'identifier' | 'sequence' | 'similarity';

export interface AutoEdgeProposal {
  from: number;
  to: number;
  type: 'REFERENCES' | 'SUPERSEDES' | 'RELATES_TO' | 'FOLLOWS' | 'DERIVED_FROM';
  weight: number;
  by: AutoEdgeKind;
  reason: string;
}

export interface AutoMemory {
  no: number;
  id: string;
  text: string;
  metadata: Metadata;
}

const SIMILARITY: SimilarityEdges = { threshold: 0.7, max: 5, derivedFrom: 0.85 };
const AUTO_EDGE_KEYS = keysOf<AutoEdgeOptions>({ references: true, sharedIdentifiers: true, sequence: true, maxShared: true, similarity: true });
const SIMILARITY_KEYS = keysOf<SimilarityEdges>({ threshold: true, max: true, derivedFrom: true });
const ALL_ON: ResolvedAutoEdges = { references: true, sharedIdentifiers: true, sequence: true, maxShared: 3, similarity: SIMILARITY };
const SUPERSEDE_VERBS = new Set(['supersedes', 'supersede', 'replaces', 'replace', 'overrides', 'override', 'obsoletes', 'deprecates']);
const PASSIVE_VERBS = new Set(['superseded', 'replaced', 'overridden', 'obsoleted', 'deprecated']);
const GENERATED_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_PER_KIND = 8;

/**
 * Off unless asked for (`true`: every kind; an object: the kinds set to true). The benchmark
 * measures each kind with and without; none helped enough on every dataset to be on by default.
 */
export function resolveAutoEdges(method: string, value: unknown): ResolvedAutoEdges | null {
  if (value === false || value === undefined) return null;
  if (value === true) return ALL_ON;
  if (!isPlainObject(value)) throw invalid(method, 'options.autoEdges must be true, false or an object', value);
  checkKeys(method, 'options.autoEdges', value, AUTO_EDGE_KEYS);
  const out: ResolvedAutoEdges = { ...ALL_ON, references: false, sharedIdentifiers: false, sequence: false, similarity: null };
  for (const [key, v] of Object.entries(value)) {
    if (key === 'similarity') {
      out.similarity = resolveSimilarity(method, v);
    } else if (key === 'maxShared') {
      out.maxShared = checkIntInRange(method, 'options.autoEdges.maxShared', v, 1, 100);
    } else if (key === 'references' || key === 'sharedIdentifiers' || key === 'sequence') {
      if (typeof v !== 'boolean') throw invalid(method, `options.autoEdges.${key} must be true or false`, v);
      out[key] = v;
    }
  }
  return out;
}

const KINDS: readonly AutoEdgeKind[] = ['references', 'identifier', 'sequence', 'similarity'];

/** `{ by }` of autoEdges()/removeAutoEdges(): one kind, or null for all. */
export function autoEdgeKind(method: string, options: unknown): AutoEdgeKind | null {
  const { by } = checkOptions(method, 'options', options, ['by']);
  if (by === undefined) return null;
  if (!KINDS.includes(by as AutoEdgeKind)) throw invalid(method, `options.by must be one of ${KINDS.join(', ')}`, by);
  return by as AutoEdgeKind;
}

function resolveSimilarity(method: string, value: unknown): SimilarityEdges | null {
  if (value === false) return null;
  if (value === true) return SIMILARITY;
  if (!isPlainObject(value)) throw invalid(method, 'options.autoEdges.similarity must be true, false or { threshold, max, derivedFrom }', value);
  checkKeys(method, 'options.autoEdges.similarity', value, SIMILARITY_KEYS);
  const out = { ...SIMILARITY };
  for (const [key, v] of Object.entries(value)) {
    if (key === 'max') {
      out.max = checkIntInRange(method, 'options.autoEdges.similarity.max', v, 1, 50);
    } else if (key === 'threshold' || key === 'derivedFrom') {
      if (typeof v !== 'number' || !(v > 0 && v <= 1)) throw invalid(method, `options.autoEdges.similarity.${key} must be a cosine in (0, 1]`, v);
      out[key] = v;
    }
  }
  return out;
}

/** Words as written (lower-cased, not stemmed), keeping `#`, `-`, `_` and `.` inside identifiers. */
export function nameTokens(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}#_.-]+/u)
    .map((t) => t.replace(/^[._-]+|[._-]+$/g, ''))
    .filter((t) => t.length > 0);
}

/**
 * The names a memory can be cited by: its id, and an identifier that opens its text
 * ("ADR-007: …", "Order #4821: …"). Plain lower-case words and generated UUIDs are not names:
 * "search" would link every memory that uses the word.
 */
export function namesOf(m: { id: string; text: string }): string[][] {
  const names: string[][] = [];
  const consider = (raw: string) => {
    const stripped = raw.replace(/\s*\([^)]*\)\s*$/, '').trim();
    if (stripped.length < 3 || GENERATED_ID.test(stripped) || !/[\d#A-Z\s]/u.test(stripped)) return;
    const tokens = nameTokens(stripped);
    if (tokens.length > 0 && tokens.length <= 6) names.push(tokens);
  };
  consider(m.id);
  const lead = /^\s*([^\s:]{2,40}(?:\s+#?\d[\w.-]*)?)\s*:/u.exec(m.text);
  if (lead) consider(lead[1]!);
  return names;
}

/** A conversation turn's place: `metadata.sessionId` (or `conversationId`) and a numeric `metadata.turn`. */
export function sessionOf(metadata: Metadata): { session: string; turn: number } | null {
  const session = metadata.sessionId ?? metadata.conversationId;
  const turn = metadata.turn;
  return typeof session === 'string' && typeof turn === 'number' && Number.isFinite(turn) ? { session, turn } : null;
}

/** Identifiers worth linking on: whole compound tokens (adr-007, #4821, UUIDs, versions). */
function identifiersIn(text: string): Set<string> {
  return new Set(tokenize(text).filter(isCompound));
}

/**
 * In-memory lookups for drawing edges: names by their first token, which memories mention each
 * identifier, and session turns. `propose` reads them without changing them, so proposals can be
 * written in the same transaction as the memories and the lookups updated after the commit.
 */
export class AutoEdges {
  readonly options: ResolvedAutoEdges;
  readonly #names = new Map<string, Array<{ tokens: string[]; no: number }>>();
  readonly #mentions = new Map<string, Set<number>>();
  readonly #turns = new Map<string, Array<{ turn: number; no: number }>>();
  readonly #registered = new Map<number, { names: string[][]; identifiers: Set<string>; session: { session: string; turn: number } | null }>();

  constructor(options: ResolvedAutoEdges) {
    this.options = options;
  }

  register(m: AutoMemory): void {
    const entry = { names: namesOf(m), identifiers: identifiersIn(m.text), session: sessionOf(m.metadata) };
    this.#registered.set(m.no, entry);
    for (const tokens of entry.names) push(this.#names, tokens[0]!, { tokens, no: m.no });
    for (const id of entry.identifiers) {
      let set = this.#mentions.get(id);
      if (!set) this.#mentions.set(id, (set = new Set()));
      set.add(m.no);
    }
    if (entry.session) push(this.#turns, entry.session.session, { turn: entry.session.turn, no: m.no });
  }

  unregister(no: number): void {
    const entry = this.#registered.get(no);
    if (!entry) return;
    this.#registered.delete(no);
    for (const tokens of entry.names) remove(this.#names, tokens[0]!, (n) => n.no === no);
    for (const id of entry.identifiers) this.#mentions.get(id)?.delete(no);
    if (entry.session) remove(this.#turns, entry.session.session, (t) => t.no === no);
  }

  /** Edges for a batch of new memories, against what is registered and against each other. */
  propose(batch: readonly AutoMemory[]): AutoEdgeProposal[] {
    const overlay = new AutoEdges(this.options);
    for (const m of batch) overlay.register(m);
    const out: AutoEdgeProposal[] = [];
    const seen = new Set<string>();
    const add = (p: AutoEdgeProposal) => {
      const key = `${p.from}:${p.to}:${p.type}`;
      const pair = `${Math.min(p.from, p.to)}:${Math.max(p.from, p.to)}`;
      if (p.from === p.to || seen.has(key) || seen.has(pair)) return;
      seen.add(key);
      seen.add(pair);
      out.push(p);
    };
    for (const m of batch) {
      if (this.options.references) for (const p of [...this.#references(m), ...overlay.#references(m)].slice(0, MAX_PER_KIND)) add(p);
      if (this.options.sharedIdentifiers) for (const p of this.#shared(m, overlay).slice(0, MAX_PER_KIND)) add(p);
      if (this.options.sequence) {
        const p = this.#sequence(m, overlay);
        if (p) add(p);
      }
    }
    return out;
  }

  /** Similarity edges for a memory that just got its vector, to its nearest indexed neighbours. */
  similar(no: number, vector: Float32Array, nearest: (vector: Float32Array, k: number, accept: (n: number) => boolean) => Array<{ no: number; score: number }>): AutoEdgeProposal[] {
    const sim = this.options.similarity;
    if (!sim) return [];
    return nearest(vector, sim.max, (n) => n !== no)
      .filter((hit) => hit.score >= sim.threshold)
      .map((hit) => ({
        from: no,
        to: hit.no,
        type: hit.score >= sim.derivedFrom ? 'DERIVED_FROM' : 'RELATES_TO',
        weight: hit.score,
        by: 'similarity',
        reason: `cosine ${hit.score.toFixed(3)} ≥ ${hit.score >= sim.derivedFrom ? sim.derivedFrom : sim.threshold}`,
      }));
  }

  #references(m: AutoMemory): AutoEdgeProposal[] {
    const tokens = nameTokens(m.text);
    const out: AutoEdgeProposal[] = [];
    for (let i = 0; i < tokens.length; i++) {
      for (const name of this.#names.get(tokens[i]!) ?? []) {
        if (name.no === m.no || !name.tokens.every((t, j) => tokens[i + j] === t)) continue;
        const before = tokens.slice(Math.max(0, i - 3), i);
        const label = name.tokens.join(' ');
        if (before.some((w) => SUPERSEDE_VERBS.has(w))) {
          out.push({ from: m.no, to: name.no, type: 'SUPERSEDES', weight: 1, by: 'references', reason: `the text says it supersedes "${label}"` });
        } else if (before.at(-1) === 'by' && before.some((w) => PASSIVE_VERBS.has(w))) {
          out.push({ from: name.no, to: m.no, type: 'SUPERSEDES', weight: 1, by: 'references', reason: `the text says it was superseded by "${label}"` });
        } else {
          out.push({ from: m.no, to: name.no, type: 'REFERENCES', weight: 1, by: 'references', reason: `the text names "${label}"` });
        }
      }
    }
    return out;
  }

  #shared(m: AutoMemory, overlay: AutoEdges): AutoEdgeProposal[] {
    const out: AutoEdgeProposal[] = [];
    for (const id of identifiersIn(m.text)) {
      const others = new Set([...(this.#mentions.get(id) ?? []), ...(overlay.#mentions.get(id) ?? [])]);
      others.delete(m.no);
      if (others.size === 0 || others.size > this.options.maxShared) continue;
      for (const other of others) {
        if (other > m.no && overlay.#registered.has(other)) continue;
        out.push({ from: m.no, to: other, type: 'RELATES_TO', weight: 1 / others.size, by: 'identifier', reason: `both mention "${id}", which ${others.size + 1} memories share` });
      }
    }
    return out;
  }

  #sequence(m: AutoMemory, overlay: AutoEdges): AutoEdgeProposal | null {
    const s = sessionOf(m.metadata);
    if (!s) return null;
    let previous: { turn: number; no: number } | null = null;
    for (const t of [...(this.#turns.get(s.session) ?? []), ...(overlay.#turns.get(s.session) ?? [])]) {
      if (t.no !== m.no && t.turn < s.turn && (!previous || t.turn > previous.turn)) previous = t;
    }
    return previous ? { from: m.no, to: previous.no, type: 'FOLLOWS', weight: 1, by: 'sequence', reason: `turn ${s.turn} follows turn ${previous.turn} of session "${s.session}"` } : null;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function remove<K, V>(map: Map<K, V[]>, key: K, match: (v: V) => boolean): void {
  const list = map.get(key);
  if (!list) return;
  const kept = list.filter((v) => !match(v));
  if (kept.length > 0) map.set(key, kept);
  else map.delete(key);
}
