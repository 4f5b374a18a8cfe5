/**
 * An agent's MCP client runs the packed package's `hybridmind-mcp` command, as a client config
 * would (`npx hybridmind-mcp --file …`), in an app that installed the tarball with the MCP SDK and
 * better-sqlite3, its optional peers for this: the five tools over stdio on a durable file, then
 * the store moved through `export` and `import` and served read-only from its new file.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { runOk } from './support/consumer.js';
import { NODE_TARGETS, expectRunsOn, installOn, type NodeRuntime } from './support/node-runtime.js';

async function serve(dir: string, node: NodeRuntime, args: string[]): Promise<Client> {
  // The SDK passes a client's child only these variables, so PATH is where the runtime comes from.
  const env = { ...getDefaultEnvironment(), PATH: node.env['PATH'] ?? '' };
  const transport = new StdioClientTransport({ command: 'npx', args: ['hybridmind-mcp', ...args], cwd: dir, env, stderr: 'pipe' });
  const client = new Client({ name: 'consumer-mcp', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

async function call<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

describe.each(NODE_TARGETS)('hybridmind-mcp from the packed package, on $label', (target) => {
  let dir: string;
  let node: NodeRuntime;

  beforeAll(async () => {
    ({ dir, node } = await installOn('mcp', target));
  });

  it('serves the five tools on a file, and the store moves through export and import', async () => {
    await expectRunsOn(dir, node, target);
    const server = await serve(dir, node, ['--file', 'agent.db', '--no-embedder']);
    try {
      expect((await server.listTools()).tools.map((t) => t.name)).toEqual(['memory_store', 'memory_recall', 'memory_relate', 'memory_forget', 'memory_context']);
      await call(server, 'memory_store', { id: 'adr-003', text: 'ADR-003: agent memory lives in IndexedDB', kind: 'decision', validFrom: '2025-10-01' });
      expect(await call(server, 'memory_store', { id: 'adr-007', text: 'ADR-007: agent memory lives in SQLite-WASM on OPFS', kind: 'decision', supersedes: ['adr-003'] })).toEqual({ id: 'adr-007', superseded: ['adr-003'] });
      await call(server, 'memory_store', { id: 'sync', text: 'The sync service replicates the storage layer' });
      expect(await call(server, 'memory_relate', { from: 'sync', to: 'adr-007', type: 'DEPENDS_ON' })).toMatchObject({ from: 'sync', to: 'adr-007', toStatus: 'current' });
      const { hits } = await call<{ hits: Array<{ id: string; status: string }> }>(server, 'memory_recall', { query: 'where does agent memory live?' });
      expect(hits.find((h) => h.id === 'adr-007')?.status).toBe('current');
      expect(hits.find((h) => h.id === 'adr-003')?.status).toBe('historical');
    } finally {
      await server.close();
    }

    // stdin at its end from the start, as a client that went away leaves it: the server opens the
    // store, closes it and ends by itself (it never calls process.exit, which can hang Node >= 24).
    const ended = await runOk('npx', ['hybridmind-mcp', '--file', 'agent.db', '--no-embedder'], { cwd: dir, env: node.env });
    expect(ended.stderr).toMatch(/hybridmind-mcp info: ready: 5 tools, store \S*agent\.db/);

    await runOk('npx', ['hybridmind-mcp', 'export', 'backup.mind.zip', '--file', 'agent.db'], { cwd: dir, env: node.env });
    await runOk('npx', ['hybridmind-mcp', 'import', 'backup.mind.zip', '--file', join('moved', 'agent.db')], { cwd: dir, env: node.env });
    const reader = await serve(dir, node, ['--file', join('moved', 'agent.db'), '--no-embedder', '--read-only']);
    try {
      expect((await reader.listTools()).tools.map((t) => t.name)).toEqual(['memory_recall', 'memory_context']);
      const { hits } = await call<{ hits: Array<{ id: string; status: string }> }>(reader, 'memory_recall', { query: 'what does the sync service depend on?' });
      expect(hits.map((h) => h.id)).toEqual(expect.arrayContaining(['sync', 'adr-007']));
      const packed = await call<{ items: Array<{ id: string; cite: string }>; context: string }>(reader, 'memory_context', { query: 'where does agent memory live?', budgetTokens: 200 });
      const cited = packed.items.find((i) => i.id === 'adr-007');
      expect(packed.context).toContain(`[${cited?.cite}]`);
    } finally {
      await reader.close();
    }
  });
});
