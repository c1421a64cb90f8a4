// Forgiving comparison of place names: case, accents, punctuation, "St."/"Saint", and the
// county-equivalent type words ("County", "Parish", "Borough", "Planning Region", "city", …) that
// people leave out. Matching first tries the folded name with its type word, so "St. Louis city"
// and "St. Louis County" stay distinct; only then the bare name, where they become ambiguous.

/** Lower case, no accents, `St.`→`saint`, punctuation as spaces, single spaces. */
export function foldName(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[’'`ʻ]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .replace(/\bste\b/g, 'sainte')
    .replace(/\bst\b/g, 'saint')
    .replace(/\bmt\b/g, 'mount')
    .trim()
    .replace(/\s+/g, ' ');
}

/** Folded and without spaces, so "De Kalb" meets "DeKalb" and "La Salle" meets "LaSalle". */
export function compactName(s: string): string {
  return foldName(s).replace(/ /g, '');
}

// Longest first: "city and borough" must win over "borough".
const COUNTY_TYPE_WORDS = [
  'city and borough',
  'census area',
  'planning region',
  'municipality',
  'municipio',
  'borough',
  'parish',
  'county',
  'city',
];

/** The folded name without a trailing county-equivalent type word ("travis county" → "travis"). */
export function stripCountyType(folded: string): string {
  for (const w of COUNTY_TYPE_WORDS) {
    if (folded.endsWith(` ${w}`)) return folded.slice(0, -w.length - 1);
  }
  return folded;
}

/** Levenshtein distance, for "closest candidates" in not-found messages. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The `limit` items whose label is closest to `query` (distance on compact forms, substring first). */
export function closest<T>(query: string, items: T[], label: (t: T) => string, limit = 5): T[] {
  const q = compactName(query);
  return items
    .map((t) => {
      const l = compactName(label(t));
      const d = l.includes(q) || q.includes(l) ? Math.abs(l.length - q.length) / 100 : editDistance(q, l);
      return { t, d };
    })
    .sort((a, b) => a.d - b.d)
    .slice(0, limit)
    .map((x) => x.t);
}
