// Response schemas of the data endpoints (documentation in /openapi.json; see docs/api.md).
import { z } from 'zod';

const annotation = z
  .object({
    code: z.string().describe('Stable annotation code, e.g. controlled, not_computable, no_data_loaded (docs/annotations.md).'),
    symbol: z.string().describe('The symbol data.census.gov shows, where there is one.'),
    meaning: z.string(),
  })
  .nullable();

export const observationCellSchema = z.object({
  geo_key: z.string().describe('`{type}:{fips}`'),
  geo_name: z.string(),
  geo_type: z.string(),
  variable: z.string().describe('The api_name, or the census code when the variable was asked for by code (or a table).'),
  census_code: z.string().nullable().describe('Census variable code; null for derived variables (see formula).'),
  formula: z.string().nullable().describe('Declared formula over census codes for derived variables; null for published codes.'),
  label: z.string(),
  unit: z.string().nullable().describe('count, dollar, percent or year; for a census code asked for by code, inferred from its table title where certain, else null.'),
  dataset: z.string(),
  vintage: z.number().int(),
  estimate: z.number().nullable(),
  moe_numeric: z.number().nullable().describe('Margin of error at 90% confidence.'),
  estimate_annotation: annotation,
  moe_annotation: annotation,
  table_id: z.string().optional().describe('Census codes asked for by code: the Detailed Table.'),
  table_title: z.string().nullable().optional().describe('Census codes asked for by code: the table title in this vintage.'),
  universe: z.string().nullable().optional().describe('Census codes asked for by code: the table universe in this vintage.'),
  label_changed: z
    .object({
      code: z.literal('label_changed'),
      label_differs: z.boolean(),
      universe_differs: z.boolean(),
      latest_vintage: z.number().int(),
      latest_label: z.string().nullable(),
      latest_universe: z.string().nullable(),
    })
    .nullable()
    .optional()
    .describe("Census codes asked for by code: set when this vintage's label or universe differs materially from the code's latest vintage."),
});

export const dataCellSchema = observationCellSchema.extend({
  geometry: z
    .object({
      type: z.string().describe('GeoJSON geometry type, e.g. MultiPolygon.'),
      coordinates: z.array(z.unknown()).optional(),
      geometries: z.array(z.unknown()).optional().describe('GeometryCollection only.'),
    })
    .nullable()
    .optional()
    .describe('GeoJSON geometry, with include_geometry=true.'),
});

export const comparedCellSchema = observationCellSchema.extend({
  comparison: z
    .object({
      reference_geo_key: z.string(),
      difference: z.number().nullable(),
      difference_moe: z.number().nullable(),
      significant: z.boolean().nullable(),
      not_tested_reason: z
        .string()
        .nullable()
        .describe('Annotation code of the value or MOE that makes a significance test meaningless (null estimate, top/bottom-coded median, controlled estimate, missing or annotated MOE); null when the test was made.'),
    })
    .nullable(),
});
