/**
 * One function per tool: arguments already validated against the tool's schema, the
 * `HybridMemory` call, and the trimmed result.
 */
import { HybridMindError } from '../errors.js';
import type { ContextItem, ContextOptions } from './context.js';
import type { HybridMemory } from '../hybrid-memory.js';
import type { MemoryInput, RecallFilter, RecallOptions } from '../types.js';
import type { ToolName } from './definitions.js';
import { toToolHit, type ToolHit } from './results.js';

/** The default `k` of memory_recall: a model reads every hit, so fewer than the library's 10. */
export const TOOL_RECALL_K = 5;

export type Args = Record<string, unknown>;

export interface StoreResult { id: string; superseded: string[] }
export interface RecallResult { hits: ToolHit[] }
export interface RelateResult { edgeId: string; from: string; to: string; type: string; toStatus: string | null }
export interface ForgetResult { id: string; forgotten: true }
/**
 * memory_context's answer. `items` maps each citation id to its memory (so the model can relate or
 * supersede what it cites) and makes the result itself valid evidence for `mem.checkCitations`.
 */
export type ContextResult =
  | { context: string; items: Array<Pick<ContextItem, 'cite' | 'id' | 'status'>>; tokens: number }
  | { items: Array<Omit<ContextItem, 'tokens' | 'score'>>; tokens: number };

export const HANDLERS: Record<ToolName, (mem: HybridMemory, args: Args) => Promise<object>> = {
  memory_store: store,
  memory_recall: recall,
  memory_relate: relate,
  memory_forget: forget,
  memory_context: context,
};

async function store(mem: HybridMemory, args: Args): Promise<StoreResult> {
  const supersedes = (args['supersedes'] as string[] | undefined) ?? [];
  // Checked before the write, so an unknown id leaves nothing half done.
  for (const [i, old] of supersedes.entries()) {
    if ((await mem.get(old)) === null) throw new HybridMindError('NOT_FOUND', 'memory_store', `supersedes[${i}]: memory ${JSON.stringify(old)} does not exist`);
  }
  const input: MemoryInput = { text: args['text'] as string };
  for (const key of ['id', 'kind', 'domain', 'metadata', 'validFrom', 'validTo'] as const) {
    if (args[key] !== undefined) (input as unknown as Args)[key] = args[key];
  }
  const id = await mem.store(input);
  const superseded: string[] = [];
  for (const old of new Set(supersedes)) {
    await mem.relate(id, old, 'SUPERSEDES');
    superseded.push(old);
  }
  return { id, superseded };
}

async function recall(mem: HybridMemory, args: Args): Promise<RecallResult> {
  const options: RecallOptions = { k: (args['k'] as number | undefined) ?? TOOL_RECALL_K };
  if (args['mode'] !== undefined) options.mode = args['mode'] as RecallOptions['mode'];
  if (args['asOf'] !== undefined) options.asOf = args['asOf'] as string;
  if (args['includeHistorical'] !== undefined) options.includeHistorical = args['includeHistorical'] as boolean;
  if (args['anchors'] !== undefined) options.anchors = args['anchors'] as string[];
  if (args['depth'] !== undefined) options.depth = args['depth'] as number;
  const filter: RecallFilter = {};
  if (args['kind'] !== undefined) filter.kind = args['kind'] as Array<string | null>;
  if (args['domain'] !== undefined) filter.domain = args['domain'] as Array<string | null>;
  if (args['metadata'] !== undefined) filter.metadata = args['metadata'] as Args;
  if (Object.keys(filter).length > 0) options.filter = filter;
  const hits = await mem.recall(args['query'] as string, options);
  return { hits: hits.map(toToolHit) };
}

async function relate(mem: HybridMemory, args: Args): Promise<RelateResult> {
  const from = args['from'] as string;
  const to = args['to'] as string;
  const type = args['type'] as string;
  const edgeId = await mem.relate(from, to, type, args['weight'] === undefined ? {} : { weight: args['weight'] as number });
  const target = await mem.get(to);
  return { edgeId, from, to, type, toStatus: target?.status ?? null };
}

async function forget(mem: HybridMemory, args: Args): Promise<ForgetResult> {
  const id = args['id'] as string;
  await mem.forget(id);
  return { id, forgotten: true };
}

async function context(mem: HybridMemory, args: Args): Promise<ContextResult> {
  const { query, ...options } = args;
  const packed = await mem.context(query as string, options as ContextOptions);
  // json: the model wants the items as data, not as a JSON string inside JSON.
  if (args['format'] === 'json') return { items: packed.items.map(({ tokens: _t, score: _s, ...item }) => item), tokens: packed.tokens };
  return { context: packed.content, items: packed.items.map(({ cite, id, status }) => ({ cite, id, status })), tokens: packed.tokens };
}
