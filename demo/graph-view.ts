import type { TraceResult } from '../src/types.js';
import { fitPositions, forceLayout, placeLabels, type Box } from './graph-layout.js';

const NS = 'http://www.w3.org/2000/svg';
const COLORS: Record<string, string> = {
  SUPERSEDES: '#f472b6', DEPENDS_ON: '#60a5fa', IMPLEMENTS: '#34d399', REFERENCES: '#fbbf24', DERIVED_FROM: '#a78bfa', EXTENDS: '#22d3ee',
};
const NODE_FONT = 13;
const EDGE_FONT = 11;
// Character widths of the two label fonts (monospace ids, bold capitals for edge types), for collision boxes.
const NODE_CHAR = NODE_FONT * 0.62;
const EDGE_CHAR = EDGE_FONT * 0.72;

function el<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>, parent?: Element): SVGElementTagNameMap[K] {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  parent?.appendChild(node);
  return node;
}

/** Zoom and pan over an SVG by moving its viewBox: wheel or buttons to zoom, drag to pan. */
export class ZoomPan {
  #svg: SVGSVGElement;
  #fit: Box = { x: 0, y: 0, w: 1, h: 1 };
  #view: Box = { x: 0, y: 0, w: 1, h: 1 };

  constructor(svg: SVGSVGElement) {
    this.#svg = svg;
    svg.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = svg.getBoundingClientRect();
      this.zoom(e.deltaY < 0 ? 1.2 : 1 / 1.2, (e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height);
    }, { passive: false });
    let drag: { x: number; y: number; view: Box } | null = null;
    svg.addEventListener('pointerdown', (e) => {
      if ((e.target as Element).closest('.node')) return;
      drag = { x: e.clientX, y: e.clientY, view: { ...this.#view } };
      svg.setPointerCapture(e.pointerId);
    });
    svg.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const r = svg.getBoundingClientRect();
      const scale = Math.max(drag.view.w / r.width, drag.view.h / r.height);
      this.#set({ ...drag.view, x: drag.view.x - (e.clientX - drag.x) * scale, y: drag.view.y - (e.clientY - drag.y) * scale });
    });
    svg.addEventListener('pointerup', () => (drag = null));
  }

  fit(box: Box): void {
    this.#fit = box;
    this.#set(box);
  }

  reset(): void {
    this.#set(this.#fit);
  }

  /** `fx`, `fy`: the point (0–1 across the view) that stays where it is. */
  zoom(factor: number, fx = 0.5, fy = 0.5): void {
    const v = this.#view;
    const w = Math.min(Math.max(v.w / factor, this.#fit.w / 8), this.#fit.w * 4);
    const h = (w / v.w) * v.h;
    this.#set({ x: v.x + (v.w - w) * fx, y: v.y + (v.h - h) * fy, w, h });
  }

  #set(v: Box): void {
    this.#view = v;
    this.#svg.setAttribute('viewBox', `${v.x.toFixed(1)} ${v.y.toFixed(1)} ${v.w.toFixed(1)} ${v.h.toFixed(1)}`);
  }
}

/**
 * A memory's neighbourhood: the memory in the centre, neighbours placed by a small force layout,
 * edges coloured by type with arrows, historical memories dashed. Labels never overlap: an edge
 * label that finds no free spot is left out and its type stays in the edge's tooltip.
 */
export function renderGraph(svg: SVGSVGElement, zoom: ZoomPan, trace: TraceResult, centre: string, onPick: (id: string) => void): void {
  svg.replaceChildren();
  const defs = el('defs', {}, svg);
  for (const [type, color] of Object.entries({ ...COLORS, OTHER: '#94a3b8' })) {
    const marker = el('marker', { id: `arrow-${type}`, viewBox: '0 0 10 10', refX: 24, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: color }, marker);
  }
  // Laid out in the SVG's own pixels, so labels keep their font size instead of shrinking with the graph.
  const width = Math.max(svg.clientWidth, 280);
  const height = Math.max(svg.clientHeight, 240);
  const longest = Math.max(...trace.nodes.map((n) => n.id.length), 4);
  const pos = fitPositions(forceLayout(trace.nodes, trace.edges, centre), width, height, { x: Math.min(longest * NODE_CHAR / 2 + 8, width / 4), y: 34 });
  const radius = (id: string) => (id === centre ? 14 : 10);
  const nodeBoxes = trace.nodes.map((n) => {
    const p = pos.get(n.id)!;
    const r = radius(n.id);
    return { x: p.x - r, y: p.y - r, w: 2 * r, h: 2 * r };
  });
  const nodeLabels = placeLabels(trace.nodes.map((n) => {
    const p = pos.get(n.id)!;
    const w = n.id.length * NODE_CHAR + 6;
    return { x: p.x - w / 2, y: p.y + radius(n.id) + 3, w, h: NODE_FONT + 4 };
  }), nodeBoxes);
  const edgeLabels = placeLabels(trace.edges.map((e) => {
    const a = pos.get(e.from) ?? { x: 0, y: 0 };
    const b = pos.get(e.to) ?? { x: 0, y: 0 };
    const w = e.type.length * EDGE_CHAR + 8;
    return { x: (a.x + b.x) / 2 - w / 2, y: (a.y + b.y) / 2 - (EDGE_FONT + 4) / 2, w, h: EDGE_FONT + 4 };
  }), [...nodeBoxes, ...nodeLabels.filter((b): b is Box => b !== null)]);

  const edgeLayer = el('g', { class: 'edges' }, svg);
  const labelLayer = el('g', { class: 'edge-labels' }, svg);
  trace.edges.forEach((e, i) => {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    if (!a || !b) return;
    const type = COLORS[e.type] ? e.type : 'OTHER';
    const line = el('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: COLORS[e.type] ?? '#94a3b8', 'stroke-width': 1.8, 'marker-end': `url(#arrow-${type})`, opacity: 0.85 }, edgeLayer);
    el('title', {}, line).textContent = `${e.from} ${e.type} ${e.to}`;
    const box = edgeLabels[i];
    if (!box) return;
    const g = el('g', { class: 'edge-label' }, labelLayer);
    el('rect', { x: box.x, y: box.y, width: box.w, height: box.h, rx: 3 }, g);
    const t = el('text', { x: box.x + box.w / 2, y: box.y + box.h - 4, 'text-anchor': 'middle', fill: COLORS[e.type] ?? '#94a3b8' }, g);
    t.textContent = e.type;
  });
  trace.nodes.forEach((n, i) => {
    const p = pos.get(n.id)!;
    const g = el('g', { class: `node ${n.status}${n.id === centre ? ' centre' : ''}`, 'data-id': n.id, tabindex: 0, role: 'button' }, svg);
    el('circle', { cx: p.x, cy: p.y, r: radius(n.id) }, g);
    const box = nodeLabels[i];
    if (box) {
      const t = el('text', { x: p.x, y: box.y + box.h - 4, 'text-anchor': 'middle' }, g);
      t.textContent = n.id;
    }
    el('title', {}, g).textContent = `${n.id}: ${n.text} (${n.status})`;
    g.addEventListener('click', () => onPick(n.id));
    g.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') onPick(n.id);
    });
  });
  const all = [...nodeBoxes, ...nodeLabels, ...edgeLabels, { x: 0, y: 0, w: width, h: height }].filter((b): b is Box => b !== null);
  const minX = Math.min(...all.map((b) => b.x));
  const minY = Math.min(...all.map((b) => b.y));
  zoom.fit({ x: minX, y: minY, w: Math.max(...all.map((b) => b.x + b.w)) - minX, h: Math.max(...all.map((b) => b.y + b.h)) - minY });
}
