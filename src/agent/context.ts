import { invalid } from '../errors.js';
import { tokenize } from '../legs/lexical/tokenizer.js';
import { RECALL_KEYS } from '../memory/recall-options.js';
import { checkOneOf, checkOptions, checkPositiveInt } from '../memory/validate.js';
import type { Hit, MemoryStatus, RecallOptions } from '../types.js';

/** How `context()` renders its evidence. */
export const CONTEXT_FORMATS = ['text', 'json'] as const;
export type ContextFormat = (typeof CONTEXT_FORMATS)[number];

export interface ContextOptions extends Omit<RecallOptions, 'k' | 'explain'> {
  /** Tokens the packed evidence may take, counted with the embedding model's tokenizer. Default 2048. */
  budgetTokens?: number | undefined;
  /** Most items returned. Default 8. */
  maxItems?: number | undefined;
  /** Most items from one source (`metadata.source`, else `domain`, else `kind`). Default 3. */
  maxPerSource?: number | undefined;
  /** `text`: lines ready for a prompt; `json`: the items as a JSON string. Default `text`. */
  format?: ContextFormat | undefined;
}

export interface ContextItem {
  /** Citation id the model should use, e.g. `M1`. */
  cite: string;
  id: string;
  text: string;
  status: MemoryStatus;
  /** When the fact became true (and stopped being true), ISO dates. */
  validFrom: string;
  validTo: string | null;
  score: number;
  tokens: number;
  /** The text was cut to fit the budget. */
  truncated: boolean;
}

export interface Context {
  /** The evidence rendered in the requested format. */
  content: string;
  items: ContextItem[];
  tokens: number;
  /** `model` when the embedder's tokenizer counted, `estimate` otherwise (≈ 4 characters a token). */
  tokenizer: 'model' | 'estimate';
  /** Candidates left out, and why. */
  dropped: { duplicates: number; perSource: number; budget: number; maxItems: number };
}

export type TokenCounter = (texts: string[]) => Promise<number[]>;

export const CONTEXT_DEFAULTS = { budgetTokens: 2048, maxItems: 8, maxPerSource: 3, format: 'text' as ContextFormat };
export const CONTEXT_KEYS = ['budgetTokens', 'maxItems', 'maxPerSource', 'format'] as const satisfies ReadonlyArray<keyof ContextOptions>;
/** Near-duplicates share at least this share of their words (Jaccard over token sets). */
const DUPLICATE_JACCARD = 0.8;

export const estimateTokens: TokenCounter = async (texts) => texts.map((t) => Math.ceil(t.length / 4) + 2);

/** Splits context options from the recall options they carry. */
export function contextOptions(method: string, options: unknown): { context: typeof CONTEXT_DEFAULTS; recall: RecallOptions } {
  const o = checkOptions(method, 'options', options, [...CONTEXT_KEYS, ...RECALL_KEYS]);
  const recall: Record<string, unknown> = { ...o };
  for (const key of CONTEXT_KEYS) delete recall[key];
  if ('k' in recall || 'explain' in recall) throw invalid(method, 'options.k and options.explain are set by the context builder; use maxItems', recall.k ?? recall.explain);
  return {
    context: {
      budgetTokens: o.budgetTokens === undefined ? CONTEXT_DEFAULTS.budgetTokens : checkPositiveInt(method, 'options.budgetTokens', o.budgetTokens, 1_000_000),
      maxItems: o.maxItems === undefined ? CONTEXT_DEFAULTS.maxItems : checkPositiveInt(method, 'options.maxItems', o.maxItems, 200),
      maxPerSource: o.maxPerSource === undefined ? CONTEXT_DEFAULTS.maxPerSource : checkPositiveInt(method, 'options.maxPerSource', o.maxPerSource, 200),
      format: o.format === undefined ? CONTEXT_DEFAULTS.format : checkOneOf(method, 'options.format', o.format, CONTEXT_FORMATS),
    },
    recall: recall as RecallOptions,
  };
}

function sourceOf(hit: Hit): string {
  const source = hit.metadata.source;
  return typeof source === 'string' ? `source:${source}` : hit.domain ? `domain:${hit.domain}` : hit.kind ? `kind:${hit.kind}` : `id:${hit.id}`;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / Math.max(1, a.size + b.size - shared);
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function renderItem(item: ContextItem): string {
  const when = item.validTo ? `valid ${item.validFrom} → ${item.validTo}` : `since ${item.validFrom}`;
  return `[${item.cite}] (${item.status}, ${when}) ${item.text}`;
}

/**
 * Packs recall hits into prompt evidence: near-duplicates removed, at most `maxPerSource` per
 * source, each item tagged with a citation id, status and dates, cut to the token budget. Items
 * are kept in rank order; one that does not fit is skipped so a later, shorter one can, and the
 * first item is truncated rather than dropped when it alone exceeds the budget.
 */
export async function buildContext(hits: readonly Hit[], o: typeof CONTEXT_DEFAULTS, count: TokenCounter | null): Promise<Context> {
  const counter = count ?? estimateTokens;
  const dropped = { duplicates: 0, perSource: 0, budget: 0, maxItems: 0 };
  const kept: Array<{ hit: Hit; words: Set<string> }> = [];
  const perSource = new Map<string, number>();
  for (const hit of hits) {
    const words = new Set(tokenize(hit.text));
    if (kept.some((k) => jaccard(k.words, words) >= DUPLICATE_JACCARD)) {
      dropped.duplicates++;
      continue;
    }
    const source = sourceOf(hit);
    if ((perSource.get(source) ?? 0) >= o.maxPerSource) {
      dropped.perSource++;
      continue;
    }
    perSource.set(source, (perSource.get(source) ?? 0) + 1);
    kept.push({ hit, words });
  }
  const drafts: ContextItem[] = kept.map(({ hit }, i) => ({
    cite: `M${i + 1}`,
    id: hit.id,
    text: hit.text,
    status: hit.status,
    validFrom: isoDay(hit.validFrom),
    validTo: hit.validTo === null ? null : isoDay(hit.validTo),
    score: hit.score,
    tokens: 0,
    truncated: false,
  }));
  const sizes = await counter(drafts.map(renderItem));
  const items: ContextItem[] = [];
  let used = 0;
  for (const [i, draft] of drafts.entries()) {
    if (items.length >= o.maxItems) {
      dropped.maxItems = drafts.length - i;
      break;
    }
    let item = { ...draft, cite: `M${items.length + 1}`, tokens: sizes[i]! };
    if (used + item.tokens > o.budgetTokens && items.length === 0) item = await truncateToFit(item, o.budgetTokens, counter);
    if (used + item.tokens > o.budgetTokens) {
      dropped.budget++;
      continue;
    }
    used += item.tokens;
    items.push(item);
  }
  const content = o.format === 'json' ? JSON.stringify(items.map(({ tokens: _t, score: _s, ...rest }) => rest)) : items.map(renderItem).join('\n');
  return { content, items, tokens: used, tokenizer: count ? 'model' : 'estimate', dropped };
}

/** Shortens an item's text until its rendered line fits, by halving then stepping back up. */
async function truncateToFit(item: ContextItem, budget: number, count: TokenCounter): Promise<ContextItem> {
  let lo = 0;
  let hi = item.text.length;
  let best = { ...item, text: '', tokens: (await count([renderItem({ ...item, text: '…' })]))[0]!, truncated: true };
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const candidate = { ...item, text: `${item.text.slice(0, mid)}…`, truncated: true };
    const tokens = (await count([renderItem(candidate)]))[0]!;
    if (tokens <= budget) {
      best = { ...candidate, tokens };
      lo = mid;
    } else hi = mid - 1;
  }
  return best;
}

/** What an answer may cite: a `context()` result, or anything with the same `items` (a tool result). */
export interface CitationEvidence {
  items: ReadonlyArray<{ cite: string; id: string }>;
}

export interface CitationReport {
  /** Every citation found in the text, in order of first appearance. */
  cited: string[];
  /** Cited ids that were in the evidence given (citation ids and memory ids both count). */
  valid: string[];
  /** Cited ids the evidence never contained: the answer cites something it was not shown. */
  unknown: string[];
  /** Memory ids behind the valid citations. */
  memoryIds: string[];
  ok: boolean;
}

/**
 * Checks an answer's citations (`[M2]` or `[adr-007]`) against the evidence it was given, so an
 * app can refuse an answer that cites what was never in its context.
 */
export function checkCitations(method: string, text: unknown, evidence: unknown): CitationReport {
  if (typeof text !== 'string') throw invalid(method, 'text must be a string', text);
  const allowed = new Map<string, string>();
  if (Array.isArray(evidence)) {
    for (const [i, id] of evidence.entries()) {
      if (typeof id !== 'string') throw invalid(method, `contextOrIds[${i}] must be a string`, id);
      allowed.set(id, id);
    }
  } else if (evidence && typeof evidence === 'object' && Array.isArray((evidence as CitationEvidence).items)) {
    for (const [i, item] of (evidence as CitationEvidence).items.entries()) {
      if (item === null || typeof item !== 'object' || typeof item.cite !== 'string' || typeof item.id !== 'string') {
        throw invalid(method, `contextOrIds.items[${i}] must be a context item with a string cite and id`, item);
      }
      allowed.set(item.cite, item.id);
      allowed.set(item.id, item.id);
    }
  } else {
    throw invalid(method, 'contextOrIds must be a context from context() or an array of ids', evidence);
  }
  const cited = [...new Set([...text.matchAll(/\[([^\[\]\s]{1,128})\]/g)].map((m) => m[1]!))];
  const valid = cited.filter((c) => allowed.has(c));
  const unknown = cited.filter((c) => !allowed.has(c));
  return { cited, valid, unknown, memoryIds: [...new Set(valid.map((c) => allowed.get(c)!))], ok: unknown.length === 0 };
}
