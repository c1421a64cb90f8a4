// The unit of a published census code asked for by its code (catalog variables carry a reviewed
// unit). Inferred from the table title only where the title settles it; otherwise null, because a
// wrong unit (dollars on a count of households by income bracket) is worse than none.
export type CensusUnit = 'count' | 'dollar' | 'percent' | 'year';

const SUMMARY = /^(median|mean|average|aggregate|per capita|gini)\b/i;
const MONEY = /\b(dollars|income|earnings|rent|value|costs?)\b/i;
const UNCERTAIN = /\b(ratio|percent|percentage|index|rate|quintile|allocation of|imputation)\b/i;

export function inferCensusUnit(tableTitle: string | null): CensusUnit | null {
  if (!tableTitle) return null;
  const t = tableTitle.trim();
  if (SUMMARY.test(t)) {
    if (/^(median|mean|average|aggregate|per capita)\b/i.test(t) && /inflation-adjusted dollars|\(dollars\)/i.test(t) && MONEY.test(t))
      return 'dollar';
    if (/^per capita income\b/i.test(t)) return 'dollar';
    if (/^median age\b/i.test(t)) return 'year';
    if (/^median year\b/i.test(t)) return 'year';
    return null;
  }
  // Everything else in the Detailed Tables tabulates people, households or housing units into
  // cells ("Sex by Age", "Household Income …" by bracket): counts, unless the title says a ratio
  // or percentage is involved, where a reader might expect otherwise.
  if (UNCERTAIN.test(t)) return null;
  return 'count';
}
