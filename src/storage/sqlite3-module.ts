import sqlite3InitModule, { type Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import { HybridMindError } from '../errors.js';

let modulePromise: Promise<Sqlite3Static> | undefined;

/**
 * Loads SQLite-WASM once per JS realm. Outside a browser the OPFS VFSes cannot work, and the
 * module would warn about them on every start, so they are disabled there. `sahpoolOnly`: the
 * caller opens stores on `opfs-sahpool` alone (the worker), so the other OPFS VFSes are not set
 * up either: where the page is cross-origin isolated, the `opfs` VFS starts a second worker and
 * waits for it during the module's start. A `sqlite3ApiConfig` the app set itself is kept.
 */
export function loadSqlite3(options: { sahpoolOnly?: boolean | undefined } = {}): Promise<Sqlite3Static> {
  if (!modulePromise) {
    const g = globalThis as { sqlite3ApiConfig?: unknown; navigator?: unknown; document?: unknown; WorkerGlobalScope?: unknown };
    const inBrowser = typeof g.document !== 'undefined' || typeof g.WorkerGlobalScope !== 'undefined';
    if ((!inBrowser || options.sahpoolOnly) && g.sqlite3ApiConfig === undefined) {
      g.sqlite3ApiConfig = { disable: { vfs: { opfs: true, 'opfs-vfs': true, 'opfs-wl': true } } };
    }
    const init = sqlite3InitModule as unknown as (opts: object) => Promise<Sqlite3Static>;
    modulePromise = init({ print: () => {}, printErr: () => {} }).then(quietFailedSteps).catch((cause: unknown) => {
      modulePromise = undefined;
      throw new HybridMindError('STORAGE', 'HybridMemory.open', 'SQLite-WASM failed to load', { cause });
    });
  }
  return modulePromise;
}

/** The first argument of oo1's warning for a failing `step()` (see {@link quietFailedSteps}). */
const FAILED_STEP = 'sqlite3_step() rc=';

/**
 * oo1's `step()` writes every failing statement to `config.warn` (the console unless the app set
 * `sqlite3ApiConfig.warn`) and then throws: a corrupt file or a constraint would print to the
 * user's console although the same code and SQLite's message reach the caller as this library's
 * coded error. Only that line is dropped; the module's other warnings (a VFS that could not be
 * installed) still go where the app's config sends them.
 */
function quietFailedSteps(sqlite3: Sqlite3Static): Sqlite3Static {
  const config = (sqlite3 as unknown as { config: { warn: (...args: unknown[]) => void } }).config;
  const warn = config.warn;
  config.warn = (...args: unknown[]) => {
    if (args[0] !== FAILED_STEP) warn(...args);
  };
  return sqlite3;
}
