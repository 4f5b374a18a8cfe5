/**
 * A value read in pieces, in order: what a store's parted blobs (`storage/blob-parts.ts`) are to
 * a reader that copies each piece straight to where it belongs. Joined into one buffer first, the
 * int8 vector codes of 100k memories are a fresh 40 MB the copy faults in page by page, copied a
 * second time into the scan's memory and then left to the collector.
 */
export interface PartedBytes {
  /** Bytes in all. */
  readonly length: number;
  /**
   * Hands every piece to `visit` with its offset, in order, as a view that is valid only during
   * the call, until a visit returns false; false when it stopped so or the pieces turned out not
   * to make the whole value, and then nothing visited may be used.
   */
  read(visit: (bytes: Uint8Array, at: number) => void | false): boolean;
}

/** `bytes` as a value of one piece. */
export function wholeBytes(bytes: Uint8Array): PartedBytes {
  return {
    length: bytes.length,
    read: (visit) => visit(bytes, 0) !== false,
  };
}

/** The pieces joined in one buffer; null when they do not make the whole value. */
export function joinParts(parted: PartedBytes): Uint8Array | null {
  const out = new Uint8Array(parted.length);
  return parted.read((bytes, at) => {
    out.set(bytes, at);
  })
    ? out
    : null;
}
