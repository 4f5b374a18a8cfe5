import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { SyncFile } from '../../src/storage/derived-files.js';
import { DERIVED_NAMES } from '../../src/memory/indexes.js';

/**
 * A real file opened for synchronous reads and writes at offsets, shaped as OPFS's sync access
 * handle: Node has no OPFS, so derived files are tested here on the disk and in Chromium by e2e.
 */
export function nodeSyncFile(path: string): SyncFile {
  const handle = openSync(path, existsSync(path) ? 'r+' : 'w+');
  return {
    read: (into, { at }) => readSync(handle, into, 0, into.length, at),
    write: (bytes, { at }) => writeSync(handle, bytes, 0, bytes.length, at),
    truncate: (size) => ftruncateSync(handle, size),
    getSize: () => fstatSync(handle).size,
    flush: () => fsyncSync(handle),
    close: () => closeSync(handle),
  };
}

/** One file per derived value in `dir`, as the worker opens them on OPFS. */
export function nodeDerivedFiles(dir: string): Map<string, SyncFile> {
  return new Map(DERIVED_NAMES.map((name) => [name, nodeSyncFile(join(dir, `${name}.bin`))]));
}
