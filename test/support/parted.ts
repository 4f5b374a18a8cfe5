import type { PartedBytes } from '../../src/util/parted-bytes.js';

/**
 * `bytes` as a value read in pieces of `size` bytes, each handed over in one scratch buffer that
 * is overwritten once the visit returns (as a view of SQLite's memory would be); `lost`: the
 * last piece never comes, or the middle one. `visited` counts the pieces handed over.
 */
export function inPieces(bytes: Uint8Array, size: number, lost?: 'last' | 'middle'): { bytes: PartedBytes; visited: () => number } {
  const scratch = new Uint8Array(size);
  let visited = 0;
  return {
    visited: () => visited,
    bytes: {
      length: bytes.length,
      read(visit) {
        const middle = Math.floor(Math.ceil(bytes.length / size) / 2) * size;
        for (let at = 0; at < bytes.length; at += size) {
          if (lost === 'last' && at + size >= bytes.length) return false;
          if (lost === 'middle' && at === middle) continue;
          const piece = bytes.subarray(at, at + size);
          scratch.set(piece);
          visited++;
          const went = visit(scratch.subarray(0, piece.length), at);
          scratch.fill(0x5a);
          if (went === false) return false;
        }
        return lost === undefined;
      },
    },
  };
}
