// Place a house number along a TIGER address-range edge: linear in the number between the
// from/to ends (the edge's first and last vertex, as TIGER digitises ranges), then pushed a few
// metres to the side of the street the range lies on, so left/right addresses do not coincide.
import type { RangeSide } from '../address/types.js';

const M_PER_DEG_LAT = 111_320;
export const SIDE_OFFSET_M = 10;

export function fitsSide(side: RangeSide, n: number): boolean {
  const lo = Math.min(side.from, side.to);
  const hi = Math.max(side.from, side.to);
  if (n < lo || n > hi) return false;
  if (side.parity === 'O') return n % 2 === 1;
  if (side.parity === 'E') return n % 2 === 0;
  return true;
}

export function interpolate(coords: [number, number][], side: RangeSide, which: 'left' | 'right', n: number): { lng: number; lat: number } {
  const t = side.to === side.from ? 0.5 : (n - side.from) / (side.to - side.from);
  const lat0 = coords[0]![1];
  const kx = M_PER_DEG_LAT * Math.cos((lat0 * Math.PI) / 180);
  const seg: number[] = [];
  let total = 0;
  for (let i = 1; i < coords.length; i++) {
    const dx = (coords[i]![0] - coords[i - 1]![0]) * kx;
    const dy = (coords[i]![1] - coords[i - 1]![1]) * M_PER_DEG_LAT;
    const d = Math.hypot(dx, dy);
    seg.push(d);
    total += d;
  }
  let target = Math.min(Math.max(t, 0), 1) * total;
  let i = 0;
  while (i < seg.length - 1 && target > seg[i]!) {
    target -= seg[i]!;
    i++;
  }
  const a = coords[i]!;
  const b = coords[Math.min(i + 1, coords.length - 1)]!;
  const f = seg[i] ? target / seg[i]! : 0;
  const x = a[0] + (b[0] - a[0]) * f;
  const y = a[1] + (b[1] - a[1]) * f;
  const dx = (b[0] - a[0]) * kx;
  const dy = (b[1] - a[1]) * M_PER_DEG_LAT;
  const len = Math.hypot(dx, dy) || 1;
  // Left of the digitising direction is the normal (-dy, dx); right is (dy, -dx).
  const sign = which === 'left' ? 1 : -1;
  const ox = ((-dy / len) * SIDE_OFFSET_M * sign) / kx;
  const oy = ((dx / len) * SIDE_OFFSET_M * sign) / M_PER_DEG_LAT;
  return { lng: x + ox, lat: y + oy };
}
