import { invalid } from '../errors.js';
import type { MemoryRecord } from '../types.js';
import { labelProblem } from '../validation/rules.js';
import type { Catalog } from './catalog.js';
import type { EntryFilter } from './catalog-entry.js';
import { checkId, checkNonNegativeInt, checkOptions, checkPositiveInt, keysOf } from './validate.js';

/** Which memories `list()` returns and which page of them. */
export interface ListOptions {
  /** Memories to skip, in storage order. Default 0. */
  offset?: number | undefined;
  /** Page size, 1–1000. Default 50. */
  limit?: number | undefined;
  /** Only memories of this kind; `null`: only those without a kind. */
  kind?: string | null | undefined;
  /** Only memories of this domain; `null`: only those without a domain. */
  domain?: string | null | undefined;
  /** Only memories whose id starts with this (case-sensitive). */
  idPrefix?: string | undefined;
}

/** One page of `list()`: the records and how many memories match in all. */
export interface MemoryPage {
  records: MemoryRecord[];
  total: number;
}

export const LIST_KEYS = keysOf<ListOptions>({ offset: true, limit: true, kind: true, domain: true, idPrefix: true });
export const LIST_DEFAULT_LIMIT = 50;
export const LIST_MAX_LIMIT = 1000;

interface CheckedList extends EntryFilter {
  offset: number;
  limit: number;
}

export function checkList(method: string, options: unknown): CheckedList {
  const o = checkOptions(method, 'options', options, LIST_KEYS);
  return {
    offset: o.offset === undefined ? 0 : checkNonNegativeInt(method, 'options.offset', o.offset, Number.MAX_SAFE_INTEGER),
    limit: o.limit === undefined ? LIST_DEFAULT_LIMIT : checkPositiveInt(method, 'options.limit', o.limit, LIST_MAX_LIMIT),
    kind: listedLabel(method, 'kind', o.kind),
    domain: listedLabel(method, 'domain', o.domain),
    idPrefix: o.idPrefix === undefined ? null : checkId(method, 'options.idPrefix', o.idPrefix),
  };
}

/**
 * A kind or domain to list by: `null` lists the memories without one (as `update` clears it with
 * null), left out lists them all.
 */
function listedLabel(method: string, field: 'kind' | 'domain', value: unknown): string | null | undefined {
  if (value === undefined || value === null) return value;
  const problem = labelProblem(value);
  if (problem) throw invalid(method, `options.${field} ${problem} (leave it out to list every ${field})`, value);
  return value as string;
}

/**
 * A page of the catalog in storage order, filtered without reading SQLite; only the page's rows
 * are read, through `record`.
 */
export function listMemories(catalog: Catalog, options: unknown, record: (no: number) => MemoryRecord): MemoryPage {
  const { offset, limit, ...filter } = checkList('list', options);
  const { nos, total } = catalog.page(filter, offset, limit);
  return { records: nos.map(record), total };
}
