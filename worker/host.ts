import * as Comlink from 'comlink';
import { HybridMindError, invalid, messageOf } from '../src/errors.js';
import type { LogLevel } from '../src/logger.js';
import type { HybridMemory } from '../src/hybrid-memory.js';
import { MEMORY_METHODS, settle, toWire, transferables, unwrap, type MemoryEvent, type MemoryMethod, type Outcome } from '../src/client/protocol.js';
import type { WorkerStoreOptions } from '../src/client/types.js';
import { openStore, type OpenedStore } from './open-store.js';

/** What `HybridMemory.connect` talks to through Comlink. */
export interface WorkerApi {
  open(options: WorkerStoreOptions, onEvent?: (event: MemoryEvent) => void): Promise<Outcome<{ role: 'owner' | 'follower' }>>;
  call(method: string, args: unknown[]): Promise<Outcome<unknown>>;
  close(): Promise<Outcome<void>>;
}

type Message =
  | { type: 'req'; id: string; from: string; method: MemoryMethod | 'modelStatus'; args: unknown[] }
  | { type: 'res'; id: string; to: string; outcome: Outcome<unknown> }
  | { type: 'event'; event: MemoryEvent };

const STORE_NAME = /^[A-Za-z0-9._-]{1,64}$/;
const WRITES = new Set<string>(['store', 'storeMany', 'relate', 'unrelate', 'update', 'forget', 'restoreSnapshot']);

/**
 * One store per worker. The first tab to take the store's Web Lock owns it (opens SQLite on OPFS
 * and the model); the others forward every call to the owner over a BroadcastChannel and queue
 * for the lock, so when the owner's tab closes the next one takes over and re-runs what was in
 * flight. Nothing but plain data and coded errors crosses any boundary.
 */
class StoreHost {
  readonly #self = randomId();
  #options: WorkerStoreOptions = {};
  #name = 'default';
  #role: 'owner' | 'follower' | null = null;
  #opened: Promise<OpenedStore> | null = null;
  #channel: BroadcastChannel | null = null;
  #emit: (event: MemoryEvent) => void = () => {};
  #release: (() => void) | null = null;
  readonly #pending = new Map<string, { method: MemoryMethod | 'modelStatus'; args: unknown[]; resolve: (o: Outcome<unknown>) => void }>();
  #closed = false;

  async open(options: WorkerStoreOptions, onEvent?: (event: MemoryEvent) => void): Promise<Outcome<{ role: 'owner' | 'follower' }>> {
    return settle('connect', async () => {
      if (this.#role) throw new HybridMindError('CONFLICT', 'connect', 'this worker already hosts a store; create one worker per store');
      const name = options.store ?? 'default';
      if (typeof name !== 'string' || !STORE_NAME.test(name)) throw invalid('connect', 'options.store must be 1–64 letters, digits, ".", "_" or "-"', name);
      if (options.multiTab !== undefined && options.multiTab !== 'forward' && options.multiTab !== 'fail') throw invalid('connect', "options.multiTab must be 'forward' or 'fail'", options.multiTab);
      this.#options = options;
      this.#name = name;
      this.#emit = (event) => {
        onEvent?.(event);
        if (this.#role === 'owner') this.#channel?.postMessage({ type: 'event', event } satisfies Message);
      };
      const locks = (globalThis.navigator as Navigator | undefined)?.locks;
      if (!locks) throw new HybridMindError('UNSUPPORTED', 'connect', 'Web Locks are unavailable here; a store needs them to pick one owner across tabs');
      this.#channel = new BroadcastChannel(`hybridmind:${name}`);
      this.#channel.onmessage = (e: MessageEvent<Message>) => this.#onMessage(e.data, onEvent);
      if (await this.#lock(true)) {
        await this.#becomeOwner();
      } else {
        if (options.multiTab === 'fail') {
          this.#shutdown();
          throw new HybridMindError('BUSY', 'connect', `store ${JSON.stringify(name)} is open in another tab`);
        }
        this.#role = 'follower';
        this.#emit({ type: 'role', role: 'follower', store: name });
        void this.#lock(false).then(
          (got) => (got ? this.#promote() : undefined),
          (error: unknown) => this.#log('error', `${messageOf(error)}; this tab will not take the store over when its owner closes`),
        );
      }
      return { role: this.#role! };
    });
  }

  async call(method: string, args: unknown[]): Promise<Outcome<unknown>> {
    if (method !== 'modelStatus' && method !== 'role' && !(MEMORY_METHODS as readonly string[]).includes(method)) {
      return { ok: false, error: toWire(invalid('connect', 'unknown method', method), String(method)) };
    }
    if (method === 'role') return { ok: true, value: this.#role };
    if (this.#closed || !this.#role) return { ok: false, error: toWire(new HybridMindError('CLOSED', method, 'the store is closed'), method) };
    const outcome = this.#role === 'owner' ? await this.#run(method as MemoryMethod, args) : await this.#forward(method as MemoryMethod, args);
    return outcome.ok ? Comlink.transfer(outcome, transferables(outcome.value)) : outcome;
  }

  async close(): Promise<Outcome<void>> {
    return settle('close', async () => {
      if (this.#closed) return;
      this.#closed = true;
      if (this.#role === 'owner' && this.#opened) await (await this.#opened).memory.close();
      this.#shutdown();
    });
  }

  #shutdown(): void {
    this.#channel?.close();
    this.#channel = null;
    this.#release?.();
    this.#release = null;
  }

  /**
   * Resolves true once this worker holds the store's lock (held until close or the tab goes),
   * false when another tab holds it. A failing Web Locks request rejects: it says nothing about
   * who owns the store.
   */
  #lock(ifAvailable: boolean): Promise<boolean> {
    return new Promise((resolve, reject) => {
      navigator.locks
        .request(`hybridmind:${this.#name}`, { ifAvailable }, (lock) => {
          if (!lock || this.#closed) {
            resolve(false);
            return undefined;
          }
          resolve(true);
          return new Promise<void>((release) => (this.#release = release));
        })
        .catch((cause: unknown) => reject(new HybridMindError('STORAGE', 'connect', `the Web Lock for store ${JSON.stringify(this.#name)} failed: ${messageOf(cause)}`, { cause })));
    });
  }

  async #becomeOwner(): Promise<void> {
    this.#role = 'owner';
    this.#opened = openStore(this.#options, (e) => this.#emit(e), (level, message) => this.#log(level, message));
    try {
      await this.#opened;
    } catch (error) {
      this.#role = null;
      this.#shutdown();
      throw error;
    }
    this.#emit({ type: 'role', role: 'owner', store: this.#name });
  }

  /** The worker's log reaches the page as `log:<level>` events. */
  #log(level: LogLevel, message: string): void {
    if (level !== 'debug') this.#emit({ type: 'model', status: `log:${level}`, file: message });
  }

  /** The owner's tab went away: take over, then re-run what was waiting on it. */
  async #promote(): Promise<void> {
    try {
      await this.#becomeOwner();
    } catch (error) {
      for (const [id, p] of this.#pending) {
        this.#pending.delete(id);
        p.resolve({ ok: false, error: toWire(error, p.method) });
      }
      return;
    }
    for (const [id, p] of this.#pending) {
      this.#pending.delete(id);
      void this.#run(p.method, p.args).then(p.resolve);
    }
  }

  async #run(method: MemoryMethod | 'modelStatus', args: unknown[]): Promise<Outcome<unknown>> {
    return settle(method, async () => {
      const opened = await this.#opened!;
      if (method === 'modelStatus') return opened.model();
      const fn = (opened.memory as unknown as Record<string, unknown>)[method];
      if (typeof fn !== 'function') throw new HybridMindError('UNSUPPORTED', method, 'this build of hybridmind does not have it');
      const value = await (fn as (...a: unknown[]) => Promise<unknown>).apply(opened.memory as HybridMemory, args);
      if (WRITES.has(method)) this.#emit({ type: 'changed', method: method as MemoryMethod });
      return value;
    });
  }

  #forward(method: MemoryMethod | 'modelStatus', args: unknown[]): Promise<Outcome<unknown>> {
    return new Promise((resolve) => {
      const id = randomId();
      this.#pending.set(id, { method, args, resolve });
      // Functions (e.g. storeMany's onProgress) cannot cross tabs; the owner reports progress as events.
      this.#channel!.postMessage({ type: 'req', id, from: this.#self, method, args: stripFunctions(args) } satisfies Message);
    });
  }

  #onMessage(message: Message, onEvent?: (event: MemoryEvent) => void): void {
    if (message.type === 'req' && this.#role === 'owner') {
      void this.#run(message.method, message.args).then((outcome) => {
        this.#channel?.postMessage({ type: 'res', id: message.id, to: message.from, outcome } satisfies Message);
      });
    } else if (message.type === 'res' && message.to === this.#self) {
      const p = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      p?.resolve(message.outcome);
    } else if (message.type === 'event' && this.#role === 'follower') {
      onEvent?.(message.event);
    }
  }
}

function stripFunctions(args: unknown[]): unknown[] {
  return args.map((a) => (a && typeof a === 'object' && !ArrayBuffer.isView(a) && !Array.isArray(a)
    ? Object.fromEntries(Object.entries(a).filter(([, v]) => typeof v !== 'function'))
    : a));
}

function randomId(): string {
  return typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
}

/** Serves one store to the page that created this worker. Call once in the worker entry. */
export function exposeMemoryWorker(): void {
  const host = new StoreHost();
  const api: WorkerApi = {
    open: (options, onEvent) => host.open(options, onEvent),
    call: (method, args) => host.call(method, args),
    close: () => host.close(),
  };
  Comlink.expose(api);
}

export { unwrap };
