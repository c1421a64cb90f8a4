// Output schemas of the data operations (get-data, compare, timeseries): documented in /openapi.json and the REST serializer (docs/data.md).
import { z } from 'zod';
import { cellDollarsSchema } from './dollars.js';

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
  unit: z
    .string()
    .nullable()
    .describe(
      'count, dollar, percent or year; for a census code asked for by code, inferred from its table title where certain, else null.',
    ),
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
    .describe(
      "Census codes asked for by code: set when this vintage's label or universe differs materially from the code's latest vintage.",
    ),
  dollars: cellDollarsSchema.optional(),
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
        .describe(
          'Annotation code of the value or MOE that makes a significance test meaningless (null estimate, top/bottom-coded median, controlled estimate, missing or annotated MOE); when both values are untestable, the more basic reason (no value, then a coded value, then the MOE). Null when the test was made.',
        ),
    })
    .nullable(),
});

/** `format=compact` on /v1/data (src/verbs/observations/compact.ts; docs/formats.md). */
export const compactDataSchema = z
  .object({
    format: z.literal('compact'),
    dataset: z.string(),
    vintage: z.number().int(),
    geographies: z.array(z.object({ geo_key: z.string(), geo_name: z.string(), geo_type: z.string(), geometry: z.unknown().optional() })),
    variables: z
      .array(
        observationCellSchema.omit({
          geo_key: true,
          geo_name: true,
          geo_type: true,
          estimate: true,
          moe_numeric: true,
          estimate_annotation: true,
          moe_annotation: true,
          dataset: true,
          vintage: true,
        }),
      )
      .describe('Per variable, the fields every cell of that variable shares (as in the long format).'),
    estimate: z.array(z.array(z.number().nullable())).describe('estimate[g][v]: geography g of `geographies`, variable v of `variables`.'),
    moe_numeric: z.array(z.array(z.number().nullable())).describe('90% margins of error, same shape.'),
    estimate_annotation: z.array(z.array(z.string().nullable())).describe('Annotation code of each estimate (null: none), same shape.'),
    moe_annotation: z.array(z.array(z.string().nullable())),
    annotations: z.record(z.string(), annotation.unwrap()).describe('Symbol and meaning of every annotation code used.'),
  })
  .describe('format=compact: the same cells as a columnar table.');
