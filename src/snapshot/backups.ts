import { HybridMindError, invalid } from '../errors.js';
import { HybridMemory, type ImportSnapshotOptions } from '../hybrid-memory.js';
import { checkIntInRange, checkOptions, keysOf } from '../memory/validate.js';
import type { SnapshotLimits } from './format.js';
import { verifySnapshot } from './read.js';
import type { BackupStore } from './backup-store.js';
import { sha256Hex } from './sha256.js';

export type { BackupStore };

export interface BackupOptions {
  /** Valid snapshots to keep. Default 5. */
  keep?: number | undefined;
  /** File name prefix, so several stores can share one place. Default `hybridmind`. */
  prefix?: string | undefined;
  /** Reader limits used when checking backups. */
  limits?: SnapshotLimits | undefined;
  /** Clock for file names (epoch ms). Default `Date.now`. */
  now?: (() => number) | undefined;
}

/** A backup that could not be used, and why (a coded error's code and message). */
export interface SkippedBackup {
  name: string;
  code: string;
  message: string;
}

const KEYS = keysOf<BackupOptions>({ keep: true, prefix: true, limits: true, now: true });
/** Errors that make one backup unusable; anything else (storage, model mismatch) stops the walk. */
const SKIPPABLE = new Set(['CORRUPT', 'UNSUPPORTED']);

/**
 * Rotating snapshots of a store: `backup()` writes a new `.mind.zip` and keeps the `keep` newest
 * VALID ones, deleting anything older than the oldest of those. Invalid backups do not count and
 * are left alone unless older (they may come from a newer library). Names sort by time:
 * `<prefix>-<yyyymmddThhmmssmmmZ>-<seq>.mind.zip`.
 *
 * @example
 * const backups = await SnapshotBackups.inDirectory('./backups', { keep: 3 }); // Node
 * const backups = await SnapshotBackups.inOpfs('hybridmind-backups');          // browser
 * await backups.backup(mem);
 * await backups.restoreNewestValid(mem);
 */
export class SnapshotBackups {
  readonly store: BackupStore;
  readonly #keep: number;
  readonly #prefix: string;
  readonly #limits: SnapshotLimits | undefined;
  readonly #now: () => number;
  readonly #pattern: RegExp;
  /**
   * SHA-256 of each backup's bytes when it last passed validation: re-checking a kept backup
   * then costs a read and a hash, while a file changed behind our back is validated again.
   */
  readonly #verified = new Map<string, string>();
  #tail: Promise<unknown> = Promise.resolve();

  constructor(store: BackupStore, options: BackupOptions = {}) {
    const method = 'SnapshotBackups';
    const o = checkOptions(method, 'options', options, KEYS) as BackupOptions;
    if (!store || typeof store.list !== 'function' || typeof store.write !== 'function') throw invalid(method, 'store must be a BackupStore', store);
    this.#keep = o.keep === undefined ? 5 : checkIntInRange(method, 'options.keep', o.keep, 1, Number.MAX_SAFE_INTEGER);
    this.#prefix = o.prefix ?? 'hybridmind';
    if (typeof this.#prefix !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(this.#prefix)) throw invalid(method, 'options.prefix must be 1–64 of A-Z a-z 0-9 . _ -', o.prefix);
    if (o.now !== undefined && typeof o.now !== 'function') throw invalid(method, 'options.now must be a function returning epoch ms', o.now);
    this.store = store;
    this.#limits = o.limits;
    this.#now = o.now ?? Date.now;
    this.#pattern = new RegExp(`^${this.#prefix.replace(/\./g, '\\.')}-(\\d{8}T\\d{9}Z)-(\\d{4})\\.mind\\.zip$`);
  }

  /** Backups in a Node directory (created on first write); node:fs is loaded only here. */
  static async inDirectory(directory: string, options: BackupOptions = {}): Promise<SnapshotBackups> {
    const { DirectoryBackupStore } = await import('./node-files.js');
    return new SnapshotBackups(new DirectoryBackupStore(directory), options);
  }

  /** Backups in the origin private file system (browser or worker). */
  static async inOpfs(path = 'hybridmind-backups', options: BackupOptions = {}): Promise<SnapshotBackups> {
    const { OpfsBackupStore } = await import('./opfs-store.js');
    return new SnapshotBackups(await OpfsBackupStore.open(path), options);
  }

  /** This rotation's backup names, newest first. */
  async list(): Promise<string[]> {
    return (await this.store.list()).filter((name) => this.#pattern.test(name)).sort().reverse();
  }

  /**
   * Writes a snapshot of `mem` as the newest backup, then rotates. Resolves to its name. `mem` may
   * be a page's worker client (`HybridMemory.connect`) as well as a store.
   */
  backup(mem: Pick<HybridMemory, 'exportSnapshot'>): Promise<string> {
    // One at a time: two overlapping backups would pick the same next name.
    const run = this.#tail.then(async () => {
      const bytes = await mem.exportSnapshot();
      const name = this.#nextName(await this.list());
      await this.store.write(name, bytes);
      await this.rotate();
      return name;
    });
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Deletes backups older than the `keep`-th newest valid one; resolves to the names removed. */
  async rotate(): Promise<string[]> {
    const removed: string[] = [];
    let valid = 0;
    for (const name of await this.list()) {
      if (valid >= this.#keep) {
        await this.store.remove(name);
        this.#verified.delete(name);
        removed.push(name);
      } else if ((await this.#check(name)) === null) {
        valid++;
      }
    }
    return removed;
  }

  /** Restores the newest backup that validates into `mem` (see `restoreSnapshot`), skipping bad ones. */
  async restoreNewestValid(mem: Pick<HybridMemory, 'restoreSnapshot'>): Promise<{ restored: string | null; skipped: SkippedBackup[] }> {
    return this.#newestValid(async (name, bytes) => {
      await mem.restoreSnapshot(bytes, this.#limits ? { limits: this.#limits } : {});
      return name;
    });
  }

  /** Opens the newest backup that validates as a new in-memory store, skipping bad ones. */
  async openNewestValid(options: ImportSnapshotOptions = {}): Promise<{ memory: HybridMemory | null; name: string | null; skipped: SkippedBackup[] }> {
    let memory: HybridMemory | null = null;
    const { restored, skipped } = await this.#newestValid(async (name, bytes) => {
      memory = await HybridMemory.importSnapshot(bytes, { ...(this.#limits ? { limits: this.#limits } : {}), ...options });
      return name;
    });
    return { memory, name: restored, skipped };
  }

  async #newestValid(use: (name: string, bytes: Uint8Array) => Promise<string>): Promise<{ restored: string | null; skipped: SkippedBackup[] }> {
    const skipped: SkippedBackup[] = [];
    for (const name of await this.list()) {
      try {
        return { restored: await use(name, await this.store.read(name)), skipped };
      } catch (error) {
        if (!(error instanceof HybridMindError) || !SKIPPABLE.has(error.code)) throw error;
        skipped.push({ name, code: error.code, message: error.message });
      }
    }
    return { restored: null, skipped };
  }

  /** null when the backup is valid, else why not. */
  async #check(name: string): Promise<HybridMindError | null> {
    const bytes = await this.store.read(name);
    const digest = await sha256Hex('SnapshotBackups.rotate', bytes);
    if (this.#verified.get(name) === digest) return null;
    try {
      await verifySnapshot(bytes, this.#limits ? { limits: this.#limits } : {});
    } catch (error) {
      this.#verified.delete(name);
      if (error instanceof HybridMindError && SKIPPABLE.has(error.code)) return error;
      throw error;
    }
    this.#verified.set(name, digest);
    return null;
  }

  /** Strictly after every existing name, even if the clock stalls or steps back. */
  #nextName(existing: string[]): string {
    const stamp = new Date(this.#now()).toISOString().replace(/[-:.]/g, '');
    const newest = existing[0] ? this.#pattern.exec(existing[0]) : null;
    let seq = 0;
    let at = stamp;
    if (newest && newest[1]! >= stamp) {
      at = newest[1]!;
      seq = Number(newest[2]) + 1;
    }
    if (seq > 9999) throw new HybridMindError('CONFLICT', 'SnapshotBackups.backup', `more than 10000 backups named for ${at}`);
    return `${this.#prefix}-${at}-${String(seq).padStart(4, '0')}.mind.zip`;
  }
}
