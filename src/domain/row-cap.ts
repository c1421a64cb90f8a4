// The CSV export cap (10,000 rows in every plan, src/domain/plans.ts). Past it a request is
// refused, never truncated: a shortened file is too easily mistaken for the whole result. Data
// operations check it as soon as they know the row count (after expanding geographies, before
// reading values); the CSV renderer checks the final table as a backstop.
import { AppError } from './errors.js';

export function checkRowCap(rows: number, cap: number | undefined): void {
  if (cap === undefined || rows <= cap) return;
  throw new AppError(
    'payload-too-large',
    `The CSV would have ${rows} rows; the limit is ${cap}. Narrow the request: fewer geographies or variables, a smaller wildcard, a shorter vintage range.`,
    { extensions: { row_count: rows, row_cap: cap } },
  );
}
