// Output schemas of the catalog operations (the spec's VariableSummary, field for field, plus the
// detail, topic and dataset records this service chose; docs/api.md).
import { z } from 'zod';
import { datasetEnum, perDatasetSchema } from './dataset-schemas.js';

export const topicSchema = z.object({
  topic_key: z.string(),
  label: z.string(),
  depth: z.number().int().describe('0 = root'),
});

const yearsByDataset = perDatasetSchema(z.array(z.number().int()));

export const variableSummarySchema = z.object({
  api_name: z.string().describe('Stable, topic-prefixed identifier without a vintage year.'),
  census_code: z.string().nullable(),
  label: z.string(),
  unit: z.string().describe('One of: count, dollar, percent, year.'),
  topic: topicSchema.nullable(),
  display_format: z.string().nullable(),
  matched_census_codes: z
    .array(z.object({ code: z.string(), vintages: z.array(z.number().int()) }))
    .nullable()
    .optional()
    .describe('Present only when the search matched a census code.'),
});

const yearsByDatasetSchema = perDatasetSchema(z.array(z.number().int()));

/** A search result: a catalog variable, or a published census code the search named by code. */
export const variableSearchItemSchema = variableSummarySchema.extend({
  kind: z
    .enum(['catalog', 'census_code'])
    .describe(
      '`catalog`: a curated variable (api_name). `census_code`: a code as the Bureau published it, found by its code; pass it in `variables` as is.',
    ),
  unit: z
    .string()
    .nullable()
    .describe('One of: count, dollar, percent, year. For census codes inferred from the table title where certain, else null.'),
  table_id: z.string().optional().describe('census_code results: the Detailed Table.'),
  table_title: z.string().nullable().optional().describe('census_code results: the latest title of the table.'),
  availability: yearsByDatasetSchema
    .optional()
    .describe('census_code results: vintages in which the Bureau published the code, per dataset.'),
});

export const tableSummarySchema = z.object({
  table_id: z.string(),
  title: z.string().nullable().describe('Latest published title.'),
  universe: z.string().nullable(),
  vintages: yearsByDatasetSchema.describe('Vintages in which the Bureau published the table, per dataset.'),
});

export const tableDetailSchema = z.object({
  table_id: z.string(),
  title: z.string().nullable().describe('Title in this dataset and vintage.'),
  universe: z.string().nullable(),
  dataset: datasetEnum(),
  vintage: z.number().int(),
  columns: z.array(
    z.object({
      code: z.string().describe('Estimate code (the MOE is …M).'),
      label: z.string().nullable(),
      indent: z.number().int().nullable(),
    }),
  ),
  published: yearsByDatasetSchema,
  loaded: perDatasetSchema(z.record(z.string(), z.array(z.number().int()))).describe(
    'Per dataset and level, the vintages this service holds the values of this table for.',
  ),
  request: z.string().describe('The data request for the whole table.'),
});

export const variableDetailSchema = variableSummarySchema.omit({ matched_census_codes: true }).extend({
  availability: yearsByDataset.describe('Vintages in which the variable has values, per dataset.'),
  census_codes: z
    .array(z.object({ code: z.string(), vintages: z.array(z.number().int()) }))
    .describe('Every census code that maps to this variable, with the vintages it does.'),
  not_comparable: perDatasetSchema(z.array(z.object({ vintage: z.number().int(), reason: z.string() }))),
  formula: z.string().nullable().describe('For derived variables, how the value is computed from census codes.'),
  notes: z.string().nullable(),
});

export const topicWithCountSchema = topicSchema.extend({ variable_count: z.number().int().describe('Active variables in this topic.') });

export const datasetSchema = z.object({
  dataset: datasetEnum(),
  label: z.string(),
  vintages: z.array(z.number().int()),
  default_vintage: z
    .number()
    .int()
    .nullable()
    .describe(
      "The dataset's latest vintage: the default when this deployment holds no values for a request (otherwise the latest loaded vintage is used).",
    ),
  variable_count: z.number().int(),
  loaded_vintages: z
    .record(z.string(), z.array(z.number().int()))
    .describe('Per geography level, the vintages this deployment holds values for.'),
});
