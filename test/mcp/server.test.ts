import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { HybridMemory, TOOL_NAMES, toolSchemas } from '../../src/index.js';
import { findLocalModel } from '../../src/node.js';

/**
 * The server as a client sees it: spawned over stdio with the SDK's own client, on a store in a
 * temporary SQLite file. `--no-embedder` keeps it deterministic and fast; one test runs the real
 * model when it is provisioned.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'src/mcp/bin.ts');
const model = await findLocalModel({ root: join(ROOT, 'models') });

interface Running {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
  /** kill -9: no shutdown code runs. */
  kill: () => Promise<void>;
}

async function start(args: string[]): Promise<Running> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', BIN, ...args],
    cwd: ROOT,
    env: { ...getDefaultEnvironment(), NODE_NO_WARNINGS: '1' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'hybridmind-test', version: '0.0.0' });
  await client.connect(transport);
  const kill = async () => {
    const exited = new Promise((resolve) => transport.onclose = () => resolve(undefined));
    process.kill(transport.pid!, 'SIGKILL');
    await exited;
  };
  return { client, stderr: () => stderr, close: () => client.close(), kill };
}

const call = async (server: Running, name: string, args: Record<string, unknown>) =>
  (await server.client.callTool({ name, arguments: args })) as CallToolResult;

function ok<T>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  const text = (result.content[0] as { type: 'text'; text: string }).text;
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

function errorText(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  return (result.content[0] as { type: 'text'; text: string }).text;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hybridmind-mcp-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** The store's memory count, read with the library once no server holds the file. */
async function memoriesIn(file: string): Promise<{ memories: number; semantic: number; has: (id: string) => Promise<boolean> }> {
  const mem = await HybridMemory.open({ storage: file, embedder: null });
  const stats = await mem.stats();
  const present = new Set<string>();
  for (const id of ['late', 'adr-007', 'car', 'cat']) if (await mem.get(id)) present.add(id);
  await mem.close();
  return { memories: stats.memories, semantic: stats.readiness.semantic, has: async (id) => present.has(id) };
}

describe('hybridmind-mcp over stdio', () => {
  let file: string;
  let server: Running;

  beforeAll(async () => {
    file = join(dir, 'not', 'yet', 'there', 'agent.db');
    server = await start(['--file', file, '--no-embedder']);
  });
  afterAll(async () => server?.close());

  it('announces itself and lists the five tools with the schemas toolSchemas gives', async () => {
    expect(server.client.getServerVersion()).toMatchObject({ name: 'hybridmind' });
    expect(server.client.getInstructions()).toContain('memory_recall');
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    const expected = toolSchemas({ format: 'mcp' });
    for (const [i, tool] of tools.entries()) {
      expect(tool.inputSchema).toEqual(expected[i]!.inputSchema);
      expect(tool.description).toBe(expected[i]!.description);
      expect(tool.annotations).toEqual(expected[i]!.annotations);
    }
  });

  it('creates the store file, and its folders, at start', async () => {
    expect((await stat(file)).size).toBeGreaterThan(0);
  });

  it('stores, relates, recalls and forgets', async () => {
    expect(ok(await call(server, 'memory_store', { id: 'adr-003', text: 'ADR-003: agent memory lives in IndexedDB', kind: 'decision', validFrom: '2025-10-01' }))).toEqual({ id: 'adr-003', superseded: [] });
    expect(ok(await call(server, 'memory_store', { id: 'adr-007', text: 'ADR-007: agent memory lives in SQLite-WASM on OPFS', kind: 'decision', supersedes: ['adr-003'] }))).toEqual({ id: 'adr-007', superseded: ['adr-003'] });
    expect(ok(await call(server, 'memory_store', { id: 'sync', text: 'The sync service replicates the storage layer to the server' }))).toEqual({ id: 'sync', superseded: [] });
    const scratch = ok<{ id: string }>(await call(server, 'memory_store', { text: 'A note stored by mistake' }));

    expect(ok(await call(server, 'memory_relate', { from: 'sync', to: 'adr-007', type: 'DEPENDS_ON' }))).toMatchObject({ from: 'sync', to: 'adr-007', type: 'DEPENDS_ON', toStatus: 'current' });

    const { hits } = ok<{ hits: Array<{ id: string; status: string; ranks: Record<string, number>; createdAt: string }> }>(
      await call(server, 'memory_recall', { query: 'where does agent memory live?' }),
    );
    expect(hits.map((h) => h.id)).toEqual(expect.arrayContaining(['adr-007', 'adr-003']));
    expect(hits.find((h) => h.id === 'adr-007')).toMatchObject({ status: 'current', ranks: { lexical: expect.any(Number) } });
    expect(hits.find((h) => h.id === 'adr-003')!.status).toBe('historical');
    expect(Number.isNaN(Date.parse(hits[0]!.createdAt))).toBe(false);

    const linked = ok<{ hits: Array<{ id: string; via?: string[] }> }>(await call(server, 'memory_recall', { query: 'replicates', anchors: ['adr-007'], mode: 'graph' }));
    expect(linked.hits.map((h) => h.id)).toContain('sync');

    expect(ok(await call(server, 'memory_forget', { id: scratch.id }))).toEqual({ id: scratch.id, forgotten: true });
    expect(ok<{ hits: unknown[] }>(await call(server, 'memory_recall', { query: 'stored by mistake', mode: 'lexical' })).hits).toEqual([]);
  });

  it('packs evidence for a prompt with citation ids', async () => {
    const packed = ok<{ context: string; items: Array<{ cite: string; id: string; status: string }>; tokens: number }>(
      await call(server, 'memory_context', { query: 'where does agent memory live?', budgetTokens: 256, maxItems: 3 }),
    );
    const item = packed.items.find((i) => i.id === 'adr-007')!;
    expect(item).toMatchObject({ cite: expect.stringMatching(/^M\d+$/), status: 'current' });
    expect(packed.context).toContain(`[${item.cite}]`);
    expect(packed.tokens).toBeLessThanOrEqual(256);
  });

  it('reports bad arguments as tool errors with a code and the field', async () => {
    expect(errorText(await call(server, 'memory_store', {}))).toMatch(/^INVALID_ARGUMENT: memory_store: text is required/);
    expect(errorText(await call(server, 'memory_recall', { query: 'q', k: 0 }))).toMatch(/^INVALID_ARGUMENT: memory_recall: k must be ≥ 1/);
    expect(errorText(await call(server, 'memory_relate', { from: 'sync', to: 'adr-007', type: 'LIKES' }))).toMatch(/^INVALID_ARGUMENT: .*type must be one of/);
    expect(errorText(await call(server, 'memory_store', { text: 'x', colour: 'red' }))).toMatch(/^INVALID_ARGUMENT: .*unknown field "colour"/);
    const missing = await call(server, 'memory_forget', { id: 'ghost' });
    expect(errorText(missing)).toMatch(/^NOT_FOUND: /);
    expect(missing.structuredContent).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect(errorText(await call(server, 'memory_relate', { from: 'sync', to: 'adr-007', type: 'DEPENDS_ON' }))).toMatch(/^CONFLICT: /);
  });

  it('answers an unknown tool with a protocol error, as the MCP spec asks', async () => {
    await expect(server.client.callTool({ name: 'memory_drop', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('keeps everything across a restart on the same file', async () => {
    await server.close();
    expect((await memoriesIn(file)).memories).toBe(3);

    server = await start(['--file', file, '--no-embedder']);
    const { hits } = ok<{ hits: Array<{ id: string; status: string }> }>(await call(server, 'memory_recall', { query: 'agent memory', mode: 'lexical', k: 10 }));
    expect(hits.map((h) => [h.id, h.status]).sort()).toEqual([['adr-003', 'historical'], ['adr-007', 'current']]);
    // The edge came back too: relating again is a conflict.
    expect(errorText(await call(server, 'memory_relate', { from: 'sync', to: 'adr-007', type: 'DEPENDS_ON' }))).toMatch(/^CONFLICT: /);
    expect(server.stderr()).toContain('opened');
  });

  it('commits each write before answering: a server killed with kill -9 loses nothing it confirmed', async () => {
    ok(await call(server, 'memory_store', { id: 'late', text: 'Stored just before the crash' }));
    await server.kill();
    const after = await memoriesIn(file);
    expect(after.memories).toBe(4);
    expect(await after.has('late')).toBe(true);
    server = await start(['--file', file, '--no-embedder']);
  });
});

describe('hybridmind-mcp options', () => {
  it('--read-only offers recall and context only and never writes the file', async () => {
    const file = join(dir, 'ro.db');
    const writer = await start(['--file', file, '--no-embedder']);
    ok(await call(writer, 'memory_store', { id: 'fact', text: 'The staging database is Postgres 16' }));
    await writer.close();
    const before = await stat(file);

    const reader = await start(['--file', file, '--no-embedder', '--read-only']);
    expect((await reader.client.listTools()).tools.map((t) => t.name)).toEqual(['memory_recall', 'memory_context']);
    expect(ok<{ hits: Array<{ id: string }> }>(await call(reader, 'memory_recall', { query: 'staging database' })).hits[0]!.id).toBe('fact');
    await expect(reader.client.callTool({ name: 'memory_store', arguments: { text: 'x' } })).rejects.toMatchObject({ code: -32602 });
    await reader.close();
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
  });

  it('refuses a bad command line with exit code 2 and the usage on stderr', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, ['--import', 'tsx', BIN, '--dtype', 'fp16'], { cwd: ROOT, encoding: 'utf8', input: '' });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('--dtype must be fp32 or q8');
    expect(run.stderr).toContain('Usage: hybridmind-mcp');
  });

  // It ends by draining its event loop, not by process.exit() (which can hang Node >= 24 at
  // shutdown), so anything left holding the loop would keep it running: the model's native runtime,
  // or stdin, which a signal leaves open.
  it.skipIf(!model).each(['stdin closed', 'SIGTERM', 'SIGINT'] as const)('ends by itself with exit code 0 when %s, the model loaded and the store closed', async (ending) => {
    const file = join(dir, `ends-${ending.replace(' ', '-')}.db`);
    const child = spawn(process.execPath, ['--import', 'tsx', BIN, '--file', file, '--model', 'models'], { cwd: ROOT, env: { ...process.env, NODE_NO_WARNINGS: '1' } });
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((done) => child.once('exit', (code, signal) => done([code, signal])));
    onTestFinished(() => void child.kill('SIGKILL'));
    let stdout = '';
    let heard = () => {};
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      heard();
    });
    const answered = (id: number) => new Promise<void>((done) => {
      heard = () => stdout.split('\n').slice(0, -1).some((line) => (JSON.parse(line) as { id?: number }).id === id) && done();
      heard();
    });
    const send = (message: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ends', version: '0' } } });
    await answered(1);
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'memory_store', arguments: { id: 'car', text: 'The car needs its engine repaired before the trip' } } });
    await answered(2);
    if (ending === 'stdin closed') child.stdin.end();
    else child.kill(ending);
    expect(await exited).toEqual([0, null]);
    expect(await memoriesIn(file)).toMatchObject({ memories: 1, semantic: 1 });
  });

  it.skipIf(!model)('runs on the provisioned all-MiniLM-L6-v2 and keeps its vectors across a restart', async () => {
    const file = join(dir, 'model.db');
    const first = await start(['--file', file, '--model', 'models']);
    ok(await call(first, 'memory_store', { id: 'car', text: 'The car needs its engine repaired before the trip' }));
    ok(await call(first, 'memory_store', { id: 'cat', text: 'Remember to feed the cat on Sunday' }));
    await first.close();
    expect((await memoriesIn(file)).semantic).toBe(2);

    const second = await start(['--file', file, '--model', 'models']);
    const { hits } = ok<{ hits: Array<{ id: string; ranks: Record<string, number> }> }>(
      await call(second, 'memory_recall', { query: 'automobile maintenance', mode: 'vector', k: 1 }),
    );
    expect(hits[0]).toMatchObject({ id: 'car', ranks: { vector: 1 } });
    await second.close();
  });
});
