import { HybridMindError, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { statusAt } from '../legs/time/temporal.js';
import type { EdgeRow, MemoryRow, NewMemory } from '../storage/repository.js';
import { entryOf, NO_METADATA } from './catalog-entry.js';
import type { Edge, MemoryInput, MemoryPatch, MemoryRecord, Metadata, Readiness } from '../types.js';
import {
  checkId,
  checkKeys,
  checkMetadata,
  checkOptionalLabel,
  checkOptionalTime,
  checkText,
  checkTime,
  isPlainObject,
  keysOf,
  normalizedVector,
} from './validate.js';

/** A checked memory input, ready to insert. */
export interface PreparedMemory {
  row: NewMemory;
  vector: Float32Array | null;
}

export const INPUT_KEYS = keysOf<MemoryInput>({ text: true, id: true, kind: true, domain: true, metadata: true, createdAt: true, validFrom: true, validTo: true, embedding: true });
const PATCH_KEYS = keysOf<MemoryPatch>({ text: true, kind: true, domain: true, metadata: true, validFrom: true, validTo: true, embedding: true });

function checkWindow(method: string, name: string, validFrom: number, validTo: number | null): void {
  if (validTo !== null && validTo <= validFrom) {
    throw invalid(method, `${name}.validTo must be after validFrom (${new Date(validFrom).toISOString()})`, new Date(validTo).toISOString());
  }
}

/**
 * Checks one `store()` input; `name` is how the message refers to it (`input`, `inputs[3]`), and
 * `take` where its normalised vector goes (see `normalizedVector`).
 */
export function prepareMemory(method: string, name: string, input: unknown, now: number, dim: number | null, take?: (length: number) => Float32Array): PreparedMemory {
  if (!isPlainObject(input)) throw invalid(method, `${name} must be an object with a text`, input);
  checkKeys(method, name, input, INPUT_KEYS);
  const m = input as unknown as MemoryInput;
  const text = checkText(method, `${name}.text`, m.text);
  const id = m.id === undefined ? newId() : checkId(method, `${name}.id`, m.id);
  const createdAt = m.createdAt === undefined ? now : checkTime(method, `${name}.createdAt`, m.createdAt);
  const validFrom = checkOptionalTime(method, `${name}.validFrom`, m.validFrom) ?? createdAt;
  const validTo = m.validTo === undefined || m.validTo === null ? null : checkTime(method, `${name}.validTo`, m.validTo);
  checkWindow(method, name, validFrom, validTo);
  const vector = m.embedding === undefined ? null : normalizedVector(method, `${name}.embedding`, m.embedding, dim, take);
  return {
    row: {
      id,
      text,
      kind: checkOptionalLabel(method, `${name}.kind`, m.kind),
      domain: checkOptionalLabel(method, `${name}.domain`, m.domain),
      metadata: JSON.stringify(checkMetadata(method, `${name}.metadata`, m.metadata)),
      created_at: createdAt,
      valid_from: validFrom,
      valid_to: validTo,
    },
    vector,
  };
}

/** Applies a checked patch to a row; returns the new row and, if given, the new vector. */
export function applyPatch(method: string, row: MemoryRow, patch: unknown, dim: number | null): { row: MemoryRow; vector: Float32Array | null } {
  if (!isPlainObject(patch)) throw invalid(method, 'patch must be an object', patch);
  checkKeys(method, 'patch', patch, PATCH_KEYS);
  // An undefined field leaves the value as it is, so a patch of only undefined fields changes nothing.
  if (Object.values(patch).every((value) => value === undefined)) throw invalid(method, 'patch must change at least one field (an undefined field leaves it as it is; null clears it)', patch);
  const p = patch as MemoryPatch;
  const next: MemoryRow = { ...row };
  if (p.text !== undefined) next.text = checkText(method, 'patch.text', p.text);
  if (p.kind !== undefined) next.kind = checkOptionalLabel(method, 'patch.kind', p.kind);
  if (p.domain !== undefined) next.domain = checkOptionalLabel(method, 'patch.domain', p.domain);
  if (p.metadata !== undefined) next.metadata = JSON.stringify(checkMetadata(method, 'patch.metadata', p.metadata));
  if (p.validFrom !== undefined) next.valid_from = checkTime(method, 'patch.validFrom', p.validFrom);
  if (p.validTo !== undefined) next.valid_to = p.validTo === null ? null : checkTime(method, 'patch.validTo', p.validTo);
  checkWindow(method, 'patch', Number(next.valid_from), next.valid_to === null ? null : Number(next.valid_to));
  const vector = p.embedding === undefined ? null : normalizedVector(method, 'patch.embedding', p.embedding, dim);
  return { row: next, vector };
}

export function toRecord(row: MemoryRow, reference: number, readiness: Readiness): MemoryRecord {
  const entry = entryOf(row);
  const { id, kind, domain, createdAt, validFrom, validTo } = entry;
  // The caller's own object, not the catalog's shared empty one (any other was parsed just now).
  const metadata = entry.metadata === NO_METADATA ? {} : entry.metadata;
  return { id, text: row.text, kind, domain, metadata, createdAt, validFrom, validTo, status: statusAt({ createdAt, validFrom, validTo }, reference), readiness };
}

export function toEdge(row: EdgeRow, idOf: (no: number) => string): Edge {
  return {
    id: row.id,
    from: idOf(Number(row.src)),
    to: idOf(Number(row.dst)),
    type: row.type,
    weight: Number(row.weight),
    metadata: JSON.parse(row.metadata) as Metadata,
    validFrom: Number(row.valid_from),
    createdAt: Number(row.created_at),
  };
}

/**
 * Checks a batch of inputs for `store` / `storeMany`, all of them before either engine looks for
 * ids it already holds, and refuses one id given twice. Returns them with the batch's dimension
 * (the store's, or the first embedding's).
 */
export function prepareBatch(method: string, name: string, inputs: unknown[], now: number, dim: number | null, take?: (length: number) => Float32Array): { prepared: PreparedMemory[]; dim: number | null } {
  const prepared: PreparedMemory[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < inputs.length; i++) {
    const p = prepareMemory(method, inputs.length === 1 && name === 'input' ? name : `${name}[${i}]`, inputs[i], now, dim, take);
    if (seen.has(p.row.id)) throw duplicateId(method, p.row.id);
    seen.add(p.row.id);
    dim ??= p.vector?.length ?? null;
    prepared.push(p);
  }
  return { prepared, dim };
}

export function duplicateId(method: string, id: string): HybridMindError {
  return new HybridMindError('CONFLICT', method, `a memory with id ${JSON.stringify(id)} already exists`);
}
