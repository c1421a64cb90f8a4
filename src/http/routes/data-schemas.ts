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
  variable: z.string().describe('api_name'),
  census_code: z.string().nullable().describe('Census variable code; null for derived variables (see formula).'),
  formula: z.string().nullable().describe('Declared formula over census codes for derived variables; null for published codes.'),
  label: z.string(),
  unit: z.string().describe('count, dollar, percent or year'),
  dataset: z.string(),
  vintage: z.number().int(),
  estimate: z.number().nullable(),
  moe_numeric: z.number().nullable().describe('Margin of error at 90% confidence.'),
  estimate_annotation: annotation,
  moe_annotation: annotation,
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
    })
    .nullable(),
});
