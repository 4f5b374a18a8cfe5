import { join } from 'node:path';
import type { SyncFile } from '../../src/storage/derived-files.js';
import { nodeSyncFile } from '../../src/storage/node-derived-files.js';
import { DERIVED_NAMES } from '../../src/memory/indexes.js';

/** One file per derived value in `dir`, as the worker opens them on OPFS. */
export function nodeDerivedFiles(dir: string): Map<string, SyncFile> {
  return new Map(DERIVED_NAMES.map((name) => [name, nodeSyncFile(join(dir, `${name}.bin`))]));
}
