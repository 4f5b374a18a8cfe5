import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYERS, SEALS, checkLayers, place, readImportGraph, type ImportGraph, type Layer, type Seal } from '../scripts/layers.js';

const ROOT = resolve(import.meta.dirname, '..');

describe('import layers', () => {
  it('every source file sits in a layer, imports only its own layer or lower ones, and no import chain comes back', () => {
    const graph = readImportGraph(ROOT);
    expect(graph.size).toBeGreaterThan(80);
    expect(checkLayers(graph).map((v) => `${v.kind}: ${v.message}`)).toEqual([]);
  });

  it('places the memory core below the services and the services below the public facade', () => {
    const layerOf = (file: string) => LAYERS[place(file)!.layer]!.name;
    expect(layerOf('src/memory/core.ts')).toBe('core');
    expect(layerOf('src/snapshot/read.ts')).toBe('services');
    expect(layerOf('src/snapshot/backups.ts')).toBe('adapters');
    expect(layerOf('src/hybrid-memory.ts')).toBe('facade');
    expect(layerOf('src/client/index.ts')).toBe('entries');
  });

  // The check itself, on small graphs whose answer is known, so the test above cannot pass vacuously.
  const layers: Layer[] = [
    { name: 'low', modules: ['a/', 'b/'], isolated: true },
    { name: 'high', modules: ['c/', 'c/entry.ts'] },
  ];
  const kinds = (graph: ImportGraph) => checkLayers(graph, layers).map((v) => v.kind);

  it('reports an upward import', () => {
    expect(kinds(new Map([['a/x.ts', ['c/y.ts']], ['c/y.ts', []]]))).toEqual(['upward']);
  });

  it('reports an import between independent parts of one layer', () => {
    expect(kinds(new Map([['a/x.ts', ['b/y.ts']], ['b/y.ts', []]]))).toEqual(['sibling']);
  });

  it('reports a cycle, type-only and dynamic imports included, once per cycle', () => {
    const graph = new Map([['c/p.ts', ['c/q.ts']], ['c/q.ts', ['c/r.ts']], ['c/r.ts', ['c/p.ts']], ['c/entry.ts', ['c/p.ts']]]);
    const violations = checkLayers(graph, layers);
    expect(violations.map((v) => v.kind)).toEqual(['cycle']);
    expect(violations[0]!.message).toMatch(/c\/p\.ts -> c\/q\.ts -> c\/r\.ts -> c\/p\.ts/);
  });

  it('reports an import past a seal, though the layers allow it, and not the seam itself', () => {
    const seals: Seal[] = [{ modules: ['a/'], importers: ['c/entry.ts'], seam: 'b/seam.ts' }];
    const graph = new Map([['c/entry.ts', ['a/x.ts', 'b/seam.ts']], ['c/y.ts', ['a/x.ts']], ['a/x.ts', []], ['b/seam.ts', []]]);
    const violations = checkLayers(graph, layers, seals);
    expect(violations.map((v) => v.kind)).toEqual(['sealed']);
    expect(violations[0]!.message).toMatch(/c\/entry\.ts imports a\/x\.ts: it may reach it only through b\/seam\.ts/);
  });

  it('seals the leg classes off from the memory core, which gets them through the leg seam', () => {
    const graph = new Map([['src/memory/indexes.ts', ['src/legs/lexical/bm25-index.ts', 'src/legs/graph/graph-index.ts', 'src/legs/vector/flat-index.ts', 'src/legs/types.ts', 'src/legs/lexical/tokenizer.ts']]]);
    expect(checkLayers(graph, LAYERS, SEALS).map((v) => v.kind)).toEqual(['sealed', 'sealed', 'sealed']);
    expect(readImportGraph(ROOT).get('src/hybrid-memory.ts')).toContain('src/legs/default.ts');
  });

  it('seals the snapshot\'s own checkers off from the other import paths, which use snapshot/verify.ts', () => {
    const graph = new Map([['src/edge/import-snapshot.ts', ['src/snapshot/store-db.ts', 'src/snapshot/part-graph.ts', 'src/snapshot/verify.ts', 'src/snapshot/format.ts']]]);
    expect(checkLayers(graph, LAYERS, SEALS).map((v) => v.kind)).toEqual(['sealed', 'sealed']);
  });

  it('reports a file no layer names', () => {
    expect(kinds(new Map([['d/z.ts', []]]))).toEqual(['unplaced']);
  });

  it('accepts downward imports and a file claimed by a more specific entry', () => {
    expect(kinds(new Map([['c/entry.ts', ['c/y.ts', 'a/x.ts']], ['c/y.ts', ['a/x.ts']], ['a/x.ts', []]]))).toEqual([]);
  });

  it('reads type-only, re-export and dynamic imports from the real sources', () => {
    const graph = readImportGraph(ROOT);
    // `import type` and `export … from` both count as arrows.
    expect(graph.get('src/index.ts')).toContain('src/errors.ts');
    expect(graph.get('src/legs/vector/flat-index.ts')).toContain('src/legs/types.ts');
  });
});
