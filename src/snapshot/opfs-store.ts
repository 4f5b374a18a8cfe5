/**
 * Backups in the origin private file system (browsers and workers). Only exercised in a
 * browser; see the browser test suite.
 */
import { HybridMindError, invalid } from '../errors.js';
import type { BackupStore } from './backup-store.js';

/** The parts of the OPFS API used here (TypeScript's DOM lib lacks async iteration of entries). */
interface Directory {
  getDirectoryHandle(name: string, options?: { create?: boolean | undefined }): Promise<Directory>;
  getFileHandle(name: string, options?: { create?: boolean | undefined }): Promise<FileHandle>;
  removeEntry(name: string): Promise<void>;
  entries(): AsyncIterable<[string, { kind: 'file' | 'directory' }]>;
}

interface FileHandle {
  getFile(): Promise<Blob>;
  createWritable?(): Promise<{ write(data: Uint8Array): Promise<void>; close(): Promise<void>; abort(): Promise<void> }>;
}

function storageError(method: string, cause: unknown): HybridMindError {
  return new HybridMindError('STORAGE', method, cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause), { cause });
}

export class OpfsBackupStore implements BackupStore {
  readonly #dir: Directory;

  private constructor(dir: Directory) {
    this.#dir = dir;
  }

  /** Opens (creating) `path`, slash-separated, under the origin's OPFS root. */
  static async open(path = 'hybridmind-backups'): Promise<OpfsBackupStore> {
    const method = 'OpfsBackupStore.open';
    const storage = (globalThis as { navigator?: { storage?: { getDirectory?: () => Promise<unknown> } } }).navigator?.storage;
    if (typeof storage?.getDirectory !== 'function') throw new HybridMindError('UNSUPPORTED', method, 'this runtime has no origin private file system (navigator.storage.getDirectory)');
    const parts = typeof path === 'string' ? path.split('/').filter(Boolean) : [];
    if (parts.length === 0 || parts.some((p) => p === '..' || p === '.')) throw invalid(method, 'path must name a directory below the OPFS root', path);
    try {
      let dir = (await storage.getDirectory()) as Directory;
      for (const part of parts) dir = await dir.getDirectoryHandle(part, { create: true });
      return new OpfsBackupStore(dir);
    } catch (cause) {
      throw storageError(method, cause);
    }
  }

  async list(): Promise<string[]> {
    const names: string[] = [];
    try {
      for await (const [name, handle] of this.#dir.entries()) if (handle.kind === 'file') names.push(name);
    } catch (cause) {
      throw storageError('OpfsBackupStore.list', cause);
    }
    return names;
  }

  async read(name: string): Promise<Uint8Array> {
    try {
      const file = await (await this.#dir.getFileHandle(checkName('read', name))).getFile();
      return new Uint8Array(await file.arrayBuffer());
    } catch (cause) {
      if (cause instanceof HybridMindError) throw cause;
      throw storageError('OpfsBackupStore.read', cause);
    }
  }

  /**
   * `createWritable()` writes to a swap file that replaces the file's content only on `close()`,
   * so a reader sees the whole snapshot or none of it. A crash mid-write can leave an empty file
   * under the name; it fails validation and is skipped.
   */
  async write(name: string, bytes: Uint8Array): Promise<void> {
    const handle = await this.#dir.getFileHandle(checkName('write', name), { create: true }).catch((cause: unknown) => {
      throw storageError('OpfsBackupStore.write', cause);
    });
    if (!handle.createWritable) throw new HybridMindError('UNSUPPORTED', 'OpfsBackupStore.write', 'this browser cannot write OPFS files from this context (no createWritable)');
    const writable = await handle.createWritable();
    try {
      await writable.write(bytes);
      await writable.close();
    } catch (cause) {
      await writable.abort().catch(() => undefined);
      throw storageError('OpfsBackupStore.write', cause);
    }
  }

  async remove(name: string): Promise<void> {
    try {
      await this.#dir.removeEntry(checkName('remove', name));
    } catch (cause) {
      if (cause instanceof HybridMindError) throw cause;
      if ((cause as { name?: string }).name === 'NotFoundError') return;
      throw storageError('OpfsBackupStore.remove', cause);
    }
  }
}

function checkName(verb: string, name: string): string {
  if (typeof name !== 'string' || name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) throw invalid(`OpfsBackupStore.${verb}`, 'name must be a plain file name', name);
  return name;
}
