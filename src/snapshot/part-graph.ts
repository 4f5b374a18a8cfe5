/**
 * graph.jsonl: the typed graph for people and other tools. One JSON object per line: first every
 * memory as `{"node":id}` (by insertion order), then every edge as
 * `{"edge":id,"from":id,"to":id,"type":…,"weight":…,"validFrom":ms,"createdAt":ms}`.
 * Derived from store.db; import checks it against store.db and never loads it.
 */
import { isPlainObject } from '../memory/validate.js';
import type { StoreContent } from './content.js';
import { corrupt } from './format.js';
import { decodeJsonLines, encodeJsonLines } from './jsonl.js';

export interface GraphEdgeLine {
  edge: string;
  from: string;
  to: string;
  type: string;
  weight: number;
  validFrom: number;
  createdAt: number;
}

export interface GraphPart {
  nodes: Set<string>;
  edges: Map<string, GraphEdgeLine>;
}

const EDGE_KEYS = ['edge', 'from', 'to', 'type', 'weight', 'validFrom', 'createdAt'] as const;

export function encodeGraph(content: StoreContent): Uint8Array {
  const idOf = new Map(content.memories.map((m) => [Number(m.no), m.id]));
  const lines: unknown[] = content.memories.map((m) => ({ node: m.id }));
  for (const e of content.edges) {
    const line: GraphEdgeLine = {
      edge: e.id, from: idOf.get(Number(e.src))!, to: idOf.get(Number(e.dst))!, type: e.type,
      weight: Number(e.weight), validFrom: Number(e.valid_from), createdAt: Number(e.created_at),
    };
    lines.push(line);
  }
  return encodeJsonLines(lines);
}

/** Checks graph.jsonl on its own: line shapes, unique ids, and no edge pointing outside the nodes. */
export function decodeGraph(method: string, bytes: Uint8Array): GraphPart {
  const nodes = new Set<string>();
  const edges = new Map<string, GraphEdgeLine>();
  const where = (n: number) => `graph.jsonl line ${n}`;
  decodeJsonLines(method, 'graph.jsonl', bytes, (value, n) => {
    if (isPlainObject(value) && Object.keys(value).length === 1 && typeof value['node'] === 'string') {
      if (edges.size > 0) throw corrupt(method, `${where(n)}: nodes must all come before the edges`);
      if (nodes.has(value['node'])) throw corrupt(method, `${where(n)}: node ${JSON.stringify(value['node'])} appears twice`);
      nodes.add(value['node']);
      return;
    }
    if (!isEdgeLine(value)) throw corrupt(method, `${where(n)} is neither {"node":id} nor an edge {${EDGE_KEYS.join(',')}}`);
    if (edges.has(value.edge)) throw corrupt(method, `${where(n)}: edge ${JSON.stringify(value.edge)} appears twice`);
    for (const end of [value.from, value.to]) {
      if (!nodes.has(end)) throw corrupt(method, `${where(n)}: edge ${JSON.stringify(value.edge)} points at ${JSON.stringify(end)}, which is not a node (dangling edge)`);
    }
    edges.set(value.edge, value);
  });
  return { nodes, edges };
}

/** graph.jsonl must describe exactly store.db's memories and edges. */
export function checkGraph(method: string, part: GraphPart, content: StoreContent): void {
  const differs = (what: string) => corrupt(method, `graph.jsonl disagrees with store.db: ${what}`);
  if (part.nodes.size !== content.memories.length) throw differs(`${part.nodes.size} nodes for ${content.memories.length} memories`);
  for (const m of content.memories) if (!part.nodes.has(m.id)) throw differs(`memory ${JSON.stringify(m.id)} is not a node`);
  if (part.edges.size !== content.edges.length) throw differs(`${part.edges.size} edges, store.db has ${content.edges.length}`);
  const idOf = new Map(content.memories.map((m) => [Number(m.no), m.id]));
  for (const e of content.edges) {
    const line = part.edges.get(e.id);
    const same = line !== undefined && line.from === idOf.get(Number(e.src)) && line.to === idOf.get(Number(e.dst)) && line.type === e.type
      && line.weight === Number(e.weight) && line.validFrom === Number(e.valid_from) && line.createdAt === Number(e.created_at);
    if (!same) throw differs(`edge ${JSON.stringify(e.id)} is missing or different`);
  }
}

function isEdgeLine(value: unknown): value is GraphEdgeLine {
  if (!isPlainObject(value) || Object.keys(value).length !== EDGE_KEYS.length) return false;
  const v = value as Record<string, unknown>;
  return typeof v['edge'] === 'string' && typeof v['from'] === 'string' && typeof v['to'] === 'string' && typeof v['type'] === 'string'
    && typeof v['weight'] === 'number' && Number.isSafeInteger(v['validFrom']) && Number.isSafeInteger(v['createdAt']);
}
