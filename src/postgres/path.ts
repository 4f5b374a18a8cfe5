import type { Direction } from '../types.js';
import type { Db, Query } from './db.js';

/**
 * Shortest typed path from `from` to `to` as memory numbers, or null. Breadth-first, one query
 * per level over the edges table (a path has no depth bound, so a recursive CTE could not stop
 * at the first level that reaches `to`). Arrivals are chosen as the embedded walk chooses them:
 * the heaviest edge, then the smaller predecessor.
 */
export async function bfsPath(q: Query, db: Db, from: number, to: number, w: { direction: Direction; edgeTypes: readonly string[] }): Promise<number[] | null> {
  if (from === to) return [from];
  const via = new Map<number, number[]>([[from, []]]);
  let frontier = [from];
  const out = w.direction !== 'in';
  const inward = w.direction !== 'out';
  while (frontier.length > 0) {
    const rows = (await q(
      `SELECT e.src, e.dst, e.weight FROM ${db.t('edges')} e
       WHERE ((${out} AND e.src = ANY($1)) OR (${inward} AND e.dst = ANY($1))) AND ($2::text[] IS NULL OR e.type = ANY($2))`,
      [frontier, w.edgeTypes.length > 0 ? w.edgeTypes : null],
    )).rows;
    const level = new Set(frontier);
    const best = new Map<number, { pred: number; weight: number }>();
    const step = (pred: number, next: number, weight: number) => {
      if (via.has(next)) return;
      const prior = best.get(next);
      if (!prior || weight > prior.weight || (weight === prior.weight && pred < prior.pred)) best.set(next, { pred, weight });
    };
    for (const r of rows) {
      const src = Number(r['src']);
      const dst = Number(r['dst']);
      if (out && level.has(src)) step(src, dst, Number(r['weight']));
      if (inward && level.has(dst)) step(dst, src, Number(r['weight']));
    }
    for (const [next, { pred }] of best) via.set(next, [...via.get(pred)!, pred]);
    if (via.has(to)) return [...via.get(to)!, to];
    frontier = [...best.keys()];
  }
  return null;
}
