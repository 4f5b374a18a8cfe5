/**
 * Node only: a file store's derived values as files in a folder beside its database
 * (`memory.db` → `memory.db-derived/<name>.bin`, the layout of `derived-files.ts`). At a cold open
 * of a 100k store, better-sqlite3 handed the 41 MB of int8 codes over from `derived_index` in
 * ~90 ms (a Buffer per part, then joined); one file read lands them where the scan keeps them.
 */
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { HybridMindError, messageOf } from '../errors.js';
import { fileDerivedStore, type SyncFile } from './derived-files.js';
import type { DerivedStore } from './driver.js';

/** A derived value's name as a file name: the library's own names, so nothing else lands in the folder. */
const FILE = /^([a-z][a-z0-9-]*)\.bin$/;

/** The folder that holds the derived files of the database at `dbPath`. */
export function derivedFolderOf(dbPath: string): string {
  return `${dbPath}-derived`;
}

/** The file at `path`, created if missing, with the synchronous operations OPFS's sync access handle has. */
export function nodeSyncFile(path: string): SyncFile {
  const handle = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
  return {
    read: (into, { at }) => readSync(handle, into, 0, into.length, at),
    write: (bytes, { at }) => writeSync(handle, bytes, 0, bytes.length, at),
    truncate: (size) => ftruncateSync(handle, size),
    getSize: () => fstatSync(handle).size,
    flush: () => fsyncSync(handle),
    close: () => closeSync(handle),
  };
}

/**
 * The derived files in `folder` (created if missing), each opened now if it exists and on first
 * use otherwise. The caller holds the database's lock, which is what keeps two owners apart.
 */
export function openNodeDerivedFiles(folder: string, method: string): DerivedStore {
  const files = new Map<string, SyncFile>();
  try {
    mkdirSync(folder, { recursive: true });
    for (const entry of readdirSync(folder)) {
      const name = FILE.exec(entry)?.[1];
      if (name !== undefined) files.set(name, nodeSyncFile(join(folder, entry)));
    }
  } catch (cause) {
    for (const file of files.values()) file.close();
    throw new HybridMindError('STORAGE', method, `cannot open the derived files in ${folder}: ${messageOf(cause)}`, { cause });
  }
  return fileDerivedStore(files, (name, opening) => {
    if (!FILE.test(`${name}.bin`)) throw new HybridMindError('STORAGE', opening, `a derived value's name must be lowercase letters, digits and dashes, received ${JSON.stringify(name)}`);
    return nodeSyncFile(join(folder, `${name}.bin`));
  });
}

/** Removes the derived files of an earlier open from `folder`, and the folder once nothing else is in it. */
export function removeNodeDerivedFiles(folder: string, method: string): void {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return;
  }
  try {
    for (const entry of entries) if (FILE.test(entry)) unlinkSync(join(folder, entry));
    if (entries.every((entry) => FILE.test(entry))) rmdirSync(folder);
  } catch (cause) {
    throw new HybridMindError('STORAGE', method, `cannot remove the derived files in ${folder}: ${messageOf(cause)}`, { cause });
  }
}
