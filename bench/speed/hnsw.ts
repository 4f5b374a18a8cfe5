import type { Doc, SpeedQuery } from '../lib/corpus.js';
import type { Peer } from './peers.js';

type HnswLib = Awaited<ReturnType<typeof import('hnswlib-wasm/dist/hnswlib.js')['loadHnswlib']>>;
let lib: Promise<HnswLib> | undefined;

/** hnswlib-wasm is built for browsers; in Node it needs `importScripts` to exist before it loads. */
function loadLib(): Promise<HnswLib> {
  const g = globalThis as { importScripts?: () => void };
  g.importScripts ??= () => {};
  lib ??= import('hnswlib-wasm/dist/hnswlib.js').then((m) => m.loadHnswlib());
  return lib;
}

export function hnswPeers(efConstruction: number, efSearches: readonly number[]): Peer[] {
  let index!: InstanceType<HnswLib['HierarchicalNSW']>;
  let ids: string[] = [];
  const build = async (docs: readonly Doc[]) => {
    const hnsw = await loadLib();
    index = new hnsw.HierarchicalNSW('ip', docs[0]!.vector.length, '');
    index.initIndex(docs.length, 16, efConstruction, 100);
    ids = docs.map((d) => d.id);
    docs.forEach((d, i) => index.addPoint(d.vector, i, false));
  };
  return efSearches.map((ef, i) => ({
    name: `hnswlib-wasm M16 efC${efConstruction} ef${ef}`,
    kind: 'vector' as const,
    build: i === 0 ? build : async () => {},
    query: (q: SpeedQuery) => {
      index.setEfSearch(ef);
      return Array.from(index.searchKnn(q.vector, 10, undefined).neighbors, (n) => ids[n]!);
    },
  }));
}
