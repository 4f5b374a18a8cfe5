/** Node placement and label placement for the neighbourhood view, kept free of the DOM. */

export interface Point {
  x: number;
  y: number;
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * A small force layout: nodes repel, edges pull like springs, the centre node stays put.
 * Starts from rings by hop distance with fixed angles, so the same neighbourhood always gets the
 * same picture.
 */
export function forceLayout(nodes: Array<{ id: string; distance: number }>, edges: Array<{ from: string; to: string }>, centre: string): Map<string, Point> {
  const pos = new Map<string, Point>();
  const rings = new Map<number, string[]>();
  for (const n of nodes) rings.set(n.distance, [...(rings.get(n.distance) ?? []), n.id]);
  for (const [d, ids] of rings) {
    ids.forEach((id, i) => {
      const angle = (2 * Math.PI * i) / ids.length + d * 0.7;
      pos.set(id, d === 0 ? { x: 0, y: 0 } : { x: Math.cos(angle) * d * 150, y: Math.sin(angle) * d * 110 });
    });
  }
  const ids = [...pos.keys()];
  const springs = edges.filter((e) => pos.has(e.from) && pos.has(e.to) && e.from !== e.to);
  const ideal = 150;
  for (let step = 0; step < 300; step++) {
    const cool = 1 - step / 300;
    const force = new Map(ids.map((id) => [id, { x: 0, y: 0 }]));
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        const a = pos.get(ids[i]!)!;
        const b = pos.get(ids[j]!)!;
        const dx = a.x - b.x || 0.01 * (i - j);
        const dy = a.y - b.y || 0.01;
        const d2 = Math.max(dx * dx + dy * dy, 1);
        const f = (ideal * ideal) / d2;
        force.get(ids[i]!)!.x += dx * f * 0.5;
        force.get(ids[i]!)!.y += dy * f * 0.5;
        force.get(ids[j]!)!.x -= dx * f * 0.5;
        force.get(ids[j]!)!.y -= dy * f * 0.5;
      }
    }
    for (const e of springs) {
      const a = pos.get(e.from)!;
      const b = pos.get(e.to)!;
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const d = Math.max(Math.hypot(dx, dy), 1);
      const f = (d - ideal) / d * 0.5;
      force.get(e.from)!.x += dx * f;
      force.get(e.from)!.y += dy * f;
      force.get(e.to)!.x -= dx * f;
      force.get(e.to)!.y -= dy * f;
    }
    for (const id of ids) {
      if (id === centre) continue;
      const p = pos.get(id)!;
      const f = force.get(id)!;
      const len = Math.hypot(f.x, f.y);
      const max = 12 * cool + 0.5;
      const scale = len > max ? max / len : 1;
      p.x += f.x * scale;
      p.y += f.y * scale;
    }
  }
  return pos;
}

export const overlaps = (a: Box, b: Box): boolean => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * Places labels in priority order: each tries its preferred spot, then spots shifted up and down,
 * and is left out (null) when all of them collide with a label already placed or a node.
 */
export function placeLabels(wanted: Box[], obstacles: Box[]): Array<Box | null> {
  const placed: Box[] = [...obstacles];
  return wanted.map((box) => {
    for (const dy of [0, -box.h, box.h, -2 * box.h, 2 * box.h]) {
      const candidate = { ...box, y: box.y + dy };
      if (!placed.some((p) => overlaps(p, candidate))) {
        placed.push(candidate);
        return candidate;
      }
    }
    return null;
  });
}

/**
 * Scales and centres positions into a `width` × `height` area with `margin` kept free for labels,
 * so labels keep their size in pixels whatever the spread of the layout. Never enlarges more than
 * `maxScale`, so two nodes do not end up a screen apart.
 */
export function fitPositions(pos: Map<string, Point>, width: number, height: number, margin: { x: number; y: number }, maxScale = 1.4): Map<string, Point> {
  const xs = [...pos.values()].map((p) => p.x);
  const ys = [...pos.values()].map((p) => p.y);
  const minX = Math.min(...xs);
  const minY = Math.min(...ys);
  const w = Math.max(Math.max(...xs) - minX, 1);
  const h = Math.max(Math.max(...ys) - minY, 1);
  const scale = Math.min((width - 2 * margin.x) / w, (height - 2 * margin.y) / h, maxScale);
  const ox = (width - w * scale) / 2;
  const oy = (height - h * scale) / 2;
  return new Map([...pos].map(([id, p]) => [id, { x: ox + (p.x - minX) * scale, y: oy + (p.y - minY) * scale }]));
}
