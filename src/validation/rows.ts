import type { EdgeRow, MemoryRow } from '../storage/repository.js';
import {
  edgeTypeProblem, idProblem, labelProblem, metadataTextProblem, textProblem, timeProblem, validityProblem, vectorBlobProblem,
} from './rules.js';

/** The rows of a database that came from outside: a snapshot's store.db, raw bytes, a Durable Object import. */
export interface RowsToCheck {
  memories: MemoryRow[];
  edges: EdgeRow[];
  vectors: Array<{ no: number; bytes: Uint8Array }>;
  dim: number | null;
}

const MAX_DIM = 65_536;

/**
 * The first row the API would not have written, described, or null. SQLite enforces neither
 * column types nor this library's rules, so a crafted database can hold rows no call could make:
 * an id no call can reach, a time a Date cannot show, a blob the vector kernel misreads.
 */
export function rowProblem(rows: RowsToCheck): string | null {
  if (rows.dim !== null && !(Number.isSafeInteger(rows.dim) && rows.dim > 0 && rows.dim <= MAX_DIM)) return `the recorded vector dimension ${String(rows.dim)} is not an integer from 1 to ${MAX_DIM}`;
  for (const m of rows.memories) {
    const problem = memoryProblem(m);
    if (problem) return `memory row ${String(m.no)}: ${problem}`;
  }
  for (const e of rows.edges) {
    const problem = edgeProblem(e);
    if (problem) return `edge row ${String(e.no)}: ${problem}`;
  }
  for (const v of rows.vectors) {
    const problem = vectorBlobProblem(v.bytes, rows.dim);
    if (problem) return `vector of memory ${v.no}: the blob ${problem}`;
  }
  return null;
}

function field(name: string, problem: string | null): string | null {
  return problem === null ? null : `${name} ${problem}`;
}

function memoryProblem(m: MemoryRow): string | null {
  if (!Number.isSafeInteger(m.no) || m.no < 1) return 'no must be a positive integer';
  return field('id', idProblem(m.id))
    ?? field('text', textProblem(m.text))
    ?? (m.kind === null ? null : field('kind', labelProblem(m.kind)))
    ?? (m.domain === null ? null : field('domain', labelProblem(m.domain)))
    ?? field('metadata', metadataTextProblem(m.metadata))
    ?? field('created_at', timeProblem(m.created_at))
    ?? field('valid_from', timeProblem(m.valid_from))
    ?? (m.valid_to === null ? null : field('valid_to', timeProblem(m.valid_to)))
    ?? validityProblem(m.valid_from, m.valid_to);
}

function edgeProblem(e: EdgeRow): string | null {
  if (!Number.isSafeInteger(e.no) || e.no < 1) return 'no must be a positive integer';
  if (!Number.isSafeInteger(e.src) || !Number.isSafeInteger(e.dst)) return 'src and dst must be memory numbers';
  if (e.src === e.dst) return 'a memory cannot be related to itself (src = dst)';
  if (typeof e.weight !== 'number' || !Number.isFinite(e.weight) || e.weight <= 0) return 'weight must be a finite number > 0';
  if (e.closes_valid_to !== 0 && e.closes_valid_to !== 1) return 'closes_valid_to must be 0 or 1';
  return field('id', idProblem(e.id))
    ?? field('type', edgeTypeProblem(e.type))
    ?? field('metadata', metadataTextProblem(e.metadata))
    ?? field('valid_from', timeProblem(e.valid_from))
    ?? field('created_at', timeProblem(e.created_at))
    ?? (e.prior_valid_to === null ? null : field('prior_valid_to', timeProblem(e.prior_valid_to)));
}
