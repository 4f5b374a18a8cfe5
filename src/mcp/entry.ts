/**
 * The `hybridmind/mcp` entry. The MCP SDK is an optional peer dependency: the server modules are
 * loaded through `optionalImport`, so an app without `@modelcontextprotocol/sdk` gets a coded
 * MISSING_DEPENDENCY naming it instead of a module-resolution failure.
 */
import { optionalImport } from '../optional-import.js';

export type * from './index.js';

const mcp = await optionalImport<typeof import('./index.js')>('hybridmind/mcp', new URL('./index.js', import.meta.url).href, '@modelcontextprotocol/sdk');

export const { createMcpServer, runCli, parseCli, USAGE } = mcp;
