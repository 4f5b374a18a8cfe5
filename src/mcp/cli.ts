/**
 * `hybridmind-mcp`: the memory tools over stdio, on a store kept in a SQLite file, plus the
 * `export` and `import` commands that move it as a `.mind.zip`. Separate from `bin.ts` so tests
 * can run it with their own streams and see its exit code.
 */
import { open as openFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { TOOL_NAMES, type ToolName } from '../agent/tools.js';
import type { Embedder } from '../embedder/types.js';
import { HybridMindError, messageOf } from '../errors.js';
import type { Logger, LogLevel } from '../logger.js';
import { HybridMemory } from '../hybrid-memory.js';
import { VERSION } from '../version.js';
import { exportStore, importStore } from './snapshot-commands.js';
import { createMcpServer } from './server.js';
import { StdioJsonRpcTransport } from './stdio-transport.js';

export const USAGE = `Usage: hybridmind-mcp [--file memory.db] [options]
       hybridmind-mcp export <backup.mind.zip> --file memory.db
       hybridmind-mcp import <backup.mind.zip> --file memory.db [--replace]

An MCP server (stdio) exposing long-term memory tools: memory_store, memory_recall,
memory_relate, memory_forget, memory_context.

  --file <path>        the store: a SQLite file (WAL), created with its folders if missing;
                       each write is on disk before its answer. One process at a time owns
                       it. Without --file the memory lasts one session
  export <zip>         write the store as a .mind.zip (atomically) and exit
  import <zip>         fill the store from a .mind.zip (validated first, swapped in at once)
                       and exit; --replace is needed if the store already holds memories
                       (export and import need the server on that file to be stopped)
  --no-embedder        no sentence embeddings: words, identifiers, links and time only
  --model <dir>        folder holding Xenova/all-MiniLM-L6-v2 (as \`npm run model:fetch\` fills it);
                       loaded offline. Default: $HYBRIDMIND_MODEL_DIR or ./models, else the
                       Hugging Face hub (downloaded once, then cached)
  --offline            never download a model: without a local one, run as --no-embedder
  --dtype <fp32|q8>    model weights (default fp32); q8 matches stores made in browsers
  --reembed            accept a store embedded by another model by embedding it again
  --read-only          only memory_recall and memory_context; the file is never written
  --tools <a,b,...>    only these tools
  --verbose            debug diagnostics on stderr
  --version, --help

Diagnostics go to stderr; stdout carries only the protocol.`;

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  /** Where diagnostics go (stderr in the bin). */
  log: (line: string) => void;
  /** Resolves `--model` and `--file`; default `process.cwd()`. */
  cwd?: string | undefined;
}

type Command = { kind: 'serve' } | { kind: 'export'; zip: string } | { kind: 'import'; zip: string; replace: boolean };

interface CliOptions {
  command: Command;
  file: string | null;
  embedder: 'default' | 'none' | 'offline' | { dir: string };
  dtype: 'fp32' | 'q8' | undefined;
  reembed: boolean;
  tools: readonly ToolName[];
  readOnly: boolean;
  verbose: boolean;
}

/** Parses the command line; a usage error is INVALID_ARGUMENT with the reason. */
export function parseCli(argv: readonly string[], cwd = process.cwd()): CliOptions | 'help' | 'version' {
  let values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: {
        file: { type: 'string' },
        replace: { type: 'boolean' },
        'no-embedder': { type: 'boolean' },
        model: { type: 'string' },
        offline: { type: 'boolean' },
        dtype: { type: 'string' },
        reembed: { type: 'boolean' },
        'read-only': { type: 'boolean' },
        tools: { type: 'string' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    }));
  } catch (error) {
    throw new HybridMindError('INVALID_ARGUMENT', 'hybridmind-mcp', messageOf(error));
  }
  if (values.help) return 'help';
  if (values.version) return 'version';
  const usage = (message: string) => new HybridMindError('INVALID_ARGUMENT', 'hybridmind-mcp', message);
  if (values['no-embedder'] && (values.model !== undefined || values.offline)) throw usage('--no-embedder cannot be combined with --model or --offline');
  if (values.dtype !== undefined && values.dtype !== 'fp32' && values.dtype !== 'q8') throw usage(`--dtype must be fp32 or q8, received ${JSON.stringify(values.dtype)}`);
  if (values.file === '') throw usage('--file must be a path');
  const command = parseCommand(positionals, values.file, values.replace === true, cwd, usage);
  const readOnly = values['read-only'] === true;
  let tools: readonly ToolName[] = readOnly ? ['memory_recall', 'memory_context'] : TOOL_NAMES;
  if (values.tools !== undefined) {
    const asked = values.tools.split(',').map((t) => t.trim()).filter((t) => t !== '');
    const unknown = asked.filter((t) => !(TOOL_NAMES as readonly string[]).includes(t));
    if (asked.length === 0 || unknown.length > 0) throw usage(`--tools takes a comma-separated list of ${TOOL_NAMES.join(', ')}, received ${JSON.stringify(values.tools)}`);
    if (readOnly && asked.some((t) => t !== 'memory_recall' && t !== 'memory_context')) throw usage('--read-only allows only memory_recall and memory_context');
    tools = TOOL_NAMES.filter((t) => asked.includes(t));
  }
  return {
    command,
    file: values.file === undefined ? null : resolve(cwd, values.file),
    embedder: values['no-embedder'] ? 'none' : values.model !== undefined ? { dir: resolve(cwd, values.model) } : values.offline ? 'offline' : 'default',
    dtype: values.dtype as 'fp32' | 'q8' | undefined,
    reembed: values.reembed === true,
    tools,
    readOnly,
    verbose: values.verbose === true,
  };
}

function parseCommand(positionals: string[], file: string | undefined, replace: boolean, cwd: string, usage: (m: string) => HybridMindError): Command {
  const [verb, zip, ...extra] = positionals;
  if (verb === undefined) {
    if (replace) throw usage('--replace belongs to the import command');
    return { kind: 'serve' };
  }
  if (verb !== 'export' && verb !== 'import') throw usage(`unknown command ${JSON.stringify(verb)}; commands: export, import`);
  if (zip === undefined || extra.length > 0) throw usage(`${verb} takes one .mind.zip path`);
  if (file === undefined) throw usage(`${verb} needs --file, the store`);
  if (verb === 'export' && replace) throw usage('--replace belongs to the import command');
  return verb === 'export' ? { kind: 'export', zip: resolve(cwd, zip) } : { kind: 'import', zip: resolve(cwd, zip), replace };
}

/** A logger writing one line per message, debug only when verbose. */
export function lineLogger(log: (line: string) => void, verbose: boolean): Logger {
  return (level: LogLevel, message: string, details?: Record<string, unknown>) => {
    if (level === 'debug' && !verbose) return;
    log(`hybridmind-mcp ${level}: ${message}${details && Object.keys(details).length > 0 ? ` ${JSON.stringify(details)}` : ''}`);
  };
}

/**
 * Runs the server until stdin ends or `stop()` is called (or runs `export` / `import`);
 * resolves to the exit code. Each write is committed to the file before its answer is sent;
 * vectors computed in the background are committed as they come, and shutdown waits a little
 * for those still pending.
 */
export async function runCli(argv: readonly string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  let options: ReturnType<typeof parseCli>;
  try {
    options = parseCli(argv, io.cwd);
  } catch (error) {
    io.log(`hybridmind-mcp: ${error instanceof HybridMindError ? error.message.replace(/^hybridmind-mcp: /, '') : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help' || options === 'version') {
    io.log(options === 'help' ? USAGE : VERSION);
    return 0;
  }
  const logger = lineLogger(io.log, options.verbose);
  if (options.command.kind !== 'serve') {
    const command = options.command;
    try {
      if (command.kind === 'export') await exportStore(options.file!, command.zip, logger);
      else await importStore(options.file!, command.zip, command.replace, logger);
      return 0;
    } catch (error) {
      logger('error', messageOf(error));
      return 1;
    }
  }
  let mem: HybridMemory;
  try {
    mem = await openStore(options, logger);
  } catch (error) {
    logger('error', messageOf(error));
    return 1;
  }
  const { server, idle } = createMcpServer(mem, { tools: options.tools, logger });
  const transport = new StdioJsonRpcTransport(io.stdin, io.stdout);
  const stopped = new Promise<void>((done) => {
    io.stdin.once('end', done);
    io.stdin.once('close', done);
    transport.onclose = done;
    if (signal?.aborted) done();
    signal?.addEventListener('abort', () => done(), { once: true });
  });
  await server.connect(transport);
  logger('info', `ready: ${options.tools.length} tools, ${options.file ? `store ${options.file}` : 'in-memory store (no --file)'}${options.readOnly ? ', read-only' : ''}`);
  await stopped;
  await idle();
  // Vectors still being computed; bounded, since a failing embedder retries with backoff.
  await Promise.race([mem.ready(), new Promise((r) => setTimeout(r, 10_000).unref())]);
  await server.close().catch(() => undefined);
  await mem.close();
  return 0;
}

async function openStore(options: CliOptions, logger: Logger): Promise<HybridMemory> {
  const embedder = await chooseEmbedder(options, logger);
  const common = { logger, reembed: options.reembed, ...(embedder === undefined ? {} : { embedder }) };
  if (!options.file) return HybridMemory.open(common);
  const kind = await fileKind(options.file);
  if (kind === 'zip') {
    throw new HybridMindError('UNSUPPORTED', 'hybridmind-mcp', `${options.file} is a .mind.zip snapshot; the server keeps its memory in a SQLite file now: hybridmind-mcp import ${options.file} --file memory.db, then --file memory.db`);
  }
  if (kind === 'missing' && options.readOnly) throw new HybridMindError('NOT_FOUND', 'hybridmind-mcp', `--read-only needs an existing store, and ${options.file} does not exist`);
  const mem = await HybridMemory.open({ ...common, storage: options.file });
  logger('info', `${kind === 'missing' ? 'created' : 'opened'} ${options.file}`, { memories: (await mem.stats()).memories });
  return mem;
}

/** `undefined` lets `HybridMemory.open` pick its default (the provisioned model, else the hub). */
async function chooseEmbedder(options: CliOptions, logger: Logger): Promise<Embedder | null | undefined> {
  const spec = options.embedder;
  if (spec === 'none') return null;
  if (spec === 'default' && options.dtype === undefined) return undefined;
  const { TransformersEmbedder } = await import('../embedder/transformers.js');
  const { findLocalModel } = await import('../embedder/local-model.js');
  const dtype = options.dtype === undefined ? {} : { dtype: options.dtype };
  const local = await findLocalModel(typeof spec === 'object' ? { root: spec.dir } : {});
  if (local) return TransformersEmbedder.create({ ...dtype, logger, localModelPath: local.root, allowRemoteModels: false });
  if (spec === 'default') return TransformersEmbedder.create({ ...dtype, logger });
  if (spec === 'offline') {
    logger('warn', '--offline and no local model ($HYBRIDMIND_MODEL_DIR or ./models): running without sentence embeddings');
    return null;
  }
  throw new HybridMindError('NOT_FOUND', 'hybridmind-mcp', `--model: no all-MiniLM-L6-v2 under ${spec.dir} (point it at the folder that holds Xenova/, as \`npm run model:fetch\` fills it)`);
}

/** What is at `path`: nothing yet, a ZIP (a snapshot given where the store belongs), or something SQLite will judge. */
async function fileKind(path: string): Promise<'missing' | 'zip' | 'other'> {
  let handle;
  try {
    handle = await openFile(path, 'r');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return 'missing';
    throw new HybridMindError('STORAGE', 'hybridmind-mcp', `cannot read ${path}: ${messageOf(error)}`);
  }
  try {
    const head = new Uint8Array(4);
    await handle.read(head, 0, 4, 0);
    return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04 ? 'zip' : 'other';
  } finally {
    await handle.close();
  }
}
