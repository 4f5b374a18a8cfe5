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

/** Where a value JSON would change, or `isStorable` refuses, sits; what it is; the value found there. */
export interface JsonValueProblem {
  /** From the value's root: `.a.b[0]`. */
  path: string;
  problem: string;
  found: unknown;
  /** A string or key `isStorable` refuses (a lone UTF-16 surrogate or U+0000), not a value JSON would change. */
  unstorable: boolean;
}

/**
 * How deep metadata may nest, counting the metadata object itself: MongoDB's limit for a
 * document. Without one, deep nesting was refused only where `JSON.stringify` ran out of stack
 * (Node 20, at 5,000 levels) and stored where it does not (Node 26), so whether a memory could be
 * stored depended on the runtime.
 */
export const MAX_METADATA_DEPTH = 100;

/**
 * The first place inside `value`, depth first, holding a string or key `isStorable` refuses, a
 * value JSON would drop or change, or an object or array nested deeper than `maxDepth`; or null.
 * Metadata is stored as JSON text, so a function or symbol would vanish, NaN and Infinity would
 * come back as null and a Map or class instance as `{}`, all without a word, while the worker
 * client refuses a function or symbol outright because the structured clone cannot copy it:
 * refusing them here gives one answer on every transport. A valid Date is kept as the ISO-8601
 * string JSON writes for it, and an undefined property is absent, as in JSON. One walk without
 * recursion serves arguments and stored rows alike, however deep (stored rows are read with no
 * depth limit, so a store written before it still opens). Cycles are left to `JSON.stringify`,
 * which names them; the walk visits each object once, so it ends on them too.
 */
export function jsonValueProblem(value: unknown, maxDepth = Infinity): JsonValueProblem | null {
  const seen = new Set<object>();
  // Each entry: a value, its path, the key it sits under (checked when it is reached, so keys and
  // values go depth first) and how many objects and arrays hold it.
  const stack: Array<[unknown, string, string | null, number]> = [[value, '', null, 0]];
  while (stack.length > 0) {
    const [v, path, key, depth] = stack.pop()!;
    if (key !== null && !isStorable(key)) return { path, problem: 'has a key with a lone UTF-16 surrogate or a NUL', found: key, unstorable: true };
    if (typeof v === 'string' && !isStorable(v)) return { path, problem: 'has a lone UTF-16 surrogate or a NUL', found: v, unstorable: true };
    const problem = jsonLeafProblem(v);
    if (problem !== null) return { path, problem, found: v, unstorable: false };
    if (typeof v !== 'object' || v === null || v instanceof Date || seen.has(v)) continue;
    if (depth === maxDepth) return { path, problem: `nests deeper than ${maxDepth} objects and arrays`, found: v, unstorable: false };
    seen.add(v);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        if (v[i] === undefined) return { path: `${path}[${i}]`, problem: 'is undefined or a hole, which JSON writes as null', found: undefined, unstorable: false };
        stack.push([v[i], `${path}[${i}]`, null, depth + 1]);
      }
    } else {
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], `${path}.${entries[i]![0]}`, entries[i]![0], depth + 1]);
    }
  }
  return null;
}

function jsonLeafProblem(v: unknown): string | null {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(v) ? null : `is ${v}, which JSON writes as null`;
    case 'object':
      if (v === null || Array.isArray(v)) return null;
      if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'is an invalid Date, which JSON writes as null' : null;
      return isPlainObject(v) ? null : `is an instance of ${v.constructor?.name || 'a class'}, which JSON would not keep`;
    default:
      return `is a ${typeof v}, which JSON would drop`;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
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
  const bad = jsonValueProblem(value);
  if (bad === null) return null;
  // Besides unstorable text, parsed JSON can only hold a number too large for a double (1e400
  // reads as Infinity), which the API never writes and a later export would write as null.
  return `holds ${bad.unstorable ? 'a lone UTF-16 surrogate or U+0000' : 'a number a double cannot keep'} at ${bad.path.slice(1)}`;
}

/** A stored vector blob: exactly `dim` float32 values. */
export function vectorBlobProblem(bytes: unknown, dim: number | null): string | null {
  if (dim === null) return 'exists but the store records no dimension';
  if (!(bytes instanceof Uint8Array) || bytes.byteLength !== dim * 4) return `must be ${dim} float32 values (${dim * 4} bytes)`;
  return null;
}
