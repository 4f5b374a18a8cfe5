/**
 * The link lists of an HNSW graph, read out of the bytes hnswlib-wasm's `writeIndex` saves, so the
 * graph can be walked without hnswlib: its module keeps a float32 copy of every vector (~165 MiB
 * at 100k 384-d vectors) where the links alone are ~14 MiB, and the flat scan already holds int8
 * codes to score them with (`hnsw-walk.ts`). A graph is kept without those copies too
 * (`stripVectors`): the store holds every live vector, so only the ones hnswlib marked deleted
 * are kept with the links, and `withVectors` puts the rest back when hnswlib must restore it.
 *
 * hnswlib's layout (hnswalg.h `saveIndex`), as compiled to wasm32, where `size_t` and the label
 * are 4 bytes: a 56-byte header (offsetLevel0, maxElements, count, sizeDataPerElement,
 * labelOffset, offsetData as u32; maxLevel i32; entry point u32; maxM, maxM0, M u32; mult f64;
 * efConstruction u32), then `count` level-0 blocks of `sizeDataPerElement` bytes (a u32 whose low
 * u16 is the neighbour count and whose third byte holds the deleted mark, `maxM0` u32 neighbours,
 * the vector as `dim` f32, the label), then per element a u32 byte length and its upper levels,
 * each a u32 count and `maxM` u32 neighbours.
 *
 * The stripped form is that layout, header unchanged, with each level-0 block's vector cut out,
 * followed by the vectors of the nodes marked deleted, in node order, as `dim` f32 each.
 */
import { HybridMindError } from '../../errors.js';

const HEADER = 56;
const DELETED_MARK = 0x01;
/** Labels `withVectors` asks the store for at a time: one read each, not one per vector, nor all of them at once (150 MB at 100k). */
const RESTORE_BATCH = 1024;

export interface HnswLinks {
  readonly count: number;
  readonly maxM: number;
  readonly maxM0: number;
  /** The node the walk starts from, and its level (the graph's top). */
  readonly entry: number;
  readonly maxLevel: number;
  /**
   * Per node, `level0Width` words: its level-0 neighbour count in the low 16 bits (hnswlib keeps
   * its flags above them), then room for `maxM0` neighbours, then its label. The stripped graph's
   * own bytes where they are aligned, so reading a graph copies no links.
   */
  readonly level0: Int32Array;
  readonly level0Width: number;
  /** Per node, where its upper levels start in `upper` (level l at `+ (l − 1)·(1 + maxM)`), −1 when it has none. */
  readonly upperAt: Int32Array;
  /** Per upper level of a node, `1 + maxM` words: the neighbour count, then the neighbours. */
  readonly upper: Int32Array;
  /** Per node, its level (0 for most). */
  readonly levels: Uint8Array;
  /** Per node, the label it was added with (the store's memory number). */
  readonly labels: Int32Array;
  /** Per node, 1 when hnswlib marked it deleted (it still routes the walk). */
  readonly deleted: Uint8Array;
  /** The vectors of the nodes marked deleted, in node order, `dim` each: the store no longer has them. */
  readonly kept: Float32Array;
}

/** Where a graph's parts are, checked against hnswlib's layout for `dim`-d vectors. */
interface Layout {
  count: number;
  /** Bytes of a level-0 block in hnswlib's form, and with the vector cut out. */
  block: number;
  stripped: number;
  /** Where the vector starts in hnswlib's block. */
  vectorAt: number;
}

const corruptGraph = (what: string) => new HybridMindError('CORRUPT', 'ann.load', `hnswlib graph bytes: ${what}`);

function layoutOf(bytes: Uint8Array, dim: number): Layout {
  if (bytes.byteLength < HEADER) throw corruptGraph(`${bytes.byteLength} bytes, shorter than the ${HEADER}-byte header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [offsetLevel0, , count, sizeData, labelOffset, offsetData] = [0, 4, 8, 12, 16, 20].map((at) => view.getUint32(at, true)) as [number, number, number, number, number, number];
  const maxM0 = view.getUint32(36, true);
  if (offsetLevel0 !== 0 || offsetData !== 4 + 4 * maxM0 || labelOffset !== offsetData + 4 * dim || sizeData !== labelOffset + 4) {
    throw corruptGraph(`element layout (links ${offsetData}, label at ${labelOffset}, ${sizeData} bytes each) is not hnswlib's for ${dim}-d vectors with ${maxM0} level-0 links`);
  }
  return { count, block: sizeData, stripped: sizeData - 4 * dim, vectorAt: offsetData };
}

/** The bytes of the upper levels that follow `count` level-0 blocks starting at `from`: where they end. */
function upperEnd(view: DataView, from: number, count: number): number {
  let at = from;
  for (let node = 0; node < count; node++) {
    if (at + 4 > view.byteLength) throw corruptGraph('truncated upper levels');
    at += 4 + view.getUint32(at, true);
  }
  if (at > view.byteLength) throw corruptGraph('truncated upper levels');
  return at;
}

/**
 * hnswlib's saved graph of `dim`-d vectors in the stripped form: about a tenth of the bytes at
 * 384-d. `CORRUPT` when the bytes are not hnswlib's layout.
 */
export function stripVectors(payload: Uint8Array, dim: number): Uint8Array {
  const { count, block, stripped, vectorAt } = layoutOf(payload, dim);
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const blocksEnd = HEADER + count * block;
  if (payload.byteLength < blocksEnd) throw corruptGraph(`${payload.byteLength} bytes cannot hold ${count} nodes`);
  const end = upperEnd(view, blocksEnd, count);
  if (end !== payload.byteLength) throw corruptGraph(`${payload.byteLength - end} bytes past the graph`);
  const deleted: number[] = [];
  for (let node = 0; node < count; node++) if (view.getUint8(HEADER + node * block + 2) & DELETED_MARK) deleted.push(node);
  const upperBytes = end - blocksEnd;
  const out = new Uint8Array(HEADER + count * stripped + upperBytes + deleted.length * dim * 4);
  out.set(payload.subarray(0, HEADER));
  for (let node = 0, from = HEADER, to = HEADER; node < count; node++, from += block, to += stripped) {
    out.set(payload.subarray(from, from + vectorAt), to);
    out.set(payload.subarray(from + vectorAt + 4 * dim, from + block), to + vectorAt);
  }
  let at = HEADER + count * stripped;
  out.set(payload.subarray(blocksEnd, end), at);
  at += upperBytes;
  for (const node of deleted) {
    const from = HEADER + node * block + vectorAt;
    out.set(payload.subarray(from, from + 4 * dim), at);
    at += 4 * dim;
  }
  return out;
}

/**
 * hnswlib's form of a stripped graph, for hnswlib to restore: each node's vector is what
 * `vectorsOf` gives for its label (asked a batch at a time), a node marked deleted gets the vector
 * kept for it, and a node `vectorsOf` has nothing for gets zeros, which route as an inner product
 * of 0.
 */
export function withVectors(graph: Uint8Array, dim: number, vectorsOf: (labels: number[]) => ReadonlyArray<Float32Array | undefined>): Uint8Array {
  const { count, block, stripped, vectorAt } = layoutOf(graph, dim);
  const view = new DataView(graph.buffer, graph.byteOffset, graph.byteLength);
  const blocksEnd = HEADER + count * stripped;
  if (graph.byteLength < blocksEnd) throw corruptGraph(`${graph.byteLength} bytes cannot hold ${count} nodes`);
  const end = upperEnd(view, blocksEnd, count);
  const out = new Uint8Array(HEADER + count * block + (end - blocksEnd));
  out.set(graph.subarray(0, HEADER));
  let kept = end;
  for (let first = 0; first < count; first += RESTORE_BATCH) {
    const last = Math.min(count, first + RESTORE_BATCH);
    const live: number[] = [];
    const labels: number[] = [];
    for (let node = first; node < last; node++) {
      const from = HEADER + node * stripped;
      const to = HEADER + node * block;
      out.set(graph.subarray(from, from + vectorAt), to);
      out.set(graph.subarray(from + vectorAt, from + stripped), to + vectorAt + 4 * dim);
      if (view.getUint8(from + 2) & DELETED_MARK) {
        if (kept + 4 * dim > graph.byteLength) throw corruptGraph('fewer kept vectors than nodes marked deleted');
        out.set(graph.subarray(kept, kept + 4 * dim), to + vectorAt);
        kept += 4 * dim;
      } else {
        live.push(node);
        labels.push(view.getInt32(from + stripped - 4, true));
      }
    }
    const vectors = labels.length > 0 ? vectorsOf(labels) : [];
    live.forEach((node, i) => {
      const vector = vectors[i];
      if (vector !== undefined) out.set(new Uint8Array(vector.buffer, vector.byteOffset, 4 * dim), HEADER + node * block + vectorAt);
    });
  }
  if (kept !== graph.byteLength) throw corruptGraph(`${graph.byteLength - kept} bytes past the graph`);
  out.set(graph.subarray(blocksEnd, end), HEADER + count * block);
  return out;
}

/** Reads and checks a stripped graph (`stripVectors`) of `dim`-d vectors; anything inconsistent is `CORRUPT`. */
export function readHnswLinks(graph: Uint8Array, dim: number): HnswLinks {
  const { count, stripped: sizeData } = layoutOf(graph, dim);
  const view = new DataView(graph.buffer, graph.byteOffset, graph.byteLength);
  const u32 = (at: number) => view.getUint32(at, true);
  const maxLevel = view.getInt32(24, true);
  const entry = u32(28);
  const maxM = u32(32);
  const maxM0 = u32(36);
  const labelOffset = sizeData - 4;
  if (maxM === 0 || maxM0 === 0 || maxM > 0xffff || maxM0 > 0xffff) throw corruptGraph(`link widths ${maxM}/${maxM0}`);
  if (count > 0 && (entry >= count || maxLevel < 0 || maxLevel > 255)) throw corruptGraph(`entry point ${entry} at level ${maxLevel} for ${count} nodes`);
  const upperWords = 1 + maxM;
  const level0Width = sizeData / 4;
  const labels = new Int32Array(count);
  const deleted = new Uint8Array(count);
  const levels = new Uint8Array(count);
  const upperAt = new Int32Array(count).fill(-1);
  const blocksEnd = HEADER + count * sizeData;
  if (graph.byteLength < blocksEnd + 4 * count) throw corruptGraph(`${graph.byteLength} bytes cannot hold ${count} nodes`);
  // The links stay where they are: a copy would be as large as the graph's blocks (13 MB at 100k),
  // and the stripped bytes it was copied from were garbage the C heap kept resident.
  const level0 = (graph.byteOffset & 3) === 0 ? new Int32Array(graph.buffer, graph.byteOffset + HEADER, count * level0Width) : new Int32Array(graph.slice(HEADER, blocksEnd).buffer);
  let deletedCount = 0;
  for (let node = 0, at = HEADER; node < count; node++, at += sizeData) {
    const n = view.getUint16(at, true);
    if (n > maxM0) throw corruptGraph(`node ${node} has ${n} level-0 links, more than ${maxM0}`);
    deleted[node] = view.getUint8(at + 2) & DELETED_MARK;
    deletedCount += deleted[node]!;
    labels[node] = view.getInt32(at + labelOffset, true);
  }
  const upperLists: Int32Array[] = [];
  let words = 0;
  let at = blocksEnd;
  for (let node = 0; node < count; node++) {
    if (at + 4 > graph.byteLength) throw corruptGraph('truncated upper levels');
    const bytes = u32(at);
    at += 4;
    if (bytes === 0) continue;
    const level = bytes / (4 * upperWords);
    if (!Number.isInteger(level) || level > maxLevel || at + bytes > graph.byteLength) throw corruptGraph(`node ${node} has ${bytes} bytes of upper levels`);
    const list = new Int32Array(bytes / 4);
    for (let j = 0; j < list.length; j++) list[j] = u32(at + 4 * j);
    for (let l = 0; l < level; l++) list[l * upperWords] = list[l * upperWords]! & 0xffff;
    upperLists.push(list);
    upperAt[node] = words;
    levels[node] = level;
    words += list.length;
    at += bytes;
  }
  const keptBytes = deletedCount * dim * 4;
  if (graph.byteLength - at !== keptBytes) throw corruptGraph(`${graph.byteLength - at} bytes after the links where the ${deletedCount} nodes marked deleted keep ${keptBytes}`);
  const kept = new Float32Array(deletedCount * dim);
  new Uint8Array(kept.buffer).set(graph.subarray(at));
  const upper = new Int32Array(words);
  let w = 0;
  for (const list of upperLists) {
    upper.set(list, w);
    w += list.length;
  }
  if (count > 0 && levels[entry] !== maxLevel) throw corruptGraph(`the entry point is at level ${levels[entry]}, not the graph's ${maxLevel}`);
  checkTargets(level0, level0Width, maxM0, count);
  checkTargets(upper, upperWords, maxM, count);
  return { count, maxM, maxM0, entry, maxLevel, level0, level0Width, upperAt, upper, levels, labels, deleted, kept };
}

/** Every neighbour names a node: a walk then never reads outside its arrays. */
function checkTargets(lists: Int32Array, width: number, room: number, count: number): void {
  for (let w = 0; w < lists.length; w += width) {
    const n = lists[w]! & 0xffff;
    if (n > room) throw corruptGraph(`a list of ${n} links in room for ${room}`);
    for (let j = 1; j <= n; j++) {
      const target = lists[w + j]!;
      if (target < 0 || target >= count) throw corruptGraph(`a link to node ${target >>> 0} of ${count}`);
    }
  }
}
