// Shared by the saved-region operations (/v1/account/regions): the name and members schemas, the
// payload, and how members are checked when a region is saved.
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { DEFAULT_DATASET, latestVintage } from '../domain/datasets.js';
import { planOf } from '../domain/plans.js';
import { parseGeoParam } from '../domain/geo/geo-param.js';
import { memberKeys, REGION_NAME, REGION_NAME_HELP, type RegionMembers } from '../domain/geo/region-specifier.js';
import type { RegionRow } from '../store/accounts/regions-repo.js';
import { storeOf } from '../context/stores.js';
import type { VerbContext } from '../context/verb-context.js';
import type { AccountRow } from '../store/accounts/accounts-repo.js';
import { resolveRegions } from './observations/resolve-regions.js';
import { iso } from './account-common.js';

/** Saved regions per account. */
export const MAX_SAVED_REGIONS = 100;

export const regionName = z
  .string()
  .trim()
  .regex(REGION_NAME, `A region name is ${REGION_NAME_HELP}`)
  .describe(`Used as geo=region:<name>; ${REGION_NAME_HELP}; unique in your account.`);

export const regionMembers = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1).max(10_000)])
  .describe(
    'The members: geography specifiers of one level as in geo (county:06001, tract:06001*, county:Alameda County, CA), separated by ";" or given as a list. Names and wildcards are resolved once, when the region is saved.',
  );

export interface RegionPayload {
  name: string;
  geo: string;
  level: string;
  member_count: number;
  members: string[];
  created_at: string;
  updated_at: string;
}

export function regionPayload(r: RegionRow): RegionPayload {
  const members = memberKeys(r.members);
  return {
    name: r.name,
    geo: `region:${r.name}`,
    level: r.members.level,
    member_count: members.length,
    members,
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  };
}

/**
 * The members as saved: read with the `geo` parser (the one reader of region syntax, so a region
 * among them is recognised exactly as in a request), resolved for the latest 5-year vintage with
 * the account's plan (its wildcard gates and expansion limit), of one level, sorted and without
 * duplicates.
 */
export async function resolveMembers(ctx: VerbContext, account: AccountRow, members: string | string[]): Promise<RegionMembers> {
  const geographies = storeOf(ctx.stores, 'geographies');
  const parsed = parseGeoParam(members);
  if (parsed.regions.length > 0) {
    throw new AppError('unprocessable-request', 'A saved region lists geographies, not other regions.', {
      errors: [{ field: 'body → members', message: 'A region cannot contain a region', type: 'value_error' }],
    });
  }
  const [region] = await resolveRegions(geographies, [{ kind: 'inline', raw: 'members', members: parsed.specifiers }], {
    vintage: latestVintage(DEFAULT_DATASET),
    plan: planOf(account.plan),
    dashboardUrl: ctx.config.DASHBOARD_URL,
  });
  return { level: region!.level, fips: [...new Set(region!.members.map((m) => m.fips))] };
}
