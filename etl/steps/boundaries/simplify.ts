// Douglas–Peucker simplification used to DERIVE coarser resolutions from a finer source.
// Each ring is simplified on its own, so neighbours can show small slivers or overlaps along
// shared edges; that is why derived files are labelled derived and never used by the geocoder.
import type { Geometry, MultiPolygon, Polygon, Position } from 'geojson';

/** Tolerance in degrees per served resolution, chosen to match the Census generalisation scales. */
export const TOLERANCE_DEG = { '5m': 0.001, '20m': 0.005 } as const;

function sqSegDist(p: Position, a: Position, b: Position): number {
  let x = a[0]!;
  let y = a[1]!;
  let dx = b[0]! - x;
  let dy = b[1]! - y;
  if (dx !== 0 || dy !== 0) {
    const t = ((p[0]! - x) * dx + (p[1]! - y) * dy) / (dx * dx + dy * dy);
    if (t > 1) {
      x = b[0]!;
      y = b[1]!;
    } else if (t > 0) {
      x += dx * t;
      y += dy * t;
    }
  }
  dx = p[0]! - x;
  dy = p[1]! - y;
  return dx * dx + dy * dy;
}

/** Iterative Douglas–Peucker (no recursion: TIGER rings reach 100k+ vertices). */
export function simplifyLine(points: Position[], tolerance: number): Position[] {
  if (points.length <= 2) return points.slice();
  const sqTol = tolerance * tolerance;
  const keep = new Uint8Array(points.length);
  keep[0] = 1;
  keep[points.length - 1] = 1;
  const stack: [number, number][] = [[0, points.length - 1]];
  while (stack.length) {
    const [first, last] = stack.pop()!;
    let maxSq = sqTol;
    let index = -1;
    for (let i = first + 1; i < last; i++) {
      const d = sqSegDist(points[i]!, points[first]!, points[last]!);
      if (d > maxSq) {
        maxSq = d;
        index = i;
      }
    }
    if (index !== -1) {
      keep[index] = 1;
      stack.push([first, index], [index, last]);
    }
  }
  const out: Position[] = [];
  for (let i = 0; i < points.length; i++) if (keep[i]) out.push(round(points[i]!));
  return out;
}

function round(p: Position): Position {
  return [Math.round(p[0]! * 1e6) / 1e6, Math.round(p[1]! * 1e6) / 1e6];
}

function simplifyRing(ring: Position[], tolerance: number): Position[] | null {
  // A closed ring's first and last points coincide: split it in two halves so the anchor
  // segment of Douglas–Peucker is not degenerate.
  const mid = Math.floor(ring.length / 2);
  const a = simplifyLine(ring.slice(0, mid + 1), tolerance);
  const b = simplifyLine(ring.slice(mid), tolerance);
  const out = a.concat(b.slice(1));
  return out.length >= 4 ? out : null;
}

function simplifyPolygon(rings: Position[][], tolerance: number): Position[][] | null {
  const outer = simplifyRing(rings[0]!, tolerance);
  if (!outer) return null;
  const holes = rings
    .slice(1)
    .map((r) => simplifyRing(r, tolerance))
    .filter((r): r is Position[] => r !== null);
  return [outer, ...holes];
}

/**
 * Simplified polygonal geometry. Parts that collapse below a valid ring are dropped; if every
 * part collapses (a feature smaller than the tolerance) the original geometry is kept, so no
 * geography disappears from a derived file.
 */
export function simplifyGeometry(g: Geometry, tolerance: number): Geometry {
  if (g.type === 'Polygon') {
    const p = simplifyPolygon(g.coordinates, tolerance);
    return p ? ({ type: 'Polygon', coordinates: p } satisfies Polygon) : g;
  }
  if (g.type === 'MultiPolygon') {
    const parts = g.coordinates.map((p) => simplifyPolygon(p, tolerance)).filter((p): p is Position[][] => p !== null);
    if (parts.length === 0) return g;
    return parts.length === 1
      ? { type: 'Polygon', coordinates: parts[0]! }
      : ({ type: 'MultiPolygon', coordinates: parts } satisfies MultiPolygon);
  }
  return g;
}

export function countVertices(g: Geometry): number {
  if (g.type === 'Polygon') return g.coordinates.reduce((n, r) => n + r.length, 0);
  if (g.type === 'MultiPolygon') return g.coordinates.reduce((n, p) => n + p.reduce((m, r) => m + r.length, 0), 0);
  return 0;
}
