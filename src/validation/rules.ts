/**
 * The value rules every door applies: API arguments (`memory/validate.ts`), MCP tool calls
 * (through the API), snapshot rows, raw database bytes and the Durable Object import
 * (`validation/rows.ts`). Each rule answers with what is wrong, or null, so each door can raise
 * its own coded error (INVALID_ARGUMENT for an argument, CORRUPT for a row) from one rule.
 */

export const MAX_ID_LENGTH = 512;
export const MAX_TEXT_LENGTH = 1_000_000;
export const MAX_LABEL_LENGTH = 256;
/**
 * Queries are bounded so one call's cost is: far beyond a question or a pasted paragraph, and the
 * embedder reads only the first 256 tokens anyway.
 */
export const MAX_QUERY_LENGTH = 100_000;
/** The range a JavaScript Date can show (±100,000,000 days around 1970), in epoch ms. */
export const MAX_TIME_MS = 8.64e15;
export const EDGE_TYPE_PATTERN = /^[A-Za-z][A-Za-z0-9_:.-]{0,63}$/;

// With the u flag a surrogate pair is one code point, so \p{Cs} matches only a lone surrogate.
const UNSTORABLE = /[\p{Cs}\u0000]/u;

/**
 * Whether both engines store the string exactly as given. A lone UTF-16 surrogate has no UTF-8
 * encoding: SQLite and PostgreSQL would keep U+FFFD instead, so the stored id or text would differ
 * from the one acknowledged. PostgreSQL's text and jsonb cannot hold U+0000 at all, and a memory
 * one engine accepted must move to the other unchanged (snapshots, `syncWith`).
 */
function isStorable(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** What keeps a string from being stored as given (see `isStorable`), or null. */
function storableProblem(value: string): string | null {
  const found = UNSTORABLE.exec(value);
  if (found === null) return null;
  return found[0] === '\u0000' ? 'must not hold U+0000 (NUL), which PostgreSQL cannot store' : 'must be well-formed Unicode (it holds a lone UTF-16 surrogate)';
}

export function idProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH || value.trim() !== value) {
    return `must be a non-empty string of at most ${MAX_ID_LENGTH} characters without surrounding spaces`;
  }
  return storableProblem(value);
}

export function textProblem(value: unknown, max = MAX_TEXT_LENGTH): string | null {
  if (typeof value !== 'string' || value.trim().length === 0) return 'must be a non-empty string';
  if (value.length > max) return `must be at most ${max} characters (it has ${value.length})`;
  return storableProblem(value);
}

/** A kind or domain when present (null means none). */
export function labelProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LABEL_LENGTH) return `must be a non-empty string of at most ${MAX_LABEL_LENGTH} characters`;
  return storableProblem(value);
}

export function edgeTypeProblem(value: unknown): string | null {
  if (typeof value !== 'string' || !EDGE_TYPE_PATTERN.test(value)) {
    return 'must be a word of letters, digits, _ : . - (at most 64, starting with a letter), e.g. "DEPENDS_ON"';
  }
  return null;
}

/** Epoch ms as stored: an integer a Date can show. */
export function timeProblem(value: unknown): string | null {
  if (!Number.isSafeInteger(value) || Math.abs(value as number) > MAX_TIME_MS) return `must be an integer number of ms within ±${MAX_TIME_MS} (what a Date can show)`;
  return null;
}

export function validityProblem(validFrom: number, validTo: number | null): string | null {
  return validTo !== null && validTo <= validFrom ? 'validTo must be after validFrom' : null;
}

/** The first string or key of a JSON value that `isStorable` refuses, as a path, or null. */
export function unstorablePath(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return isStorable(value) ? null : path || '(the value)';
  if (value === null || typeof value !== 'object') return null;
  for (const [key, v] of Object.entries(value)) {
    const at = Array.isArray(value) ? `${path}[${key}]` : `${path}${path ? '.' : ''}${key}`;
    if (!isStorable(key)) return at;
    const found = unstorablePath(v, at);
    if (found !== null) return found;
  }
  return null;
}

/** Stored metadata: JSON text of a plain object whose strings and keys are storable. */
export function metadataTextProblem(text: unknown): string | null {
  if (typeof text !== 'string' || !isStorable(text)) return 'must be JSON text';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'must be JSON text';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be a JSON object';
  const bad = unstorablePath(value);
  return bad === null ? null : `holds a lone UTF-16 surrogate or U+0000 at ${bad}`;
}

/** A stored vector blob: exactly `dim` float32 values. */
export function vectorBlobProblem(bytes: unknown, dim: number | null): string | null {
  if (dim === null) return 'exists but the store records no dimension';
  if (!(bytes instanceof Uint8Array) || bytes.byteLength !== dim * 4) return `must be ${dim} float32 values (${dim * 4} bytes)`;
  return null;
}
