/**
 * The link lists of an HNSW graph, read out of the bytes hnswlib-wasm's `writeIndex` saves, so the
 * graph can be walked without hnswlib: its module keeps a float32 copy of every vector (~165 MiB
 * at 100k 384-d vectors) where the links alone are ~14 MiB, and the flat scan already holds int8
 * codes to score them with (`hnsw-walk.ts`).
 *
 * hnswlib's layout (hnswalg.h `saveIndex`), as compiled to wasm32, where `size_t` and the label
 * are 4 bytes: a 56-byte header (offsetLevel0, maxElements, count, sizeDataPerElement,
 * labelOffset, offsetData as u32; maxLevel i32; entry point u32; maxM, maxM0, M u32; mult f64;
 * efConstruction u32), then `count` level-0 blocks of `sizeDataPerElement` bytes (a u32 whose low
 * u16 is the neighbour count and whose third byte holds the deleted mark, `maxM0` u32 neighbours,
 * the vector as `dim` f32, the label), then per element a u32 byte length and its upper levels,
 * each a u32 count and `maxM` u32 neighbours.
 */
import { HybridMindError } from '../../errors.js';

const HEADER = 56;
const DELETED_MARK = 0x01;

export interface HnswLinks {
  readonly count: number;
  readonly maxM: number;
  readonly maxM0: number;
  /** The node the walk starts from, and its level (the graph's top). */
  readonly entry: number;
  readonly maxLevel: number;
  /** Per node, `1 + maxM0` words: its level-0 neighbour count, then the neighbours. */
  readonly level0: Int32Array;
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
  /** Where node 0's f32 vector starts in the bytes read, and the bytes from one node's to the next's (for nodes whose vectors the store no longer has). */
  readonly vectorAt: number;
  readonly vectorStride: number;
}

/** Reads and checks hnswlib's saved graph of `dim`-d vectors; anything inconsistent is `CORRUPT`. */
export function readHnswLinks(payload: Uint8Array, dim: number): HnswLinks {
  const corrupt = (what: string) => new HybridMindError('CORRUPT', 'ann.load', `hnswlib graph bytes: ${what}`);
  if (payload.byteLength < HEADER) throw corrupt(`${payload.byteLength} bytes, shorter than the ${HEADER}-byte header`);
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const u32 = (at: number) => view.getUint32(at, true);
  const [offsetLevel0, , count, sizeData, labelOffset, offsetData] = [0, 4, 8, 12, 16, 20].map(u32) as [number, number, number, number, number, number];
  const maxLevel = view.getInt32(24, true);
  const entry = u32(28);
  const maxM = u32(32);
  const maxM0 = u32(36);
  const linksBytes0 = 4 + 4 * maxM0;
  if (offsetLevel0 !== 0 || offsetData !== linksBytes0 || labelOffset !== offsetData + 4 * dim || sizeData !== labelOffset + 4) {
    throw corrupt(`element layout (links ${offsetData}, label at ${labelOffset}, ${sizeData} bytes each) is not hnswlib's for ${dim}-d vectors with ${maxM0} level-0 links`);
  }
  if (maxM === 0 || maxM0 === 0 || maxM > 0xffff || maxM0 > 0xffff) throw corrupt(`link widths ${maxM}/${maxM0}`);
  if (count > 0 && (entry >= count || maxLevel < 0 || maxLevel > 255)) throw corrupt(`entry point ${entry} at level ${maxLevel} for ${count} nodes`);
  const upperWords = 1 + maxM;
  const level0Words = 1 + maxM0;
  const level0 = new Int32Array(count * level0Words);
  const labels = new Int32Array(count);
  const deleted = new Uint8Array(count);
  const levels = new Uint8Array(count);
  const upperAt = new Int32Array(count).fill(-1);
  const upperEnd = HEADER + count * sizeData;
  if (payload.byteLength < upperEnd + 4 * count) throw corrupt(`${payload.byteLength} bytes cannot hold ${count} nodes`);
  const aligned = (payload.byteOffset & 3) === 0;
  for (let node = 0, at = HEADER; node < count; node++, at += sizeData) {
    const n = view.getUint16(at, true);
    if (n > maxM0) throw corrupt(`node ${node} has ${n} level-0 links, more than ${maxM0}`);
    deleted[node] = view.getUint8(at + 2) & DELETED_MARK;
    const w = node * level0Words;
    level0[w] = n;
    if (aligned) level0.set(new Int32Array(payload.buffer, payload.byteOffset + at + 4, n), w + 1);
    else for (let j = 0; j < n; j++) level0[w + 1 + j] = u32(at + 4 + 4 * j);
    labels[node] = view.getInt32(at + labelOffset, true);
  }
  const upperLists: Int32Array[] = [];
  let words = 0;
  let at = upperEnd;
  for (let node = 0; node < count; node++) {
    if (at + 4 > payload.byteLength) throw corrupt('truncated upper levels');
    const bytes = u32(at);
    at += 4;
    if (bytes === 0) continue;
    const level = bytes / (4 * upperWords);
    if (!Number.isInteger(level) || level > maxLevel || at + bytes > payload.byteLength) throw corrupt(`node ${node} has ${bytes} bytes of upper levels`);
    const list = new Int32Array(bytes / 4);
    for (let j = 0; j < list.length; j++) list[j] = u32(at + 4 * j);
    for (let l = 0; l < level; l++) list[l * upperWords] = list[l * upperWords]! & 0xffff;
    upperLists.push(list);
    upperAt[node] = words;
    levels[node] = level;
    words += list.length;
    at += bytes;
  }
  if (at !== payload.byteLength) throw corrupt(`${payload.byteLength - at} bytes past the graph`);
  const upper = new Int32Array(words);
  let w = 0;
  for (const list of upperLists) {
    upper.set(list, w);
    w += list.length;
  }
  if (count > 0 && levels[entry] !== maxLevel) throw corrupt(`the entry point is at level ${levels[entry]}, not the graph's ${maxLevel}`);
  checkTargets(level0, level0Words, count, corrupt);
  checkTargets(upper, upperWords, count, corrupt);
  return { count, maxM, maxM0, entry, maxLevel, level0, upperAt, upper, levels, labels, deleted, vectorAt: HEADER + offsetData, vectorStride: sizeData };
}

/** Every neighbour names a node: a walk then never reads outside its arrays. */
function checkTargets(lists: Int32Array, width: number, count: number, corrupt: (what: string) => Error): void {
  for (let w = 0; w < lists.length; w += width) {
    const n = lists[w]!;
    if (n >= width) throw corrupt(`a list of ${n} links in room for ${width - 1}`);
    for (let j = 1; j <= n; j++) {
      const target = lists[w + j]!;
      if (target < 0 || target >= count) throw corrupt(`a link to node ${target >>> 0} of ${count}`);
    }
  }
}
