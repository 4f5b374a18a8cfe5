/** Saved HNSW bytes in the older formats a store may still hold, made from current ones. */
import { checksum, decodeAnn, encodeAnn } from '../../src/legs/vector/ann-format.js';
import { withVectors } from '../../src/legs/vector/hnsw-links.js';
import { joinParts } from '../../src/util/parted-bytes.js';

/** Bytes encoded with hnswlib's whole graph marked as version 2, which kept it so: the layout is otherwise the current one. */
export function asVersion2(encoded: Uint8Array): Uint8Array {
  const v2 = encoded.slice();
  new DataView(v2.buffer).setUint32(4, 2, true);
  return v2;
}

/** Saved bytes as version 2 wrote them: the graph made whole again with each label's vector. */
export function wholeVersion2(current: Uint8Array, vectorOf: (no: number) => Float32Array): Uint8Array {
  const record = decodeAnn(current);
  const graph = withVectors(record.graph, record.dim, (labels) => labels.map(vectorOf));
  return asVersion2(joinParts(encodeAnn({ ...record, entries: record.entries!, graph }))!);
}

/** Version 1 bytes, as the builds before per-vector digest entries wrote them: version 2's without the entries. */
export function asVersion1(v2: Uint8Array): Uint8Array {
  const header = new DataView(v2.buffer, v2.byteOffset, v2.byteLength);
  const count = header.getUint32(12, true);
  const entriesAt = 44 + 4 * (count + header.getUint32(40, true));
  const v1 = new Uint8Array(v2.length - 8 * count);
  v1.set(v2.subarray(0, entriesAt));
  v1.set(v2.subarray(entriesAt + 8 * count), entriesAt);
  const view = new DataView(v1.buffer);
  view.setUint32(4, 1, true);
  view.setUint32(24, checksum(v1.subarray(44)), true);
  return v1;
}
