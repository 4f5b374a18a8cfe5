/**
 * Node-only: snapshot files and a backup directory on the local file system. Kept apart (and
 * loaded lazily by `SnapshotBackups.inDirectory`), with `node:fs` and `node:path` loaded when first
 * called (`nodeBuiltin`), so browser bundles never pull them in.
 */
import { HybridMindError, invalid, messageOf } from '../errors.js';
import { HybridMemory, type ImportSnapshotOptions } from '../hybrid-memory.js';
import { nodeBuiltin } from '../util/node-builtin.js';
import type { BackupStore } from './backup-store.js';

type Fs = typeof import('node:fs/promises');
type Path = typeof import('node:path');
let modules: Promise<[Fs, Path]> | undefined;
const node = (): Promise<[Fs, Path]> => (modules ??= Promise.all([nodeBuiltin<Fs>('node:fs/promises'), nodeBuiltin<Path>('node:path')]));

function storageError(method: string, what: string, cause: unknown): HybridMindError {
  return new HybridMindError('STORAGE', method, `${what}: ${messageOf(cause)}`, { cause });
}

/** Temp files this process is writing now; the cleanup leaves them alone. */
const writing = new Set<string>();

/**
 * `.<file>.<pid>-<random>.tmp`: the writer's pid tells a live write from one a crash left behind.
 * Versions before that wrote `.<file>.<random>.tmp`, which says nothing of its writer.
 */
const TEMP = /^\.(.+)\.(?:(\d+)-[a-z0-9]+|([a-z0-9]+))\.tmp$/;
/** An unowned old-style temp older than this is stale: a save takes seconds, not a minute. */
const OLD_TEMP_AGE_MS = 60_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/**
 * Removes the temp files in `dir` that no live write owns — of the file `target`, or of any
 * `.mind.zip` when no target is given (a backup directory, where each backup has its own name and
 * a temp killed midway would otherwise never meet a later save of the same name). A process
 * killed between creating its temp file and renaming it leaves one behind, and nothing else would
 * ever remove it.
 */
export async function removeStaleTemps(dir: string, target?: string): Promise<void> {
  const [{ readdir, rm }, { join }] = await node();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = TEMP.exec(name);
    const full = join(dir, name);
    if (!match || writing.has(full) || (target === undefined ? !match[1]!.endsWith('.mind.zip') : match[1] !== target)) continue;
    if (match[2] !== undefined ? isStale(Number(match[2])) : await isOld(full)) await rm(full, { force: true }).catch(() => undefined);
  }
}

const isStale = (pid: number): boolean => pid === process.pid || !isAlive(pid);

async function isOld(path: string): Promise<boolean> {
  const [{ stat }] = await node();
  try {
    return Date.now() - (await stat(path)).mtimeMs > OLD_TEMP_AGE_MS;
  } catch {
    return false;
  }
}

/**
 * Writes `bytes` to `path` so that the path holds either the old file or the whole new one:
 * a temp file in the same directory, flushed to disk, then renamed over the target. Temp files
 * an earlier, killed write left behind are removed first.
 */
export async function writeFileAtomic(path: string, bytes: Uint8Array, method = 'writeFileAtomic'): Promise<void> {
  const [{ open, rename, rm }, { basename, dirname, join }] = await node();
  await removeStaleTemps(dirname(path), basename(path));
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`);
  writing.add(temp);
  let handle: Awaited<ReturnType<Fs['open']>> | undefined;
  try {
    handle = await open(temp, 'wx');
    await handle.writeFile(bytes);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, path);
  } catch (cause) {
    await handle?.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
    throw storageError(method, `writing ${path} failed`, cause);
  } finally {
    writing.delete(temp);
  }
  // The rename is durable only once the directory is flushed; some platforms cannot open one, which is fine.
  try {
    const dir = await open(dirname(path), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    // best effort
  }
}

/** Saves `mem` as a `.mind.zip` at `path`, atomically. */
export async function saveSnapshotFile(mem: HybridMemory, path: string): Promise<void> {
  if (typeof path !== 'string' || path === '') throw invalid('saveSnapshotFile', 'path must be a non-empty string', path);
  await writeFileAtomic(path, await mem.exportSnapshot(), 'saveSnapshotFile');
}

/** Opens the `.mind.zip` at `path` as a new in-memory store (validated like `HybridMemory.importSnapshot`). */
export async function loadSnapshotFile(path: string, options: ImportSnapshotOptions = {}): Promise<HybridMemory> {
  if (typeof path !== 'string' || path === '') throw invalid('loadSnapshotFile', 'path must be a non-empty string', path);
  const [{ readFile }, { basename, dirname }] = await node();
  await removeStaleTemps(dirname(path), basename(path));
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (cause) {
    throw storageError('loadSnapshotFile', `reading ${path} failed`, cause);
  }
  return HybridMemory.importSnapshot(bytes, options);
}

/** Backups as files in one directory. */
export class DirectoryBackupStore implements BackupStore {
  readonly directory: string;

  constructor(directory: string) {
    if (typeof directory !== 'string' || directory === '') throw invalid('DirectoryBackupStore', 'directory must be a non-empty string', directory);
    this.directory = directory;
  }

  /** The directory's files; listing first removes the temps of writes killed midway, so opening the backups cleans them. */
  async list(): Promise<string[]> {
    await removeStaleTemps(this.directory);
    const [{ readdir }] = await node();
    try {
      return (await readdir(this.directory, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
    } catch (cause) {
      if ((cause as { code?: string }).code === 'ENOENT') return [];
      throw storageError('DirectoryBackupStore.list', `listing ${this.directory} failed`, cause);
    }
  }

  async read(name: string): Promise<Uint8Array> {
    const [{ readFile }] = await node();
    try {
      return await readFile(await this.#path('read', name));
    } catch (cause) {
      if (cause instanceof HybridMindError) throw cause;
      throw storageError('DirectoryBackupStore.read', `reading ${name} failed`, cause);
    }
  }

  async write(name: string, bytes: Uint8Array): Promise<void> {
    const [{ mkdir }] = await node();
    const path = await this.#path('write', name);
    try {
      await mkdir(this.directory, { recursive: true });
    } catch (cause) {
      throw storageError('DirectoryBackupStore.write', `creating ${this.directory} failed`, cause);
    }
    await writeFileAtomic(path, bytes, 'DirectoryBackupStore.write');
  }

  async remove(name: string): Promise<void> {
    const [{ rm }] = await node();
    try {
      await rm(await this.#path('remove', name), { force: true });
    } catch (cause) {
      if (cause instanceof HybridMindError) throw cause;
      throw storageError('DirectoryBackupStore.remove', `removing ${name} failed`, cause);
    }
  }

  /** Only plain file names: a name must never reach outside the directory. */
  async #path(verb: string, name: string): Promise<string> {
    if (typeof name !== 'string' || name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) {
      throw invalid(`DirectoryBackupStore.${verb}`, 'name must be a plain file name', name);
    }
    const [, { join }] = await node();
    return join(this.directory, name);
  }
}
