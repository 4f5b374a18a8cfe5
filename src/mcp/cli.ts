/**
 * `hybridmind-mcp`: the memory tools over stdio, on a store kept in a `.mind.zip` file. Separate
 * from `bin.ts` so tests can run it with their own streams and see its exit code.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { TOOL_NAMES, type ToolName } from '../agent/tools.js';
import type { Embedder } from '../embedder/types.js';
import { HybridMindError } from '../errors.js';
import type { Logger, LogLevel } from '../logger.js';
import { HybridMemory } from '../memory/hybrid-memory.js';
import { loadSnapshotFile, saveSnapshotFile } from '../snapshot/node-files.js';
import { VERSION } from '../version.js';
import { createMcpServer } from './server.js';
import { SnapshotSaver } from './snapshot-saver.js';
import { StdioJsonRpcTransport } from './stdio-transport.js';

export const USAGE = `Usage: hybridmind-mcp [--file memory.mind.zip] [options]

An MCP server (stdio) exposing long-term memory tools: memory_store, memory_recall,
memory_relate, memory_forget, memory_context.

  --file <path>        the store: loaded at start if it exists, created otherwise, saved
                       atomically after every write (without it the memory lasts one session)
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
  cwd?: string;
}

interface CliOptions {
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
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        file: { type: 'string' },
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
    throw new HybridMindError('INVALID_ARGUMENT', 'hybridmind-mcp', error instanceof Error ? error.message : String(error));
  }
  if (values.help) return 'help';
  if (values.version) return 'version';
  const usage = (message: string) => new HybridMindError('INVALID_ARGUMENT', 'hybridmind-mcp', message);
  if (values['no-embedder'] && (values.model !== undefined || values.offline)) throw usage('--no-embedder cannot be combined with --model or --offline');
  if (values.dtype !== undefined && values.dtype !== 'fp32' && values.dtype !== 'q8') throw usage(`--dtype must be fp32 or q8, received ${JSON.stringify(values.dtype)}`);
  if (values.file === '') throw usage('--file must be a path');
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
    file: values.file === undefined ? null : resolve(cwd, values.file),
    embedder: values['no-embedder'] ? 'none' : values.model !== undefined ? { dir: resolve(cwd, values.model) } : values.offline ? 'offline' : 'default',
    dtype: values.dtype as 'fp32' | 'q8' | undefined,
    reembed: values.reembed === true,
    tools,
    readOnly,
    verbose: values.verbose === true,
  };
}

/** A logger writing one line per message, debug only when verbose. */
export function lineLogger(log: (line: string) => void, verbose: boolean): Logger {
  return (level: LogLevel, message: string, details?: Record<string, unknown>) => {
    if (level === 'debug' && !verbose) return;
    log(`hybridmind-mcp ${level}: ${message}${details && Object.keys(details).length > 0 ? ` ${JSON.stringify(details)}` : ''}`);
  };
}

/**
 * Runs the server until stdin ends or `stop()` is called; resolves to the exit code. Everything
 * written before shutdown is saved: each write is on disk before its answer is sent, and one
 * last save after background embedding catches up keeps the vectors too.
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
  let mem: HybridMemory;
  try {
    mem = await openStore(options, logger);
  } catch (error) {
    logger('error', error instanceof Error ? error.message : String(error));
    return 1;
  }
  const saver = options.file && !options.readOnly ? new SnapshotSaver(mem, options.file) : null;
  let wrote = false;
  const { server, idle } = createMcpServer(mem, {
    tools: options.tools,
    logger,
    afterWrite: async () => {
      wrote = true;
      await saver?.save();
    },
  });
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
  return shutdown(mem, saver, wrote, idle, () => server.close(), logger);
}

async function shutdown(mem: HybridMemory, saver: SnapshotSaver | null, wrote: boolean, idle: () => Promise<void>, closeServer: () => Promise<void>, logger: Logger): Promise<number> {
  let code = 0;
  await idle();
  if (saver && wrote) {
    // Vectors computed since the last save; bounded, since a failing embedder retries with backoff.
    await Promise.race([mem.ready(), new Promise((r) => setTimeout(r, 10_000).unref())]);
    try {
      await saver.save();
    } catch (error) {
      logger('error', `the final save failed: ${error instanceof Error ? error.message : String(error)}`);
      code = 1;
    }
  }
  await closeServer().catch(() => undefined);
  await mem.close();
  return code;
}

async function openStore(options: CliOptions, logger: Logger): Promise<HybridMemory> {
  const embedder = await chooseEmbedder(options, logger);
  const common = { logger, reembed: options.reembed, ...(embedder === undefined ? {} : { embedder }) };
  if (options.file && (await exists(options.file))) {
    const mem = await loadSnapshotFile(options.file, common);
    logger('info', `loaded ${options.file}`, { memories: (await mem.stats()).memories });
    return mem;
  }
  if (options.file && options.readOnly) throw new HybridMindError('NOT_FOUND', 'hybridmind-mcp', `--read-only needs an existing store, and ${options.file} does not exist`);
  const mem = await HybridMemory.open(common);
  if (options.file) {
    // Written now, so a path that cannot be written fails at start rather than at the first write.
    try {
      await saveSnapshotFile(mem, options.file);
    } catch (error) {
      await mem.close();
      throw error;
    }
    logger('info', `created ${options.file}`);
  }
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

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return false;
    throw new HybridMindError('STORAGE', 'hybridmind-mcp', `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
