#!/usr/bin/env node
/**
 * The `hybridmind-mcp` command. stdout carries the MCP protocol, so the global console is pointed
 * at stderr before anything loads: a stray log line from a dependency (transformers.js,
 * onnxruntime) would otherwise corrupt the stream the client parses.
 */
import { Console } from 'node:console';

globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

const { optionalImport } = await import('../optional-import.js');
const cli = await optionalImport<typeof import('./cli.js')>('hybridmind-mcp', new URL('./cli.js', import.meta.url).href, '@modelcontextprotocol/sdk')
  .catch((error: Error) => {
    process.stderr.write(`${error.message}\n`);
    return undefined;
  });
const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());
// The process ends when its event loop drains, not by process.exit(): on Node >= 24 that can hang
// for good while V8 still compiles in the background (nodejs/node#64274), and closing a store or
// writing a snapshot is the last thing this command does. stdin, still open when a signal stopped
// the server, would keep the loop alive.
process.exitCode = cli ? await cli.runCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, log: (line) => process.stderr.write(`${line}\n`) }, stop.signal) : 1;
process.stdin.destroy();
