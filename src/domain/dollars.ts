// Constant dollars: restating an ACS dollar estimate in another year's dollars with the price
// index the Census Bureau itself uses for ACS income comparisons, the BLS R-CPI-U-RS (formerly
// CPI-U-RS). The Bureau's guidance ("Current versus Constant (or Real) Dollars", census.gov; ACS
// General Handbook 2018, ch. 9 "Comparing ACS Data", and "Understanding and Using ACS Data", 2020):
// multiply the estimate by the ratio of the annual-average index of the target year to that of
// the year whose dollars the estimate is in. A 1-year estimate is in its vintage's dollars, a
// 5-year estimate in the dollars of its last year (the Bureau adjusts every year of the period to
// the last), so either way the source year is the vintage. A margin of error scales by the same
// factor: it is a multiple of the standard error, and SE(c·X) = c·SE(X) for a constant c.
import { AppError } from './errors.js';

/** The index file's description and its annual averages (catalog/cpi-u-rs.csv). */
export interface PriceIndex {
  /** Short name, e.g. "R-CPI-U-RS, All items". */
  series: string;
  title: string;
  publisher: string;
  base: string;
  release: string;
  source_url: string;
  transcribed_from: string;
  /** Annual averages by year, as published (one decimal). */
  annual: ReadonlyMap<number, number>;
  /** The twelve monthly values by year, as published (for checking the averages). */
  monthly: ReadonlyMap<number, readonly (number | null)[]>;
  first: number;
  last: number;
}

const MONTHS = 12;

/**
 * Read the BLS table layout: `# key: value` lines describing the file, then the header
 * `YEAR,JAN,…,DEC,AVG` and one row per year (the base year has only its December value and no
 * average). Anything else is an error naming the line, so a damaged file never serves a factor.
 */
export function parsePriceIndex(text: string): PriceIndex {
  const meta = new Map<string, string>();
  const annual = new Map<number, number>();
  const monthly = new Map<number, (number | null)[]>();
  let header = false;
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const where = `line ${i + 1}`;
    if (line.startsWith('#')) {
      const m = /^#\s*([a-z_]+):\s*(.+)$/.exec(line);
      if (m) meta.set(m[1]!, m[2]!.trim());
      return;
    }
    const cells = line.split(',');
    if (!header) {
      if (cells[0] !== 'YEAR' || cells.at(-1) !== 'AVG' || cells.length !== MONTHS + 2)
        throw new Error(`price index: ${where}: expected the header YEAR,JAN,…,DEC,AVG`);
      header = true;
      return;
    }
    if (cells.length !== MONTHS + 2) throw new Error(`price index: ${where}: expected ${MONTHS + 2} fields`);
    const year = Number(cells[0]);
    if (!Number.isInteger(year)) throw new Error(`price index: ${where}: bad year "${cells[0]}"`);
    const num = (s: string) => {
      if (s === '') return null;
      const n = Number(s);
      if (!Number.isFinite(n) || n <= 0) throw new Error(`price index: ${where}: bad value "${s}"`);
      return n;
    };
    monthly.set(year, cells.slice(1, MONTHS + 1).map(num));
    const avg = num(cells[MONTHS + 1]!);
    if (avg !== null) annual.set(year, avg);
  });
  if (!header || annual.size === 0) throw new Error('price index: no annual averages');
  const need = (k: string) => {
    const v = meta.get(k);
    if (!v) throw new Error(`price index: the "# ${k}:" line is missing`);
    return v;
  };
  const years = [...annual.keys()].sort((a, b) => a - b);
  for (let y = years[0]!; y <= years.at(-1)!; y++) {
    if (!annual.has(y)) throw new Error(`price index: no annual average for ${y}`);
  }
  return {
    series: need('series'),
    title: need('title'),
    publisher: need('publisher'),
    base: need('base'),
    release: need('release'),
    source_url: need('source_url'),
    transcribed_from: need('transcribed_from'),
    annual,
    monthly,
    first: years[0]!,
    last: years.at(-1)!,
  };
}

/** How one cell was restated: the factor and the two index values it is the ratio of. */
export interface DollarFactor {
  factor: number;
  source_year: number;
  target_year: number;
  source_index: number;
  target_index: number;
}

/** The years a target may name, said in every error about one. */
const yearsOf = (index: PriceIndex) => `${index.first}–${index.last}`;

/** A dollars= year the index covers, else 422 naming the years it does. */
export function checkTargetYear(index: PriceIndex, year: number): number {
  if (!Number.isInteger(year) || !index.annual.has(year)) {
    throw new AppError(
      'unprocessable-request',
      `dollars=${year} is outside the ${index.series} annual averages this service holds (${yearsOf(index)}); choose a year in ${yearsOf(index)}.`,
      {
        errors: [{ field: 'dollars', message: `a year in ${yearsOf(index)}`, type: 'value_error' }],
        extensions: { available_years: { first: index.first, last: index.last } },
      },
    );
  }
  return year;
}

/** Target index / source index; null when the source year is not covered (never guessed). */
export function dollarFactor(index: PriceIndex, sourceYear: number, targetYear: number): DollarFactor | null {
  const source = index.annual.get(sourceYear);
  const target = index.annual.get(targetYear);
  if (source === undefined || target === undefined) return null;
  return { factor: target / source, source_year: sourceYear, target_year: targetYear, source_index: source, target_index: target };
}

/** The year whose dollars an ACS estimate of this vintage is in: the vintage, for acs1 and acs5 alike. */
export function dollarYearOf(vintage: number): number {
  return vintage;
}
