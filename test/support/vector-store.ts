/** A store's vectors in a test (a map by number and a `VectorReader` over it), and an exact index's saved codes over them. */
import type { VectorReader } from '../../src/legs/types.js';
import { AdaptiveVectorIndex } from '../../src/legs/vector/adaptive-index.js';
import { FlatVectorIndex } from '../../src/legs/vector/flat-index.js';
import type { VectorKernel } from '../../src/legs/vector/kernel.js';
import { clusteredVectors } from './clustered-vectors.js';

/** The store's vectors by number, and a reader over them that counts what it was asked for. */
export function vectorStore(dim: number): { vectors: Map<number, Float32Array>; read: VectorReader; asked: () => number } {
  const vectors = new Map<number, Float32Array>();
  let asked = 0;
  const read: VectorReader = (nos, into) => {
    asked += nos.length;
    let found = 0;
    nos.forEach((no, i) => {
      const v = vectors.get(no);
      if (v) {
        into.set(v, i * dim);
        found++;
      } else {
        into.fill(Number.NaN, i * dim, (i + 1) * dim);
      }
    });
    return found;
  };
  return { vectors, read, asked: () => asked };
}

/** An index that never builds HNSW over the first `count` of `count + 40` vectors, and its saved codes. */
export function savedExact(kernel: VectorKernel | null, dim: number, count: number, seed: number) {
  const all = clusteredVectors(count + 40, { dim, seed });
  const { vectors, read, asked } = vectorStore(dim);
  const source = new AdaptiveVectorIndex(new FlatVectorIndex(dim, kernel), { threshold: Infinity }, { read });
  all.slice(0, count).forEach((v, no) => {
    vectors.set(no, v);
    source.add(no, v);
  });
  return { all, vectors, read, asked, source, codes: source.saveQuantized()! };
}
