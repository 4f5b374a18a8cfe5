/**
 * The memory tools as an MCP server (official TypeScript SDK, low-level `Server`): the tool list
 * and the argument checks come from `toolSchemas` / `handleToolCall`, so an MCP client sees the
 * same tools, descriptions and errors as a direct tool loop.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode as McpErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HybridMindError, messageOf } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import type { HybridMemory } from '../hybrid-memory.js';
import { handleToolCall, isToolError, toolSchemas, TOOL_NAMES, type ToolName } from '../agent/tools.js';
import { VERSION } from '../version.js';

export interface McpServerOptions {
  /** The tools offered; default all five. `['memory_recall', 'memory_context']` makes a read-only server. */
  tools?: readonly ToolName[] | undefined;
  /**
   * Called after each successful write (memory_store, memory_relate, memory_forget) before the
   * client gets its answer, e.g. to save the store; a rejection becomes a STORAGE tool error.
   */
  afterWrite?: ((tool: ToolName) => Promise<void>) | undefined;
  logger?: Logger | undefined;
  /** Shown to the client at initialisation. Default `hybridmind`. */
  name?: string | undefined;
}

const WRITE_TOOLS: ReadonlySet<ToolName> = new Set(['memory_store', 'memory_relate', 'memory_forget']);

const INSTRUCTIONS =
  'Long-term memory that persists across conversations. Before answering questions about earlier work, decisions, people or preferences, ' +
  'call memory_recall or memory_context. Store durable facts with memory_store (one self-contained statement each); when a fact changes, ' +
  'store the new one with `supersedes` rather than forgetting the old one.';

export interface McpMemoryServer {
  /** Connect it to a transport, e.g. `await server.connect(new StdioServerTransport())`. */
  server: Server;
  /** Resolves when no tool call is running (their saves included): wait for it before closing the store. */
  idle(): Promise<void>;
}

/**
 * An MCP `Server` exposing the memory tools over `mem`, for hosts that bring their own transport
 * or persistence (the `hybridmind-mcp` command is one such host).
 *
 * @example
 * const { server } = createMcpServer(mem, { afterWrite: () => saveSnapshotFile(mem, 'agent.mind.zip') });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(mem: HybridMemory, options: McpServerOptions = {}): McpMemoryServer {
  const tools = options.tools ?? TOOL_NAMES;
  const logger = options.logger ?? silentLogger;
  const listed = toolSchemas({ format: 'mcp', tools });
  const server = new Server(
    { name: options.name ?? 'hybridmind', version: VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));

  const running = new Set<Promise<unknown>>();
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const call = callTool(request.params.name, request.params.arguments);
    running.add(call);
    const done = () => running.delete(call);
    call.then(done, done);
    return call;
  });

  async function callTool(name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
    // The MCP spec makes an unknown tool a protocol error; bad arguments are tool errors the model can read.
    if (!(tools as readonly string[]).includes(name)) throw new McpError(McpErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const tool = name as ToolName;
    const started = Date.now();
    let result = await handleToolCall(mem, tool, args ?? {}, { tools });
    if (!isToolError(result) && WRITE_TOOLS.has(tool) && options.afterWrite) {
      try {
        await options.afterWrite(tool);
      } catch (error) {
        const message = messageOf(error);
        logger('error', `${tool}: the change is in memory but saving it failed`, { error: message });
        const code = error instanceof HybridMindError ? error.code : 'STORAGE';
        result = { error: { code, message: `${tool}: the change was made but not saved (${message}); it is saved with the next successful write` } };
      }
    }
    logger('debug', `${tool} ${isToolError(result) ? `failed: ${result.error.code}` : 'ok'}`, { ms: Date.now() - started });
    return toCallToolResult(result);
  }

  return {
    server,
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

function toCallToolResult(result: object): CallToolResult {
  if (isToolError(result)) {
    return { content: [{ type: 'text', text: `${result.error.code}: ${result.error.message}` }], structuredContent: result as unknown as Record<string, unknown>, isError: true };
  }
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
}
