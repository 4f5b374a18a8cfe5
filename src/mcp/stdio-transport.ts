/**
 * MCP over stdio (newline-delimited JSON-RPC 2.0) that answers every bad line instead of dropping
 * it or closing. The SDK's `StdioServerTransport` closes the transport on one line over its
 * buffer limit (the server then exits) and hands parse and schema failures to `onerror` without
 * a reply; a client then waits forever. Here:
 * - a line over `maxLineBytes` is skipped to its newline and answered with -32600;
 * - a line that is not JSON is answered with -32700 (parse error);
 * - JSON that is not a JSON-RPC 2.0 message (batches included: MCP has none) with -32600;
 * - a request whose params do not fit its method's schema with -32602 and a one-line reason,
 *   before it reaches the server (the SDK would answer -32603 with the whole schema report).
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema, ErrorCode, InitializeRequestSchema, JSONRPCMessageSchema, ListToolsRequestSchema, PingRequestSchema, type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

export interface StdioTransportOptions {
  /** Longest line read; a longer one is skipped and answered with -32600. Default 10 MiB. */
  maxLineBytes?: number | undefined;
}

const NEWLINE = 0x0a;

interface Issue {
  path: PropertyKey[];
  message: string;
}

const firstIssue = (result: { success: boolean; error?: { issues: Issue[] } | undefined }): Issue | null => (result.success ? null : result.error?.issues[0] ?? { path: [], message: 'they do not fit the method' });

/** The methods this server answers, with their params schemas (the ones the SDK's server parses with). */
const PARAMS: ReadonlyMap<string, (request: unknown) => Issue | null> = new Map([
  ['initialize', (r: unknown) => firstIssue(InitializeRequestSchema.safeParse(r))],
  ['tools/call', (r: unknown) => firstIssue(CallToolRequestSchema.safeParse(r))],
  ['tools/list', (r: unknown) => firstIssue(ListToolsRequestSchema.safeParse(r))],
  ['ping', (r: unknown) => firstIssue(PingRequestSchema.safeParse(r))],
]);

type Id = string | number | null;

export class StdioJsonRpcTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #max: number;
  #pieces: Buffer[] = [];
  #size = 0;
  #skipping = false;
  #closed = false;

  constructor(stdin: Readable, stdout: Writable, options: StdioTransportOptions = {}) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#max = options.maxLineBytes ?? 10 * 1024 * 1024;
  }

  async start(): Promise<void> {
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('error', this.#onError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return;
    const line = `${JSON.stringify(message)}\n`;
    if (!this.#stdout.write(line)) await new Promise<void>((resolve) => this.#stdout.once('drain', resolve));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('error', this.#onError);
    this.#pieces = [];
    this.onclose?.();
  }

  readonly #onError = (error: Error): void => this.onerror?.(error);

  readonly #onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let from = 0;
    for (let nl = data.indexOf(NEWLINE, from); nl !== -1; nl = data.indexOf(NEWLINE, from)) {
      this.#take(data.subarray(from, nl));
      const line = this.#skipping ? null : Buffer.concat(this.#pieces, this.#size);
      const skipped = this.#skipping;
      this.#pieces = [];
      this.#size = 0;
      this.#skipping = false;
      from = nl + 1;
      if (skipped) this.#reply(null, ErrorCode.InvalidRequest, `Invalid Request: the message is over ${this.#max} bytes`);
      else this.#line(line!.toString('utf8'));
    }
    this.#take(data.subarray(from));
  };

  /** Buffers part of the current line, or drops it once the line is over the limit. */
  #take(part: Buffer): void {
    if (this.#skipping || part.length === 0) return;
    if (this.#size + part.length > this.#max) {
      this.#skipping = true;
      this.#pieces = [];
      this.#size = 0;
      return;
    }
    this.#pieces.push(part);
    this.#size += part.length;
  }

  #line(text: string): void {
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#reply(null, ErrorCode.ParseError, 'Parse error: the line is not JSON');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    const id = idOf(value);
    if (!parsed.success) {
      this.#reply(id, ErrorCode.InvalidRequest, Array.isArray(value) ? 'Invalid Request: batches are not part of MCP' : 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    const method = (value as { method?: unknown }).method;
    const issue = typeof method === 'string' && id !== null ? PARAMS.get(method)?.(value) : null;
    if (issue) {
      const at = issue.path.map(String).join('.');
      this.#reply(id, ErrorCode.InvalidParams, `Invalid params for ${String(method)}${at ? ` at ${at}` : ''}: ${issue.message}`);
      return;
    }
    this.onmessage?.(parsed.data);
  }

  #reply(id: Id, code: number, message: string): void {
    this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage).catch((error: unknown) => this.onerror?.(error as Error));
  }
}

/** The id to answer a bad message with: its own when it has a valid one, else null (JSON-RPC 2.0, section 5). */
function idOf(value: unknown): Id {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}
