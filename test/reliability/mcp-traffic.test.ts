/**
 * Malformed traffic against the real `hybridmind-mcp` process over stdio: every bad line gets the
 * JSON-RPC error the spec names, an oversized line is refused without closing the transport, and
 * the server keeps serving afterwards.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'src/mcp/bin.ts');

interface Reply {
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

let child: ChildProcessWithoutNullStreams;
let exited: Promise<number | null>;
const replies: Reply[] = [];
let wake: (() => void) | null = null;

function send(line: string | Buffer): void {
  child.stdin.write(line);
  child.stdin.write('\n');
}

async function next(): Promise<Reply> {
  while (replies.length === 0) await new Promise<void>((resolve) => (wake = resolve));
  return replies.shift()!;
}

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', BIN, '--no-embedder'], { cwd: ROOT, env: { ...process.env, NODE_NO_WARNINGS: '1' } });
  exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
      replies.push(JSON.parse(pending.slice(0, nl)) as Reply);
      pending = pending.slice(nl + 1);
    }
    wake?.();
  });
  send(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } } }));
  expect((await next()).result).toHaveProperty('serverInfo');
  send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
}, 60_000);

afterAll(async () => {
  child.stdin.end();
  await exited;
});

const request = (id: number, method: string, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const PARSE = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

const CASES: Array<[name: string, code: number, id: string | number | null, line: string | Buffer]> = [
  ['plain text', PARSE, null, 'hello'],
  ['half an object', PARSE, null, '{"jsonrpc":"2.0","id":1,'],
  ['trailing junk', PARSE, null, '{"jsonrpc":"2.0","id":1,"method":"ping"} x'],
  ['control bytes', PARSE, null, '\u0000\u0001\u0002'],
  ['invalid UTF-8', PARSE, null, Buffer.from([0xff, 0xfe, 0x7b, 0x7d])],
  ['nesting 100,000 deep', INVALID_REQUEST, null, '['.repeat(100_000) + ']'.repeat(100_000)],
  ['a number', INVALID_REQUEST, null, '42'],
  ['a string', INVALID_REQUEST, null, '"ping"'],
  ['null', INVALID_REQUEST, null, 'null'],
  ['an empty object', INVALID_REQUEST, null, '{}'],
  ['an empty batch', INVALID_REQUEST, null, '[]'],
  ['a batch', INVALID_REQUEST, null, `[${request(1, 'ping')}]`],
  ['JSON-RPC 1.0', INVALID_REQUEST, 2, '{"jsonrpc":"1.0","id":2,"method":"ping"}'],
  ['no jsonrpc field', INVALID_REQUEST, 3, '{"id":3,"method":"ping"}'],
  ['an object id', INVALID_REQUEST, null, '{"jsonrpc":"2.0","id":{},"method":"ping"}'],
  ['a numeric method', INVALID_REQUEST, 4, '{"jsonrpc":"2.0","id":4,"method":5}'],
  ['unknown method', METHOD_NOT_FOUND, 5, request(5, 'resources/nope')],
  ['tools/call without params', INVALID_PARAMS, 6, request(6, 'tools/call')],
  // JSON-RPC 2.0 requires params to be a structured value, so this is not a Request at all.
  ['tools/call with string params', INVALID_REQUEST, 7, request(7, 'tools/call', 'memory_store')],
  ['arguments a string', INVALID_PARAMS, 8, request(8, 'tools/call', { name: 'memory_store', arguments: 'text=hi' })],
  ['arguments an array', INVALID_PARAMS, 9, request(9, 'tools/call', { name: 'memory_store', arguments: ['hi'] })],
  ['tool name a number', INVALID_PARAMS, 10, request(10, 'tools/call', { name: 7, arguments: {} })],
  ['unknown tool', INVALID_PARAMS, 11, request(11, 'tools/call', { name: 'memory_nope', arguments: {} })],
  ['initialize without params', INVALID_PARAMS, 12, request(12, 'initialize')],
  ['initialize with empty params', INVALID_PARAMS, 13, request(13, 'initialize', {})],
  ['initialize with a bad clientInfo', INVALID_PARAMS, 14, request(14, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: 'me' })],
];

describe('malformed MCP traffic', () => {
  it.each(CASES)('%s → %i', async (_, code, id, line) => {
    send(line);
    const reply = await next();
    expect(reply.error?.code, JSON.stringify(reply)).toBe(code);
    expect(reply.id).toBe(id);
    // A short message, not a schema dump.
    expect(reply.error!.message.length).toBeLessThan(300);
  });

  it('a tool call with a lone surrogate is a tool error the model can read, not a stored memory', async () => {
    send(request(20, 'tools/call', { name: 'memory_store', arguments: { text: 'x \uD800' } }));
    const reply = await next();
    expect(reply.result).toMatchObject({ isError: true, structuredContent: { error: { code: 'INVALID_ARGUMENT' } } });
  });

  it('a line over 10 MiB is refused with -32600 and the transport stays open', async () => {
    send(request(21, 'tools/call', { name: 'memory_store', arguments: { text: 'y'.repeat(11 * 1024 * 1024) } }));
    const reply = await next();
    expect(reply).toMatchObject({ id: null, error: { code: INVALID_REQUEST } });
  });

  it('blank lines and notifications get no reply; the server still serves after all of the above', async () => {
    send('');
    send('   ');
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/unknown' }));
    send(request(22, 'tools/call', { name: 'memory_store', arguments: { text: 'still serving', id: 'alive' } }));
    const stored = await next();
    expect(stored.id).toBe(22);
    expect(stored.result).toMatchObject({ structuredContent: { id: 'alive' } });
    send(request(23, 'ping'));
    expect(await next()).toMatchObject({ id: 23, result: {} });
    expect(child.exitCode).toBeNull();
  });
});
