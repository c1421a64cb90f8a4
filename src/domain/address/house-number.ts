// House numbers, including hyphenated building ranges as written on NYC/NJ buildings:
// "1016-18" = 1016 to 1018, "1109-1121" = 1109 to 1121, "147-51" = 147 to 151.

export interface HouseNumber {
  label: string;
  lo: number;
  hi: number;
}

const RE = /^(\d+)[A-Z]?(?:-(\d+)[A-Z]?)?$/;

export function parseHouseNumber(raw: string): HouseNumber | null {
  const label = raw.trim().toUpperCase();
  const m = RE.exec(label);
  if (!m) return null;
  const lo = Number(m[1]);
  if (!m[2]) return { label, lo, hi: lo };
  const tail = m[2];
  // A short second part replaces the last digits of the first ("1016-18" → 1018).
  const hi = tail.length < m[1]!.length ? Number(m[1]!.slice(0, m[1]!.length - tail.length) + tail) : Number(tail);
  if (hi < lo) return { label, lo, hi: lo };
  return { label, lo, hi };
}
