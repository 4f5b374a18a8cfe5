import type { SavedBytes } from '../../src/legs/types.js';
import { isParted, joinParts } from '../../src/util/parted-bytes.js';

/** A `SavedBytes` that keeps the last value written, joined into one buffer, and counts the writes; `deferred` as given. */
export function memorySavedBytes(deferred = false): SavedBytes & { bytes: Uint8Array | null; writes: number } {
  const store = {
    deferred,
    bytes: null as Uint8Array | null,
    writes: 0,
    read: () => store.bytes,
    write: (b: Parameters<SavedBytes['write']>[0]) => {
      store.bytes = isParted(b) ? joinParts(b) : b.slice();
      store.writes++;
    },
  };
  return store;
}
