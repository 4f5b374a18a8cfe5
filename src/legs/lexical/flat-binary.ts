/**
 * The lexical index's saved bytes from format version 3 on: a JSON header, then the flat state's
 * numbers as little-endian arrays and its terms (version 3: and texts) each as one UTF-8 run with
 * their lengths. Version 2 held the same state as one JSON text; parsing its 2.4M posting numbers
 * and 25 MB of text at 100k memories was a third of loading the index, and the arrays it built
 * were garbage the collector traced at every open. Version 4 drops the texts: SQLite holds them.
 * Version 5 is a base in version 4's layout followed by the changes since it, in the same layout
 * (`encodeChanges`), so a save after a few writes leaves the base's bytes as they were.
 *
 * Layout: MAGIC, u32 header length, header (UTF-8 JSON, holding the section sizes), then
 * f64 docs[3·n], (version 3: u32 text lengths[n],) u32 term lengths[terms], u32 postings[p],
 * (version 3: u32 byte length and the UTF-8 of every text,) u32 byte length and the UTF-8 of
 * every term. Lengths count UTF-16 units of the decoded text. Nothing here is trusted: every size
 * is checked against the bytes before it is read, and `fromFlatState` checks what the numbers mean.
 */
import { LITTLE_ENDIAN, readLE, writeLE } from '../../util/endian.js';
import { readSections, type PartedBytes } from '../../util/parted-bytes.js';
import type { Changes } from './layered-postings.js';
import type { FlatState } from './minisearch-state.js';

/** A leading NUL: no JSON text (versions 1 and 2) starts with one. */
const MAGIC = Uint8Array.of(0x00, 0x68, 0x6d, 0x62, 0x6d, 0x32, 0x35, 0x0a);

export interface BinaryHeader extends Record<string, unknown> {
  sizes: { docs: number; terms: number; postings: number };
}

export function isBinary(bytes: Uint8Array): boolean {
  return bytes.length >= MAGIC.length && MAGIC.every((b, i) => bytes[i] === b);
}

/** `header` (without the section sizes, which this adds) and `state` as bytes, in the current layout (no texts), then `after` (version 5: the changes). */
export function encodeFlat(header: Record<string, unknown>, state: Omit<FlatState, 'texts'>, after: Uint8Array = new Uint8Array(0)): Uint8Array {
  const utf8 = new TextEncoder();
  const terms = utf8.encode(state.terms.join(''));
  const head = utf8.encode(JSON.stringify({ ...header, sizes: { docs: state.docs.length / 3, terms: state.terms.length, postings: state.postings.length } }));
  const size = MAGIC.length + 4 + head.length + 8 * state.docs.length + 4 * (state.terms.length + state.postings.length) + 4 + terms.length + after.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  let at = MAGIC.length;
  view.setUint32(at, head.length, true);
  out.set(head, (at += 4));
  at += head.length;
  writeLE(out, at, Float64Array.from(state.docs));
  at += 8 * state.docs.length;
  writeLE(out, at, Uint32Array.from(state.terms, (t) => t.length));
  at += 4 * state.terms.length;
  writeLE(out, at, state.postings instanceof Uint32Array ? state.postings : Uint32Array.from(state.postings));
  at += 4 * state.postings.length;
  at = putU32(view, at, terms.length);
  out.set(terms, at);
  out.set(after, at + terms.length);
  return out;
}

/** The header of `bytes` (which `isBinary` accepted) and where the sections start; throws on malformed bytes. */
export function readHeader(bytes: Uint8Array): { header: BinaryHeader; body: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = MAGIC.length;
  if (bytes.length < at + 4) throw new Error('the header length is cut off');
  const length = view.getUint32(at, true);
  if (at + 4 + length > bytes.length) throw new Error(`a header of ${length} bytes runs past the end`);
  const header: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(at + 4, at + 4 + length)));
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new Error('the header is not an object');
  const sizes = (header as Record<string, unknown>)['sizes'] as Record<string, unknown> | undefined;
  for (const key of ['docs', 'terms', 'postings'] as const) {
    const value = sizes?.[key];
    if (!(Number.isSafeInteger(value) && (value as number) >= 0)) throw new Error(`section size ${key} is not a count`);
  }
  return { header: header as BinaryHeader, body: at + 4 + length };
}

/** A flat state without the counts its header holds, and the bytes that follow it (version 5: the changes since that state). */
export type ReadState = Omit<FlatState, 'documentCount' | 'nextId' | 'averageFieldLength'> & { rest: Uint8Array };

/** The flat state after the header, with its texts when `withTexts` (version 3); the header's own fields (`documentCount`, …) are the caller's to check. */
export function readState(bytes: Uint8Array, header: BinaryHeader, body: number, withTexts: boolean): ReadState {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { docs: n, terms: termCount, postings: postingCount } = header.sizes;
  const textCount = withTexts ? n : 0;
  let at = body;
  if (at + 8 * 3 * n + 4 * (textCount + termCount + postingCount) > bytes.length) throw new Error('the number sections run past the end');
  const docs = new Float64Array(3 * n);
  readLE(bytes, at, docs);
  at += 8 * docs.length;
  const textLengths = u32s(bytes, at, textCount);
  const termLengths = u32s(bytes, (at += 4 * textCount), termCount);
  const postings = u32s(bytes, (at += 4 * termCount), postingCount);
  at += 4 * postingCount;
  const texts = withTexts ? strings(view, bytes, at, textLengths, 'texts') : null;
  const terms = strings(view, bytes, texts?.end ?? at, termLengths, 'terms');
  return { docs, ...(texts ? { texts: texts.values } : {}), terms: terms.values, postings, rest: bytes.subarray(terms.end) };
}

/** How much of a parted save is gathered for its header: this build writes a few hundred bytes of it. */
const HEAD_BYTES = 1 << 16;

/**
 * The header and flat state of a save in the layout without texts, read part by part with each
 * section copied straight into its array (no joined copy of the whole save, no second copy out of
 * it). Null for anything else, `wanted` (the header's version) refusing included, and for what
 * does not read: the caller then joins the parts and reads them whole, which says what is wrong.
 */
export function readFlatParts(source: PartedBytes, wanted: (header: BinaryHeader) => boolean): { header: BinaryHeader; state: ReadState } | null {
  if (!LITTLE_ENDIAN) return null;
  // Typed by assertion: set inside the callback, which control flow does not follow.
  let found = null as { header: BinaryHeader; docs: Float64Array; termLengths: Uint32Array; postings: Uint32Array; run: Uint8Array } | null;
  const outcome = readSections(source, HEAD_BYTES, (head) => {
    if (!isBinary(head)) return null;
    let read: { header: BinaryHeader; body: number };
    try {
      read = readHeader(head);
    } catch {
      return null;
    }
    const { header, body } = read;
    if (!wanted(header)) return null;
    const { docs: n, terms: termCount, postings: postingCount } = header.sizes;
    const termsAt = body + 8 * 3 * n + 4 * (termCount + postingCount);
    if (termsAt + 4 > source.length) return null;
    const docs = new Float64Array(3 * n);
    const termLengths = new Uint32Array(termCount);
    const postings = new Uint32Array(postingCount);
    const run = new Uint8Array(source.length - termsAt);
    found = { header, docs, termLengths, postings, run };
    return [
      { start: body, into: new Uint8Array(docs.buffer) },
      { start: body + 8 * docs.length, into: new Uint8Array(termLengths.buffer) },
      { start: body + 8 * docs.length + 4 * termCount, into: new Uint8Array(postings.buffer) },
      { start: termsAt, into: run },
    ];
  });
  if (outcome !== 'read' || found === null) return null;
  const { header, docs, termLengths, postings, run } = found;
  try {
    const terms = strings(new DataView(run.buffer), run, 0, termLengths, 'terms');
    return { header, state: { docs, terms: terms.values, postings, rest: run.subarray(terms.end) } };
  } catch {
    return null;
  }
}

/** The changes since a base, as version 5 writes them after it: the added documents' flat state, the rest in its header. */
export function encodeChanges(changes: Changes): Uint8Array {
  const { count, average, removed, gone, added } = changes;
  return encodeFlat({ count, average, removed, gone, documentCount: added.documentCount, nextId: added.nextId }, added);
}

/** What `encodeChanges` wrote, all of `bytes`; throws on anything else. What the numbers mean is `LayeredPostings.restore`'s to check. */
export function decodeChanges(bytes: Uint8Array): Changes {
  if (!isBinary(bytes)) throw new Error('the changes after the base are not a flat state');
  const { header, body } = readHeader(bytes);
  const { rest, ...state } = readState(bytes, header, body, false);
  if (rest.length > 0) throw new Error(`${rest.length} bytes follow the changes`);
  const { count, average, removed, gone, documentCount, nextId } = header;
  const integers = (value: unknown): value is number[] => Array.isArray(value) && value.every((n) => Number.isSafeInteger(n) && n >= 0);
  if (typeof count !== 'number' || typeof average !== 'number' || typeof documentCount !== 'number' || typeof nextId !== 'number' || !integers(removed) || !integers(gone)) {
    throw new Error('the changes\' header lacks its counts');
  }
  return { count, average, removed, gone, added: { ...state, documentCount, nextId, averageFieldLength: 0 } };
}

function putU32(view: DataView, at: number, value: number): number {
  view.setUint32(at, value, true);
  return at + 4;
}

function u32s(bytes: Uint8Array, at: number, count: number): Uint32Array {
  const out = new Uint32Array(count);
  readLE(bytes, at, out);
  return out;
}

/** One UTF-8 run (its byte length first) at `at`, cut into strings of `lengths` UTF-16 units; `end` is where it stops. */
function strings(view: DataView, bytes: Uint8Array, at: number, lengths: Uint32Array, what: string): { values: string[]; end: number } {
  if (at + 4 > bytes.length) throw new Error(`the length of the ${what} runs past the end`);
  const size = view.getUint32(at, true);
  const start = at + 4;
  if (start + size > bytes.length) throw new Error(`the ${what} run past the end`);
  const all = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(start, start + size));
  const values: string[] = new Array(lengths.length);
  let from = 0;
  for (let i = 0; i < lengths.length; i++) {
    values[i] = all.slice(from, from + lengths[i]!);
    from += lengths[i]!;
  }
  if (from !== all.length) throw new Error(`the ${what} hold ${all.length} characters, their lengths add up to ${from}`);
  return { values, end: start + size };
}
