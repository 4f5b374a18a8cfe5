/**
 * The layer map of the library's sources, declared once, and the check that imports read one
 * way: a module may import its own layer or a lower one, never a higher one, and no chain of
 * imports (type-only and dynamic ones included) may come back to where it started.
 *
 * Run it alone with `npx tsx scripts/layers.ts`; `test/layers.test.ts` runs it in the suite.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface Layer {
  name: string;
  /** Paths relative to the repository: a file, or a folder ending in `/`. */
  modules: readonly string[];
  /** Each module of this layer is independent: none imports another (legs, storage, fusion, embedder). */
  isolated?: boolean;
}

/** Lowest first. A file belongs to the most specific entry naming it (a file beats its folder). */
export const LAYERS: readonly Layer[] = [
  { name: 'base', modules: ['src/errors.ts', 'src/logger.ts', 'src/ids.ts', 'src/version.ts', 'src/optional-import.ts', 'src/util/'] },
  { name: 'seams', modules: ['src/legs/types.ts'] },
  {
    name: 'parts',
    modules: ['src/legs/vector/', 'src/legs/lexical/', 'src/legs/graph/', 'src/legs/time/', 'src/fusion/', 'src/storage/', 'src/embedder/'],
    isolated: true,
  },
  { name: 'validation', modules: ['src/validation/'] },
  { name: 'core', modules: ['src/types.ts', 'src/memory/'] },
  { name: 'assembly', modules: ['src/legs/default.ts'] },
  { name: 'services', modules: ['src/snapshot/', 'src/agent/context.ts', 'src/client/'] },
  { name: 'facade', modules: ['src/hybrid-memory.ts', 'src/call-errors.ts'] },
  {
    name: 'adapters',
    modules: ['src/agent/', 'src/snapshot/backups.ts', 'src/snapshot/node-files.ts', 'src/snapshot/opfs-store.ts', 'src/edge/', 'src/mcp/', 'src/postgres/', 'src/worker/', 'worker/'],
  },
  {
    name: 'entries',
    modules: ['src/index.ts', 'src/node.ts', 'src/client/index.ts', 'src/edge/index.ts', 'src/mcp/entry.ts', 'src/mcp/bin.ts', 'src/postgres/index.ts', 'src/vite/', 'src/worker/memory.worker.ts', 'worker/memory.worker.ts', 'src/worker-node.ts'],
  },
];

/**
 * Modules that some importers may reach only through a seam, even where the layers would allow
 * it: the memory core is handed its legs as a `LegFactory` (src/legs/types.ts) by the entry
 * point, so naming a leg class there would hard-wire the choice again.
 */
export interface Seal {
  /** Paths (a file, or a folder ending in `/`) behind the seam. */
  modules: readonly string[];
  /** Importers that must go through the seam instead. */
  importers: readonly string[];
  seam: string;
}

export const SEALS: readonly Seal[] = [
  {
    modules: ['src/legs/vector/', 'src/legs/graph/', 'src/legs/lexical/bm25-index.ts', 'src/legs/default.ts'],
    importers: ['src/memory/', 'src/types.ts'],
    seam: 'src/legs/types.ts',
  },
  {
    // A snapshot is checked by one API whatever the door (SQLite-WASM, Durable Objects): the parts' own checkers stay inside it.
    modules: ['src/snapshot/archive.ts', 'src/snapshot/store-db.ts', 'src/snapshot/content.ts', 'src/snapshot/manifest.ts', 'src/snapshot/zip-read.ts', 'src/snapshot/jsonl.ts', 'src/snapshot/part-bm25.ts', 'src/snapshot/part-graph.ts', 'src/snapshot/part-vectors.ts'],
    importers: ['src/edge/', 'src/postgres/', 'src/mcp/', 'src/agent/', 'src/client/', 'src/worker/', 'worker/', 'src/hybrid-memory.ts'],
    seam: 'src/snapshot/verify.ts (or read.ts / write.ts for whole snapshots)',
  },
];

/** The folders whose `.ts` files are checked. */
export const SOURCE_ROOTS = ['src', 'worker'];

export interface Placement {
  layer: number;
  /** The layer entry that claimed the file (for isolation). */
  module: string;
}

/** Where a file sits in `layers`, or null when no entry names it. */
export function place(file: string, layers: readonly Layer[] = LAYERS): Placement | null {
  let best: (Placement & { length: number }) | null = null;
  layers.forEach((layer, index) => {
    for (const module of layer.modules) {
      if (names(module, file) && (best === null || module.length > best.length)) best = { layer: index, module, length: module.length };
    }
  });
  if (best === null) return null;
  const { layer, module } = best;
  return { layer, module };
}

/** Whether a layer-map path (a file, or a folder ending in `/`) names `file`. */
const names = (module: string, file: string): boolean => (module.endsWith('/') ? file.startsWith(module) : file === module);

/** Relative imports of every file, as repository paths (`.js` specifiers resolved to `.ts`). */
export type ImportGraph = Map<string, string[]>;

export function readImportGraph(root: string, roots: readonly string[] = SOURCE_ROOTS): ImportGraph {
  const graph: ImportGraph = new Map();
  const files = roots.flatMap((r) => listTs(join(root, r))).map((f) => toPosix(relative(root, f)));
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets = info.importedFiles
      .map((i) => i.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolveSpecifier(root, file, spec))
      .filter((target): target is string => target !== null);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

export interface Violation {
  kind: 'unplaced' | 'upward' | 'sibling' | 'sealed' | 'cycle';
  message: string;
}

export function checkLayers(graph: ImportGraph, layers: readonly Layer[] = LAYERS, seals: readonly Seal[] = SEALS): Violation[] {
  const violations: Violation[] = [];
  for (const [file, targets] of graph) {
    const from = place(file, layers);
    if (!from) {
      violations.push({ kind: 'unplaced', message: `${file} is in no layer: add it to the layer map in scripts/layers.ts` });
      continue;
    }
    for (const target of targets) {
      for (const seal of seals) {
        if (seal.importers.some((m) => names(m, file)) && seal.modules.some((m) => names(m, target))) {
          violations.push({ kind: 'sealed', message: `${file} imports ${target}: it may reach it only through ${seal.seam}` });
        }
      }
      const to = place(target, layers);
      if (!to) continue;
      if (to.layer > from.layer) {
        violations.push({ kind: 'upward', message: `${file} (${layers[from.layer]!.name}) imports ${target} (${layers[to.layer]!.name}), a higher layer` });
      } else if (to.layer === from.layer && layers[from.layer]!.isolated && to.module !== from.module) {
        violations.push({ kind: 'sibling', message: `${file} imports ${target}: ${from.module} and ${to.module} are independent parts` });
      }
    }
  }
  for (const cycle of findCycles(graph)) violations.push({ kind: 'cycle', message: `import cycle: ${[...cycle, cycle[0]].join(' -> ')}` });
  return violations;
}

/** One cycle per strongly connected component of more than one file (or a file importing itself). */
export function findCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(cyclePath(graph, new Set(component), v));
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** A concrete path from `start` back to itself inside one strongly connected component. */
function cyclePath(graph: ImportGraph, component: Set<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return path;
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

function resolveSpecifier(root: string, file: string, spec: string): string | null {
  const base = posix.join(posix.dirname(file), spec);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.d.ts'), `${base}.ts`, `${base}/index.ts`, base];
  for (const candidate of candidates) {
    const full = join(root, candidate);
    if (isFile(full)) return posix.normalize(candidate);
  }
  return null;
}

function listTs(dir: string): string[] {
  if (!isDirectory(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (isDirectory(full)) return listTs(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

const isFile = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
const isDirectory = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
const toPosix = (path: string): string => path.split('\\').join('/');

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const violations = checkLayers(readImportGraph(resolve(dirname(import.meta.filename), '..')));
  for (const v of violations) process.stderr.write(`${v.kind}: ${v.message}\n`);
  process.exitCode = violations.length === 0 ? 0 : 1;
}
