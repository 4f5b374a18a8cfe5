import * as Comlink from 'comlink';
import { HybridMindError, invalid } from '../errors.js';
import { MEMORY_METHODS, transferables, unwrap, type MemoryEvent, type Outcome } from './protocol.js';
import type { ConnectOptions, RemoteMemory } from './types.js';

/** The worker side as the client sees it (see worker/host.ts). */
interface WorkerApi {
  open(options: object, onEvent?: (event: MemoryEvent) => void): Promise<Outcome<{ role: 'owner' | 'follower' }>>;
  call(method: string, args: unknown[]): Promise<Outcome<unknown>>;
  close(): Promise<Outcome<void>>;
}

/**
 * Anything Comlink can talk to: a Worker, a MessagePort. Each is read off the app's globals rather
 * than named, so that the declarations compile where they are not declared (a Node app's types, no
 * DOM), where there is nothing to connect to.
 */
export type WorkerLike = GlobalInstance<'Worker'> | GlobalInstance<'MessagePort'>;

type GlobalInstance<Name extends string> = typeof globalThis extends { [K in Name]: abstract new (...args: never[]) => infer T } ? T : never;

/**
 * Opens a store in a worker started from `hybridmind/worker` and returns its API: the methods of
 * `HybridMemory`, each async. Errors arrive as `HybridMindError` with the worker's code; BUSY
 * means another tab owns the store and `multiTab: 'fail'` was asked for.
 *
 * @example
 * const worker = new Worker(new URL('hybridmind/worker', import.meta.url), { type: 'module' });
 * const mem = await connect(worker, { store: 'notes', onEvent: (e) => updateStatus(e) });
 * await mem.store({ text: 'ADR-007: SQLite-WASM on OPFS is the source of truth' });
 * const hits = await mem.recall('where does memory live?');
 */
export async function connect(worker: WorkerLike, options: ConnectOptions = {}): Promise<RemoteMemory> {
  if (worker === null || typeof worker !== 'object' || typeof (worker as { postMessage?: unknown }).postMessage !== 'function') {
    throw invalid('HybridMemory.connect', 'worker must be a Worker or MessagePort', worker);
  }
  const { onEvent, ...plain } = options;
  const remote = Comlink.wrap<WorkerApi>(worker);
  const opened = unwrap(await remote.open(plain, onEvent ? Comlink.proxy(onEvent) : undefined));
  let closed = false;

  const call = async (method: string, args: unknown[]): Promise<unknown> => {
    if (closed) throw new HybridMindError('CLOSED', method, 'the store is closed');
    // A progress callback (storeMany's, reembed's) stays here: the worker reports progress as
    // events. Any other function is refused like everything the structured clone cannot copy.
    const plainArgs = args.map((a) => (a && typeof a === 'object' && !ArrayBuffer.isView(a) && !Array.isArray(a) && typeof (a as { onProgress?: unknown }).onProgress === 'function'
      ? Object.fromEntries(Object.entries(a).filter(([key]) => key !== 'onProgress'))
      : a));
    const sent = await remote.call(method, Comlink.transfer(plainArgs, transferables(plainArgs))).catch((error: unknown) => {
      throw uncloneable(method, plainArgs, error);
    });
    return unwrap(sent);
  };

  const api: Record<string, unknown> = {};
  for (const method of MEMORY_METHODS) api[method] = (...args: unknown[]) => call(method, args);
  api['role'] = async () => (await call('role', [])) ?? opened.role;
  api['modelStatus'] = () => call('modelStatus', []);
  api['close'] = async () => {
    if (closed) return;
    closed = true;
    unwrap(await remote.close());
    remote[Comlink.releaseProxy]();
  };
  return api as unknown as RemoteMemory;
}

/**
 * A call whose arguments the structured clone refuses (a function or symbol inside them, a class
 * instance with private state) never reaches the worker: the same call on an embedded store is an
 * argument error, so it is one here too, naming the argument, not a DataCloneError.
 */
function uncloneable(method: string, args: unknown[], error: unknown): unknown {
  if (!(error instanceof Error) || error.name !== 'DataCloneError') return error;
  const refused = args.find((arg) => {
    try {
      structuredClone(arg);
      return false;
    } catch {
      return true;
    }
  });
  return invalid(method, `arguments must be plain data to reach the worker (${error.message})`, refused);
}
