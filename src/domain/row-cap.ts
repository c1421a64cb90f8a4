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

/**
 * The bound on one JSON answer, in every plan. Answers are streamed (never built whole as text),
 * but their cells are computed in memory first, and geometries are held per geography: past
 * these bounds a request is refused up front, before any value is read, with the way to narrow.
 */
export const MAX_RESPONSE_CELLS = 200_000;
export const MAX_GEOMETRY_GEOGRAPHIES = 5_000;

export function checkResponseSize(shape: { geographies: number; variables: number; vintages?: number; geometry?: boolean }): void {
  const cells = shape.geographies * shape.variables * (shape.vintages ?? 1);
  if (cells > MAX_RESPONSE_CELLS) {
    throw new AppError(
      'payload-too-large',
      `This request would return ${cells} cells (${shape.geographies} geographies × ${shape.variables} variables${shape.vintages && shape.vintages > 1 ? ` × ${shape.vintages} vintages` : ''}); one response holds at most ${MAX_RESPONSE_CELLS}. Narrow it: fewer variables per request, a smaller wildcard (tract:06037* rather than tract:06*), or a shorter vintage range, and combine the answers.`,
      { extensions: { cell_count: cells, cell_cap: MAX_RESPONSE_CELLS } },
    );
  }
  if (shape.geometry && shape.geographies > MAX_GEOMETRY_GEOGRAPHIES) {
    throw new AppError(
      'payload-too-large',
      `Geometry is included for at most ${MAX_GEOMETRY_GEOGRAPHIES} geographies per response; this request has ${shape.geographies}. Ask without include_geometry and fetch shapes once from /v1/boundaries (they do not change with the variable), or use a smaller wildcard.`,
      { extensions: { geography_count: shape.geographies, geometry_cap: MAX_GEOMETRY_GEOGRAPHIES } },
    );
  }
}
