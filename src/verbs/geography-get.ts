// GET /v1/geographies/{geo_key} — one geography with its parent hierarchy, the definitions it has
// had across ACS vintages, and (counties) its metro.
import { z } from 'zod';
import { AppError, quoteInput } from '../domain/errors.js';
import { CHILD_TYPES, FIPS_SHAPE } from '../domain/geo/keys.js';
import { parseSpecifier } from '../domain/geo/specifier.js';
import { LATEST_VINTAGE, vintageField, viewOf, type GeographyView } from './geo-support.js';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';
import { geographyDetailSchema } from './geography-schemas.js';

export const geographyGetInput = z.object({
  geo_key: z.string().trim().min(1).max(300).describe('`{type}:{fips}`, e.g. `state:06`, `county:48453`.'),
  vintage: vintageField,
});
export type GeographyGetInput = z.input<typeof geographyGetInput>;

export interface GeographyDetail extends GeographyView {
  /** Parents, nearest first, ending with the nation. */
  hierarchy: { geo_key: string; type: string; name: string }[];
  child_types: string[];
  /** Every definition of this key (tract 2010 vs 2020, retired counties…). */
  definitions: { definition: string; valid_from: number; valid_to: number | null; population: number | null }[];
  /** Counties: the metro (July 2023 delineation) they belong to. */
  metro_key?: string | null;
}

export const geographyGet = defineVerb({
  name: 'geography-get',
  input: geographyGetInput,
  output: geographyDetailSchema,
  cost: { kind: 'lookup' },
  run: async ({ ctx, input: q }): Promise<VerbResult<GeographyDetail>> => {
    const store = storeOf(ctx.stores, 'geographies');
    const spec = parseSpecifier(q.geo_key);
    if (spec.kind !== 'key') {
      throw new AppError(
        'invalid-geo-format',
        `${quoteInput(q.geo_key)} is not a single geography key; use {type}:{fips}, e.g. county:48453. Wildcards and names work in data requests and in the children and list operations.`,
      );
    }
    const key = `${spec.type}:${spec.fips}`;
    const vintage = q.vintage ?? LATEST_VINTAGE;
    const rec = store.get(key, vintage) ?? (q.vintage === undefined ? store.get(key) : null);
    const versions = store.versions(key);
    if (!rec) {
      throw new AppError(
        'geography-not-found',
        versions.length
          ? `${key} (${versions[0]!.name}) exists in ACS ${versions.map((v) => `${v.valid_from}–${v.valid_to ?? 'present'}`).join(', ')}, not in ${vintage}.`
          : `${key} matches no geography: a ${spec.type} FIPS code is ${FIPS_SHAPE[spec.type]}.`,
      );
    }
    const detail: GeographyDetail = {
      ...viewOf(rec),
      hierarchy: store.hierarchy(key, rec.valid_to ?? vintage).map((p) => ({ geo_key: p.key, type: p.type, name: p.name })),
      child_types: CHILD_TYPES[rec.type],
      definitions: versions.map((v) => ({
        definition: v.definition,
        valid_from: v.valid_from,
        valid_to: v.valid_to,
        population: v.population,
      })),
    };
    if (rec.type === 'county') {
      // July 2023 membership: named only when that metro exists in the vintage asked about.
      const m = store.crosswalks.countyMetro.get(rec.fips);
      detail.metro_key = m && store.get(`metro:${m}`, Math.min(vintage, rec.valid_to ?? vintage)) ? `metro:${m}` : null;
    }
    return { data: detail, meta: { vintage: Math.min(vintage, rec.valid_to ?? vintage) } };
  },
});
