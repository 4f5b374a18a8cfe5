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
  /**
   * Fills `into` with the value's bytes from `at` on, straight from where they are kept; false
   * when they cannot be read. Optional: a value kept in a file has it, so a reader that knows
   * where each section goes (`readSections`) reads it there without a copy in between.
   */
  readRange?(into: Uint8Array, at: number): boolean;
}

/** Whether `value` is a `PartedBytes` (to check an argument that may also be plain bytes). */
export function isParted(value: unknown): value is PartedBytes {
  const parted = value as Partial<PartedBytes> | null;
  return typeof parted === 'object' && parted !== null && typeof parted.read === 'function' && Number.isSafeInteger(parted.length) && parted.length! >= 0;
}

/** `bytes` as a value of one piece. */
export function wholeBytes(bytes: Uint8Array): PartedBytes {
  return piecesBytes([bytes]);
}

/** `pieces` one after the other as one value, none of them copied. */
export function piecesBytes(pieces: readonly Uint8Array[]): PartedBytes {
  return {
    length: pieces.reduce((sum, piece) => sum + piece.length, 0),
    read(visit) {
      let at = 0;
      for (const piece of pieces) {
        if (visit(piece, at) === false) return false;
        at += piece.length;
      }
      return true;
    },
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

/** Where a section of a parted value goes: its bytes from `start` on, as many as `into` holds. */
export interface Section {
  start: number;
  into: Uint8Array;
}

/**
 * Reads `source` into sections: `plan` is handed its first `headBytes` bytes (all of them, when
 * it is shorter), gathered across pieces however it was cut, and says where the sections go, or
 * null to stop there; each piece is then copied into the sections it overlaps, the head too.
 * 'stopped' when `plan` stopped, 'broken' when the pieces did not make the whole value. What
 * `plan` throws is thrown once the read has stopped, not from inside it (where a driver would
 * take it for a failure of its own).
 */
export function readSections(source: PartedBytes, headBytes: number, plan: (head: Uint8Array) => readonly Section[] | null): 'read' | 'stopped' | 'broken' {
  const head = new Uint8Array(Math.min(headBytes, source.length));
  if (source.readRange) return readRanges(source, source.readRange.bind(source), head, plan);
  let sections: readonly Section[] | null = null;
  let stopped = false;
  const place = (piece: Uint8Array, at: number) => {
    for (const { start, into } of sections!) {
      const from = Math.max(start, at);
      const to = Math.min(start + into.length, at + piece.length);
      if (from < to) into.set(piece.subarray(from - at, to - at), from - start);
    }
  };
  const planned = (): boolean => {
    sections = plan(head);
    stopped = sections === null;
    if (!stopped) place(head, 0);
    return !stopped;
  };
  let failed = false;
  let failure: unknown;
  const whole = source.read((piece, at) => {
    try {
      if (sections !== null) return place(piece, at);
      head.set(piece.subarray(0, head.length - at), at);
      if (at + piece.length < head.length) return;
      if (!planned()) return false;
      if (at + piece.length > head.length) place(piece.subarray(head.length - at), head.length);
    } catch (error) {
      failed = true;
      failure = error;
      return false;
    }
  });
  if (failed) throw failure;
  if (stopped) return 'stopped';
  return whole && sections !== null ? 'read' : 'broken';
}

/** `readSections` for a source that reads ranges: the head, then each section straight into place. */
function readRanges(source: PartedBytes, readRange: (into: Uint8Array, at: number) => boolean, head: Uint8Array, plan: (head: Uint8Array) => readonly Section[] | null): 'read' | 'stopped' | 'broken' {
  if (!readRange(head, 0)) return 'broken';
  const sections = plan(head);
  if (sections === null) return 'stopped';
  for (const { start, into } of sections) {
    if (start + into.length > source.length || !readRange(into, start)) return 'broken';
  }
  return 'read';
}
