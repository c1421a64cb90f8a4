// GET /v1/geocode (all tiers): `lat` + `lng` (alias `lon`) or `address` → the containing
// geographies, in the envelope. Validation of the pair (both coordinates, exactly one form,
// ranges) is the operation's: 400 validation-error with `errors`. Docs: docs/geocoder.md.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { geocode } from '../../verbs/geocode.js';
import { defineRoute, queryString } from '../route-helpers.js';

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
  .describe('One answer per level; tract_2020 and block_group are approximate (nearest 2020 population center).');

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

export function geocodeRoutes(app: FastifyInstance) {
  defineRoute(app, {
    url: '/v1/geocode',
    summary: 'Geographies containing a point or an address',
    description:
      'Give `lat` and `lng` (or `lon`), or `address` — exactly one form. Answers nation, state, county, metro, congressional district, tract (2010 definitions), and approximate 2020 tract and block group. A well-formed request that finds nothing is a 200 with `status: "no_match"` and a `reason`; malformed input is 400 `validation-error`. Address coverage is limited to the fixtures in docs/geocoder.md. All plans.',
    tags: ['geocode'],
    auth: 'api-key',
    needs: ['boundaries'],
    feature: 'geocode',
    querystring: z.object({
      lat: queryString('Latitude, WGS 84 decimal degrees (-90 to 90).').optional(),
      lng: queryString('Longitude, WGS 84 decimal degrees (-180 to 180).').optional(),
      lon: queryString('Alias of `lng`.').optional(),
      address: queryString('One-line US address, e.g. `1016-18 Willow Ave, Hoboken, NJ 07030`.').pipe(z.string().max(300)).optional(),
    }),
    data: geocodeDataSchema,
    handler: ({ ctx, query }) => {
      if (query.lng !== undefined && query.lon !== undefined && query.lng !== query.lon) {
        throw new AppError('validation-error', 'lng and lon are the same parameter; give one of them.', {
          errors: [{ field: 'query → lon', message: 'conflicts with lng', type: 'value_error' }],
        });
      }
      return geocode({ ctx, input: { lat: query.lat, lng: query.lng ?? query.lon, address: query.address } });
    },
  });
}
