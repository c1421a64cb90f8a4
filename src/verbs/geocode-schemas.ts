// Output schema of the geocode operation (docs/geocoder.md): one answer per level, and for
// addresses the parsed address and the candidates.
import { z } from 'zod';

const levelAnswer = z
  .object({
    key: z.string().nullable().describe('Geo key, or null when the point is in no geography of this level.'),
    name: z.string().optional(),
    method: z.enum(['polygon', 'from_county', 'from_state', 'at_large_state', 'nearest_population_center']).optional(),
    boundary_vintage: z.string().optional(),
    definition_vintage: z.string().optional(),
    source: z.string().optional(),
    approximate: z.boolean().optional().describe('True when the answer may be wrong near a boundary (coarse shapes, nearest point).'),
    reason: z.string().optional().describe('Why the level has no answer.'),
  })
  .describe('A match ({key, name, method, boundary_vintage, source, approximate}) or a miss ({key: null, reason}).');

const geographies = z
  .object({
    nation: levelAnswer,
    state: levelAnswer,
    county: levelAnswer,
    metro: levelAnswer,
    cd: levelAnswer,
    tract: levelAnswer,
    tract_2020: levelAnswer,
    block_group: levelAnswer,
  })
  .describe(
    'One answer per level; tract_2020 and block_group are polygons where the build holds the cartographic files, else approximate (nearest 2020 population center).',
  );

const candidate = z.object({
  matched_address: z.string(),
  coordinates: z.object({ lat: z.number(), lng: z.number() }),
  quality: z.enum(['exact', 'range_point', 'interpolated']),
  source: z.string(),
  zip: z.string().nullable(),
  zip_source: z.enum(['source', 'input_checked']).nullable(),
  county: z.string().nullable(),
  state: z.string().nullable(),
});

const parsedAddress = z.object({
  number: z.object({ label: z.string(), lo: z.number(), hi: z.number() }),
  street: z.string(),
  street_key: z.string().describe('USPS Publication 28 form used for matching.'),
  unit: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  zip: z.string().nullable(),
});

export const geocodeDataSchema = z.object({
  input: z
    .object({ lat: z.number().optional(), lng: z.number().optional(), address: z.string().optional() })
    .describe('The request as understood.'),
  status: z.enum(['matched', 'ambiguous', 'no_match']),
  reason: z
    .string()
    .nullable()
    .describe('Set whenever something was not found (at sea, outside the address coverage, unparseable text, ZIP mismatch).'),
  geographies: geographies.nullable(),
  parsed: parsedAddress.nullable().optional().describe('Addresses: the parsed address.'),
  match: candidate.nullable().optional().describe('Addresses: the best candidate when matched.'),
  candidates: z.array(candidate).optional().describe('Addresses: every candidate, the best first.'),
});
