#!/usr/bin/env node
/**
 * The `hybridmind-mcp` command. stdout carries the MCP protocol, so the global console is pointed
 * at stderr before anything loads: a stray log line from a dependency (transformers.js,
 * onnxruntime) would otherwise corrupt the stream the client parses.
 */
import { Console } from 'node:console';

globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

const { optionalImport } = await import('../optional-import.js');
const { runCli } = await optionalImport<typeof import('./cli.js')>('hybridmind-mcp', new URL('./cli.js', import.meta.url).href, '@modelcontextprotocol/sdk')
  .catch((error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());
const code = await runCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, log: (line) => process.stderr.write(`${line}\n`) }, stop.signal);
// onnxruntime keeps native threads that would hold the process open after the store is closed.
process.exit(code);
