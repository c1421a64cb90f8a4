// Response shapes of the geography endpoints (the spec leaves them open; these mirror the
// operations' GeographyView / GeographyDetail, see docs/geographies.md). The response serializer
// drops keys a schema does not list, so every field the operations return is listed here.
import { z } from 'zod';
import { GEO_TYPES } from '../domain/geo/keys.js';

export const geoTypeSchema = z.enum(GEO_TYPES);

export const geographySchema = z.object({
  geo_key: z.string().describe('`{type}:{fips}`, e.g. `county:48453`.'),
  type: z.string().describe('nation, state, county, metro, cd, tract or block_group.'),
  fips: z.string(),
  name: z.string(),
  parent_key: z.string().nullable().describe('Immediate parent; for metros the first principal state.'),
  state_keys: z.array(z.string()).describe('States the geography belongs to (metros: every state in the title).'),
  population: z.number().nullable(),
  population_source: z.string(),
  point: z
    .object({ lat: z.number(), lon: z.number(), kind: z.string(), source: z.string() })
    .nullable()
    .describe('Representative point: population_center, internal_point or derived_population_center.'),
  definition: z.string().describe('Boundary set, e.g. `tract-2020`, `cbsa-2023-07`, `cd118`.'),
  valid_from: z.number().int().describe('First ACS vintage using this definition.'),
  valid_to: z.number().int().nullable().describe('Last ACS vintage using it; null = current.'),
  metro: z
    .object({ kind: z.enum(['metro', 'micro']), short_name: z.string() })
    .optional()
    .describe('Metro rows only.'),
});

export const childGeographySchema = geographySchema.extend({
  afact: z.number().optional().describe("Tracts of a congressional district: the share of the tract's population in the district."),
});

export const geographyDetailSchema = geographySchema.extend({
  hierarchy: z
    .array(z.object({ geo_key: z.string(), type: z.string(), name: z.string() }))
    .describe('Parents, nearest first, ending with the nation.'),
  child_types: z.array(z.string()).describe('Child types accepted by /children for this geography.'),
  definitions: z
    .array(
      z.object({
        definition: z.string(),
        valid_from: z.number().int(),
        valid_to: z.number().int().nullable(),
        population: z.number().nullable(),
      }),
    )
    .describe('Every definition this key has had across ACS vintages.'),
  metro_key: z.string().nullable().optional().describe('Counties: the metro (July 2023 delineation) they belong to.'),
});
