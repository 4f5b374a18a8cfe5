import type { TraceResult } from '../src/types.js';

const NS = 'http://www.w3.org/2000/svg';
const COLORS: Record<string, string> = {
  SUPERSEDES: '#f472b6', DEPENDS_ON: '#60a5fa', IMPLEMENTS: '#34d399', REFERENCES: '#fbbf24', DERIVED_FROM: '#a78bfa', EXTENDS: '#22d3ee',
};

function el<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>, parent?: Element): SVGElementTagNameMap[K] {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  parent?.appendChild(node);
  return node;
}

/**
 * A small radial view of a memory's neighbourhood: the memory in the centre, each ring one hop
 * further out, edges coloured by type with arrows, historical memories dimmed.
 */
export function renderGraph(svg: SVGSVGElement, trace: TraceResult, centre: string, onPick: (id: string) => void): void {
  svg.replaceChildren();
  const width = 560;
  const height = 340;
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const defs = el('defs', {}, svg);
  for (const [type, color] of Object.entries({ ...COLORS, OTHER: '#94a3b8' })) {
    const marker = el('marker', { id: `arrow-${type}`, viewBox: '0 0 10 10', refX: 22, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: color }, marker);
  }
  const rings = new Map<number, string[]>();
  for (const n of trace.nodes) rings.set(n.distance, [...(rings.get(n.distance) ?? []), n.id]);
  const pos = new Map<string, { x: number; y: number }>();
  const cx = width / 2;
  const cy = height / 2;
  for (const [d, ids] of rings) {
    ids.forEach((id, i) => {
      if (d === 0) pos.set(id, { x: cx, y: cy });
      else {
        const angle = (2 * Math.PI * i) / ids.length + d * 0.6;
        pos.set(id, { x: cx + Math.cos(angle) * d * 120, y: cy + Math.sin(angle) * d * 68 });
      }
    });
  }
  for (const e of trace.edges) {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    if (!a || !b) continue;
    const type = COLORS[e.type] ? e.type : 'OTHER';
    el('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: COLORS[e.type] ?? '#94a3b8', 'stroke-width': 1.6, 'marker-end': `url(#arrow-${type})`, opacity: 0.85 }, svg);
    const label = el('text', { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 4, class: 'edge-label', 'text-anchor': 'middle' }, svg);
    label.textContent = e.type;
  }
  for (const n of trace.nodes) {
    const p = pos.get(n.id)!;
    const g = el('g', { class: `node ${n.status}${n.id === centre ? ' centre' : ''}`, transform: `translate(${p.x},${p.y})`, tabindex: 0 }, svg);
    el('circle', { r: n.id === centre ? 13 : 10 }, g);
    const t = el('text', { y: 26, 'text-anchor': 'middle' }, g);
    t.textContent = n.id;
    const title = el('title', {}, g);
    title.textContent = `${n.text} (${n.status})`;
    g.addEventListener('click', () => onPick(n.id));
  }
}
