import { HybridMindError, type ErrorCode } from 'hybridmind/edge';

/** Error codes of the HTTP layer itself, beside the library's own (`HybridMindError.code`). */
export type HttpErrorCode = 'ROUTE_NOT_FOUND' | 'METHOD_NOT_ALLOWED' | 'INVALID_NAME' | 'INVALID_JSON' | 'PAYLOAD_TOO_LARGE' | 'INTERNAL';

/** A failure the HTTP layer reports before (or instead of) calling the library. */
export class HttpError extends Error {
  constructor(readonly status: number, readonly code: HttpErrorCode | ErrorCode, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
  }
}

/** Each library code has one status, so clients can branch on either. */
const STATUS: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  MODEL_MISMATCH: 409,
  DIMENSION_MISMATCH: 422,
  CORRUPT: 422,
  UNSUPPORTED: 422,
  EMBEDDER: 502,
  STORAGE: 500,
  CLOSED: 503,
  BUSY: 503,
  MISSING_DEPENDENCY: 500,
};

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

/** Every failure becomes `{ error: { code, message } }` with a 4xx for the caller's mistakes, 5xx for ours. */
export function errorResponse(error: unknown): Response {
  if (error instanceof HttpError) return json({ error: { code: error.code, message: error.message } }, error.status, error.headers);
  if (error instanceof HybridMindError) return json({ error: { code: error.code, message: error.message } }, STATUS[error.code] ?? 500);
  return json({ error: { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) } }, 500);
}

/** The request body as bytes, refused past `limit` before and while it is read. */
export async function readBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > limit) throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `the body is ${declared} bytes, the limit is ${limit}`);
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.length > limit) throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `the body is ${bytes.length} bytes, the limit is ${limit}`);
  return bytes;
}

export async function readJsonObject(request: Request, limit: number): Promise<Record<string, unknown>> {
  const bytes = await readBytes(request, limit);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new HttpError(400, 'INVALID_JSON', `the body is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new HttpError(400, 'INVALID_ARGUMENT', 'the body must be a JSON object');
  return value as Record<string, unknown>;
}

/** JSON has no Float32Array: vectors travel as arrays of numbers. */
export function toVector(name: string, value: unknown): Float32Array | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((x) => typeof x !== 'number')) throw new HttpError(400, 'INVALID_ARGUMENT', `${name} must be an array of numbers`);
  return Float32Array.from(value as number[]);
}
