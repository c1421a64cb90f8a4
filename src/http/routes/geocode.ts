// GET /v1/geocode (all tiers): `lat` + `lng` (alias `lon`) or `address` → the containing
// geographies, in the envelope. Validation of the pair (both coordinates, exactly one form,
// ranges) is the operation's: 400 validation-error with `errors`. Docs: docs/geocoder.md.
import type { FastifyInstance } from 'fastify';
import { geocode } from '../../verbs/geocode.js';
import { defineVerbRoute } from '../verb-route.js';

export function geocodeRoutes(app: FastifyInstance) {
  defineVerbRoute(app, {
    url: '/v1/geocode',
    summary: 'Geographies containing a point or an address',
    description:
      'Give `lat` and `lng` (or `lon`), or `address` — exactly one form. Answers nation, state, county, metro, congressional district, tract (2010 definitions), and 2020 tract and block group (by polygon where the build holds the Bureau’s cartographic files for the state, else approximate: the nearest 2020 population center). A well-formed request that finds nothing is a 200 with `status: "no_match"` and a `reason`; malformed input is 400 `validation-error`. Address coverage is limited to the fixtures in docs/geocoder.md. All plans.',
    tags: ['geocode'],
    auth: 'api-key',
    needs: ['boundaries'],
    verb: geocode,
    rest: {
      lat: { describe: 'Latitude, WGS 84 decimal degrees (-90 to 90).' },
      lng: { describe: 'Longitude, WGS 84 decimal degrees (-180 to 180).', aliases: { lon: 'Alias of `lng`.' } },
      address: { describe: 'One-line US address, e.g. `1016-18 Willow Ave, Hoboken, NJ 07030`.' },
    },
  });
}
