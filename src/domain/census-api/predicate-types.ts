// The `predicateType` of an estimate code (and of its margin, which the Bureau always types as
// its estimate) in the discovery documents, chosen in this order (docs/census-api.md):
//  1. the Bureau's own type for the code in this dataset and vintage (its verbatim variable lists,
//     ../shared/census/metadata/api_labels: acs1 2005–2018);
//  2. else the Bureau's type for the same code in the nearest vintage that gives one, this dataset
//     first, then the other (a Detailed-Table code is one table shell line in both datasets and in
//     every vintage the Bureau typed it, so its type is the same);
//  3. else what the values the Bureau published for the code in this dataset and vintage show:
//     `float` if any is written with a decimal point, `int` if all are whole numbers;
//  4. else (no Bureau type anywhere and no published value) `int`, the type of 99.4% of the
//     Bureau's ACS estimate variables (57,594 of 57,936 in acs1 2018); such a code answers only
//     nulls, which every client decodes as missing whatever the type.
// Clients decode by it: the Python `census` package casts `int`/`float` cells to numbers and
// leaves a cell of any other or absent type a string (census/core.py, `_field_type`).

export type PredicateType = 'int' | 'float';

/** How a code's type was chosen (rules 1–4 above). */
export type PredicateTypeSource = 'bureau' | 'bureau-other-vintage' | 'published-values' | 'default';

/** The Bureau's type of one code in one dataset and vintage, where it gave one. */
export interface TypedVintage {
  dataset: string;
  vintage: number;
  type: PredicateType;
}

/** The typed vintage rule 2 takes: this dataset before the other, then the nearest vintage, then the later. */
export function nearestBureauType(dataset: string, vintage: number, candidates: readonly TypedVintage[]): PredicateType | null {
  let best: TypedVintage | null = null;
  const rank = (c: TypedVintage) => [c.dataset === dataset ? 0 : 1, Math.abs(c.vintage - vintage), -c.vintage];
  for (const c of candidates) {
    if (!best) best = c;
    else {
      const [a, b] = [rank(c), rank(best)];
      const i = a.findIndex((x, k) => x !== b[k]);
      if (i >= 0 && a[i]! < b[i]!) best = c;
    }
  }
  return best?.type ?? null;
}

/** Rule 3: the published texts of a code's estimate cells (nulls and jam values aside) → its type; null when there is none. */
export function typeOfPublishedValues(texts: Iterable<string>): PredicateType | null {
  let seen = false;
  for (const t of texts) {
    // Jam values (-666666666, …) are codes, not values: whole numbers whatever the column's type.
    if (/^-(\d)\1{8}$/.test(t)) continue;
    if (!/^-?\d+(\.\d+)?$/.test(t)) continue;
    if (t.includes('.')) return 'float';
    seen = true;
  }
  return seen ? 'int' : null;
}

/** Rules 1–4 in order. */
export function choosePredicateType(
  own: PredicateType | null,
  otherVintage: PredicateType | null,
  fromValues: () => PredicateType | null,
): { type: PredicateType; source: PredicateTypeSource } {
  if (own) return { type: own, source: 'bureau' };
  if (otherVintage) return { type: otherVintage, source: 'bureau-other-vintage' };
  const v = fromValues();
  return v ? { type: v, source: 'published-values' } : { type: 'int', source: 'default' };
}
