// GET /v1/data and the MCP tool get_census_data: values of variables for geographies in one
// vintage, one cell per geography × variable (long format, as tidycensus returns it).
import { z } from 'zod';
import { checkResponseSize, checkRowCap } from '../domain/row-cap.js';
import type { Geometry } from 'geojson';
import type { VerbResult } from '../context/verb-context.js';
import { geometriesFor } from './boundaries-geometries.js';
import { computeCellsShared } from './observations/answer-cache.js';
import { type ObservationCell } from './observations/engine.js';
import { observationMeta } from './observations/meta.js';
import { geoTerms, isWildcard, observationInputShape, prepare, requireGeometryFeature } from './observations/prepare.js';
import { compactDataSchema, dataCellSchema } from './observations/schemas.js';
import { defineVerb } from './define-verb.js';

export const getDataInput = z.object({
  ...observationInputShape,
  vintage: z
    .number()
    .int()
    .optional()
    .describe(
      "Survey year; default: the latest vintage this deployment holds values for (for these variables and geographies), else the dataset's latest (2024); meta.hint says when the default was used.",
    ),
  include_geometry: z
    .boolean()
    .optional()
    .describe("Add each geography's boundary (GeoJSON geometry, 20m) to its cells; Pro plan and above."),
});
export type DataCell = ObservationCell & { geometry?: Geometry | null };

export const getData = defineVerb({
  name: 'get-data',
  input: getDataInput,
  // The long format; `compact` is the same cells as a columnar table (observations/compact.ts).
  output: z.union([z.array(dataCellSchema), compactDataSchema]),
  feature: 'data',
  formats: ['json', 'csv', 'compact'],
  cost: 'expanded',
  heavy: (input) => input.include_geometry === true || isWildcard(input.geo),
  run: async ({ ctx, input, plan, maxRows, charge }): Promise<VerbResult<DataCell[]>> => {
    const p = await prepare(ctx, plan, input, { requested: input.vintage, defaultToLoaded: true });
    const vintage = p.vintage;
    if (input.include_geometry)
      requireGeometryFeature(
        ctx,
        p.plan,
        p.geo.geographies.map((g) => g.type),
      );
    checkRowCap(p.geo.geographies.length * p.variables.length, maxRows);
    checkResponseSize({ geographies: p.geo.geographies.length, variables: p.variables.length, geometry: input.include_geometry === true });
    await charge({ kind: 'data', variables: p.variables.length, geos: geoTerms(p.geo) });

    const result = await computeCellsShared(p.stores, p.stores.catalog, {
      dataset: p.dataset,
      vintages: [vintage],
      variables: p.variables,
      geographies: p.geo.geographies,
    });
    let cells: DataCell[] = result.cells;
    const meta: Record<string, unknown> = {};
    if (input.include_geometry) {
      const boundaries = ctx.stores.boundaries;
      // Shapes of the vintage's definitions only; a geography not defined in the vintage has none.
      const defined = p.geo.geographies.filter((g) => p.stores.geographies.get(g.key, vintage) !== null);
      const shapes = boundaries
        ? await geometriesFor(
            boundaries,
            defined.map((g) => g.key),
            '20m',
            vintage,
          )
        : undefined;
      cells = cells.map((c) => ({ ...c, geometry: shapes?.geometries.get(c.geo_key) ?? null }));
      meta.boundary_vintages = shapes?.vintages ?? {};
    }
    return {
      data: cells,
      meta: { ...observationMeta(p, [vintage], result, { extraHint: p.defaultNote ?? undefined }), ...meta },
    };
  },
});
