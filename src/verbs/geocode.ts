// GET /v1/geocode (all tiers): `lat`+`lng` or `address` → containing geographies.
// Malformed input (non-numeric or out-of-range coordinates, neither/both of address and
// coordinates) is a 400 validation-error; a well-formed request that finds nothing (at sea,
// outside address coverage, unparseable address text) is a 200 with `status: "no_match"` and a reason.
import { z } from 'zod';
import type { AddressResult } from '../store/geocode/address-geocoder.js';
import type { GeocodeGeographies, PointGeocoder } from '../store/geocode/point-geocoder.js';
import type { GeographyStore } from '../store/geographies.js';
import { answerCacheOf, deepFreeze } from '../store/answer-cache.js';
import { AppError } from '../domain/errors.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';
import { geocodeDataSchema } from './geocode-schemas.js';

export const geocodeInput = z.object({
  lat: z.number().min(-90).max(90).optional().describe('Latitude in decimal degrees (WGS84), with lng.'),
  lng: z
    .number()
    .min(-180)
    .max(180)
    .optional()
    .describe('Longitude in decimal degrees (WGS84), with lat; negative in the western hemisphere.'),
  address: z
    .string()
    .max(300)
    .optional()
    .describe('A US street address, e.g. "1600 Pennsylvania Ave NW, Washington, DC 20500". Give either address or lat+lng.'),
});

export type GeocodeData =
  | { input: { lat: number; lng: number }; status: 'matched' | 'no_match'; reason: string | null; geographies: GeocodeGeographies }
  | ({ input: { address: string } } & AddressResult);

/**
 * Boundary files carry short names ("Hudson, New Jersey"); answers use the names every other
 * endpoint uses ("Hudson County, New Jersey") when the geography reference is loaded.
 */
function officialNames(geographies: GeographyStore | null | undefined, g: GeocodeGeographies): GeocodeGeographies {
  if (!geographies) return g;
  const out = { ...g };
  for (const [level, answer] of Object.entries(g) as [keyof GeocodeGeographies, GeocodeGeographies[keyof GeocodeGeographies]][]) {
    const key = (answer as { key: string | null }).key;
    const name = key ? geographies.latestName(key) : undefined;
    if (name) out[level] = { ...answer, name } as typeof answer;
  }
  return out;
}

/** Distinct coordinate pairs whose answers are kept per boundaries + geographies build (about 2 KB each). */
export const GEOCODE_CACHE_POINTS = 5_000;

/**
 * The named answer for a point. Boundaries and geographies never change once loaded, so the answer
 * for the same coordinates (the exact numbers: no rounding, so a point near an edge keeps its own
 * answer) is computed once per pair of stores; it is frozen, and each response is built around it.
 */
function locateNamed(point: PointGeocoder, geographies: GeographyStore | null | undefined, lat: number, lng: number): GeocodeGeographies {
  const cache = answerCacheOf<GeocodeGeographies>('geocode-point', GEOCODE_CACHE_POINTS, [point, geographies]);
  const key = `${lat},${lng}`;
  return cache.get(key) ?? cache.set(key, deepFreeze(officialNames(geographies, point.locate(lat, lng))));
}

export const geocode = defineVerb({
  name: 'geocode',
  input: geocodeInput,
  output: geocodeDataSchema,
  feature: 'geocode',
  cost: { kind: 'lookup' },
  run: async ({ ctx, input }): Promise<VerbResult<GeocodeData>> => {
    // Blank address text is no address (as an empty query parameter is).
    const q = { ...input, address: input.address?.trim() || undefined };
    const hasCoords = q.lat !== undefined || q.lng !== undefined;
    if (hasCoords && (q.lat === undefined || q.lng === undefined)) {
      throw new AppError('validation-error', 'lat and lng must be given together', {
        errors: [{ field: q.lat === undefined ? 'lat' : 'lng', message: 'required with the other coordinate', type: 'missing' }],
      });
    }
    if (hasCoords === (q.address !== undefined)) {
      throw new AppError('validation-error', 'give either address or lat and lng', {
        errors: [{ field: 'address', message: 'exactly one of address or lat/lng is required', type: 'missing' }],
      });
    }
    const { point, address } = await storeOf(ctx.stores, 'boundaries').geocoders();
    if (q.address !== undefined) {
      const r = address.geocode(q.address, point);
      return {
        data: { input: { address: q.address }, ...r, geographies: r.geographies && officialNames(ctx.stores.geographies, r.geographies) },
      };
    }
    const geographies = locateNamed(point, ctx.stores.geographies, q.lat!, q.lng!);
    const found = geographies.nation.key !== null || geographies.county.key !== null;
    return {
      data: {
        input: { lat: q.lat!, lng: q.lng! },
        status: found ? 'matched' : 'no_match',
        reason: found ? null : (geographies.nation as { reason: string }).reason,
        geographies,
      },
      meta: {},
    };
  },
});
