/** Node-only entry (`hybridmind/mcp`): the memory tools as an MCP server. */
export { createMcpServer, type McpMemoryServer, type McpServerOptions } from './server.js';
export { runCli, parseCli, USAGE, type CliIo } from './cli.js';
