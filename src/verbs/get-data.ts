// GET /v1/data and the MCP tool get_census_data: values of variables for geographies in one
// vintage, one cell per geography × variable (long format, as tidycensus returns it).
import { z } from 'zod';
import { checkResponseSize, checkRowCap } from '../domain/row-cap.js';
import type { Geometry } from 'geojson';
import { withLazyData, type VerbResult } from '../context/verb-context.js';
import { geometriesFor } from './boundaries-geometries.js';
import { cellsShared, compactShared, computeGridShared, sharedKeyOf } from './observations/answer-cache.js';
import { answerKeyOfInput } from './observations/answer-key.js';
import { cellsJsonChunks } from './observations/cells-json.js';
import { isCompactData, type CompactData } from './observations/compact.js';
import { gridCellCount, type ObservationCell } from './observations/engine.js';
import { observationMeta } from './observations/meta.js';
import {
  geoTerms,
  mayExpand,
  normalizeObservationInput,
  observationInputShape,
  prepare,
  requireGeometryFeature,
} from './observations/prepare.js';
import { compactDataSchema, dataCellSchema } from './observations/schemas.js';
import { defineVerb } from './define-verb.js';
import { adjustCell, dollarsInputShape, dollarsMeta } from './observations/dollars.js';
import { regionGrid, regionMeta, withRegionSlices } from './observations/regions.js';
import { savedRegionsOf } from './observations/saved-regions.js';

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
  ...dollarsInputShape,
});
export type DataCell = ObservationCell & { geometry?: Geometry | null };

export const getData = defineVerb({
  name: 'get-data',
  input: getDataInput,
  // The long format; `compact` is the same cells as a columnar table (observations/compact.ts).
  output: z.union([z.array(dataCellSchema), compactDataSchema]),
  feature: 'data',
  formats: ['json', 'csv', 'compact'],
  normalize: (input, at) => normalizeObservationInput(input, at),
  heavy: (input) => input.include_geometry === true || mayExpand(input),
  // Before the queue: variables and places found, plan gates on expansions and geometry, limits.
  resolve: async ({ ctx, input, plan, maxRows }) => {
    const p = await prepare(ctx, plan, input, { requested: input.vintage, defaultToLoaded: true, regions: { saved: savedRegionsOf(ctx) } });
    if (input.include_geometry)
      requireGeometryFeature(
        ctx,
        p.plan,
        p.geo.geographies.map((g) => g.type),
      );
    const rows = p.geo.geographies.length + p.regions.length;
    checkRowCap(rows * p.variables.length, maxRows);
    checkResponseSize({ geographies: rows, variables: p.variables.length, geometry: input.include_geometry === true });
    return p;
  },
  cost: (_input, p) => ({ kind: 'data', variables: p.variables.length, geos: geoTerms(p.geo, p.regions) }),
  run: async ({ ctx, input, format, resolved: p }): Promise<VerbResult<DataCell[] | CompactData>> => {
    const dollars = input.dollars;
    const vintage = p.vintage;

    const request = { dataset: p.dataset, vintages: [vintage], variables: p.variables, geographies: p.geo.geographies };
    const meta: Record<string, unknown> = {};
    let geometries: Map<string, Geometry | null> | undefined;
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
      geometries = shapes?.geometries ?? new Map();
      meta.boundary_vintages = shapes?.vintages ?? {};
    }
    if (dollars) meta.dollars = dollarsMeta(dollars);
    const regions = p.regions.length ? await regionGrid(p, p.regions, [vintage]) : null;
    if (regions) Object.assign(meta, regionMeta(p, regions));
    const metaOf = (result: Parameters<typeof observationMeta>[2]) => ({
      ...observationMeta(p, [vintage], result, { extraHint: p.defaultNote ?? undefined }),
      ...meta,
    });
    // Regions' rows follow the listed geographies' (observations/regions.ts).
    const computeGrid = async () => {
      // Keyed by everything asked (the listed geographies' grid and the renderings kept beside it).
      const grid = await computeGridShared(p.stores, p.stores.catalog, request, answerKeyOfInput('get-data', input));
      return regions ? withRegionSlices(grid, regions) : grid;
    };

    if (format === 'compact') {
      // Straight from the engine's grid: no cell object per value (observations/compact.ts).
      const grid = await computeGrid();
      let table = compactShared(grid, { dataset: p.dataset, vintage });
      if (geometries) {
        const shapes = geometries;
        table = { ...table, geographies: table.geographies.map((g) => ({ ...g, geometry: shapes.get(g.geo_key) ?? null })) };
      }
      return { data: table, meta: metaOf(grid) };
    }
    const grid = await computeGrid();
    if (dollars) {
      const shapes = geometries;
      const cells = cellsShared(grid).cells.map((c) => adjustCell(c, dollars));
      return { data: shapes ? cells.map((c) => ({ ...c, geometry: shapes.get(c.geo_key) ?? null })) : cells, meta: metaOf(grid) };
    }
    if (geometries) {
      const shapes = geometries;
      return { data: cellsShared(grid).cells.map((c) => ({ ...c, geometry: shapes.get(c.geo_key) ?? null })), meta: metaOf(grid) };
    }
    // The transports write the JSON straight from the grid (observations/cells-json.ts); the cell
    // objects are built only for those that read them (MCP, CSV, a cached small answer's kept JSON).
    const itemsJson = { count: gridCellCount(grid), chunks: (n: number) => cellsJsonChunks(grid, n), keep: sharedKeyOf(grid) };
    return withLazyData({ meta: metaOf(grid), itemsJson }, () => cellsShared(grid).cells);
  },
});

/** The long-format answer (what every format but compact gets): the verb's result narrowed to cells. */
export function longFormat(r: VerbResult<DataCell[] | CompactData>): VerbResult<DataCell[]> {
  if (isCompactData(r.data)) throw new Error('get-data: a compact answer where cells were asked for');
  return { ...r, data: r.data };
}

/** The compact answer (what format=compact gets): the verb's result narrowed to the table. */
export function compactFormat(r: VerbResult<DataCell[] | CompactData>): VerbResult<CompactData> {
  if (!isCompactData(r.data)) throw new Error('get-data: cells where a compact table was asked for');
  return { ...r, data: r.data };
}
