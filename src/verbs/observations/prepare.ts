// Everything data, compare and timeseries do before touching values, in the order the spec needs:
// validate dataset/vintage/variables, apply plan gates, expand geographies (limit checked before
// any data is read), compute the cost and charge it. Only then does the engine run.
import { z } from 'zod';
import { DATASETS, checkVintage, latestVintage, parseDataset, type DatasetKey } from '../../domain/datasets.js';
import { splitGeoParam } from '../../domain/geo/specifier.js';
import { AppError } from '../../domain/errors.js';
import { requireFeature, type BoundaryLevel, type Plan } from '../../domain/plans.js';
import { callerPlan } from '../caller-plan.js';
import { costOf, type GeoTerm } from '../../domain/cost.js';
import type { CatalogStore, CatalogVariable } from '../../store/catalog.js';
import { catalogOf } from '../catalog.js';
import { ObservationStore } from '../../store/observations.js';
import { resolveGeographies, type ResolvedGeographies } from '../resolve-geographies.js';
import type { VerbContext } from '../context.js';
import { geographyStore } from '../../domain/geo/verb-support.js';
import type { GeographyStore } from '../../store/geographies.js';

/** Most variables one request may name (the Census Data API's own limit is 50 too). */
export const MAX_VARIABLES = 50;

const listParam = z.union([z.string(), z.array(z.string())]);

/** Input common to data, compare and timeseries (HTTP query and MCP arguments alike). */
export const observationInputShape = {
  variables: listParam.describe(
    'Variables by api_name or census code (e.g. core_median_household_income or B19013_001E), mixable; comma-separated or repeated; at most 50.',
  ),
  geo: listParam.describe(
    'Geographies: {type}:{fips} keys (state:06, county:48453), wildcards (county:48*) or names (tract:Travis County, TX); several separated by ";" or repeated.',
  ),
  dataset: z.string().optional().describe('acs5 (default, 5-year estimates) or acs1 (1-year estimates, areas of 65,000+ only).'),
};

export interface PreparedRequest {
  dataset: DatasetKey;
  /** The vintage requested, or the default chosen (see latestLoadedVintage). */
  vintage: number;
  /** Set when the default was an earlier vintage than the dataset's latest: said in meta.hint. */
  defaultNote: string | null;
  plan: Plan;
  variables: CatalogVariable[];
  geo: ResolvedGeographies;
  stores: { catalog: CatalogStore; observations: ObservationStore; geographies: GeographyStore };
}

export function observationsOf(ctx: VerbContext): ObservationStore {
  const s = ctx.stores.observations;
  if (!(s instanceof ObservationStore)) throw new AppError('dependency-unavailable', 'Census values are not available right now; retry with backoff.');
  return s;
}

/** Split `a,b` or repeated parameters into a clean, de-duplicated list. */
export function splitList(value: string | readonly string[] | undefined, sep: RegExp = /,/): string[] {
  const parts = (typeof value === 'string' ? [value] : value ?? []).flatMap((v) => v.split(sep)).map((s) => s.trim()).filter(Boolean);
  return [...new Set(parts)];
}

export function resolveVariables(catalog: CatalogStore, value: string | readonly string[] | undefined): CatalogVariable[] {
  const names = splitList(value);
  if (names.length === 0) {
    throw new AppError('unprocessable-request', 'variables is required: name at least one variable by api_name or census code.', {
      errors: [{ field: 'variables', message: 'Field required', type: 'missing' }],
    });
  }
  if (names.length > MAX_VARIABLES) {
    throw new AppError('validation-error', `At most ${MAX_VARIABLES} variables per request; got ${names.length}. Split the request.`, {
      errors: [{ field: 'variables', message: `at most ${MAX_VARIABLES} values`, type: 'too_long' }],
    });
  }
  const found: CatalogVariable[] = [];
  const unknown: string[] = [];
  for (const n of names) {
    const v = catalog.getVariable(n);
    if (v) {
      if (!found.includes(v)) found.push(v);
    } else unknown.push(n);
  }
  if (unknown.length > 0) {
    const suggestions = unknown.flatMap((u) => catalog.list({ search: u.replace(/_/g, ' '), offset: 0, limit: 3 }).items.map((s) => s.api_name));
    const yearHint = unknown.some((u) => /(19|20)\d\d/.test(u)) ? ' api_name values carry no vintage year; pass the year as vintage.' : '';
    throw new AppError('variable-not-found', `Unknown variable${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.${yearHint} Search the catalog at /v1/variables?search=…${suggestions.length ? `; closest: ${[...new Set(suggestions)].slice(0, 5).join(', ')}` : ''}.`, {
      extensions: { unknown_variables: unknown, suggestions: [...new Set(suggestions)].slice(0, 5) },
    });
  }
  return found;
}


export function geoTerms(geo: ResolvedGeographies): GeoTerm[] {
  return geo.expansions.map((e) => (e.via === 'key' || (e.count === 1 && e.via !== 'wildcard') ? { kind: 'single' } : { kind: 'expansion', count: e.count }));
}

/**
 * The vintage used when a request names none: the latest vintage for which this deployment holds
 * values of any requested variable at any requested level ("latest available"), else the
 * dataset's latest. With a complete build the two are the same; with a partial one (the embedded
 * default data) the answer is real figures rather than a page of nulls, and meta says so.
 */
function latestLoadedVintage(obs: ObservationStore, catalog: CatalogStore, dataset: DatasetKey, geo: string | readonly string[] | undefined, variables: CatalogVariable[]): number | undefined {
  const levels = [...new Set(splitGeoParam(geo).map((s) => s.slice(0, s.indexOf(':')).trim().toLowerCase()))];
  for (const v of [...DATASETS[dataset].vintages].reverse()) {
    for (const level of levels) {
      for (const variable of variables) {
        const r = catalog.resolveForVintage(variable, dataset, v);
        const codes = r.kind === 'direct' ? [r.code] : r.kind === 'derived' ? r.codes : [];
        if (codes.some((c) => obs.hasTable(dataset, v, level, c.slice(0, c.indexOf('_'))))) return v;
      }
    }
  }
  return undefined;
}

export async function prepare(
  ctx: VerbContext,
  input: { variables?: string | readonly string[]; geo?: string | readonly string[]; dataset?: string },
  vintage: { requested: number | undefined; defaultToLoaded: boolean },
): Promise<PreparedRequest> {
  const catalog = catalogOf(ctx);
  const observations = observationsOf(ctx);
  const geographies = geographyStore(ctx);
  const dataset = parseDataset(input.dataset);
  const variables = resolveVariables(catalog, input.variables);
  const plan = callerPlan(ctx);
  const latest = latestVintage(dataset);
  let chosen = vintage.requested;
  let defaultNote: string | null = null;
  if (chosen === undefined) {
    chosen = (vintage.defaultToLoaded ? latestLoadedVintage(observations, catalog, dataset, input.geo, variables) : undefined) ?? latest;
    if (chosen !== latest) {
      defaultNote = `No vintage was given: ${chosen} is the latest with values loaded in this deployment for these variables and geographies (the dataset's latest vintage is ${latest}).`;
    }
  }
  const geo = resolveGeographies(geographies, input.geo ?? [], {
    vintage: checkVintage(dataset, chosen),
    allowWildcard: plan.features.wildcards,
    allowBlockGroupWildcard: plan.features.blockGroupWildcards,
    maxExpansion: plan.limits.wildcardExpansionMax,
    plan: plan.id,
    dashboardUrl: ctx.config.DASHBOARD_URL,
  });
  return { dataset, plan, variables, geo, vintage: chosen, defaultNote, stores: { catalog, observations, geographies } };
}

/** Geometry follows boundary access: block-group shapes need Business, tract shapes Pro, … */
export function requireGeometryFeature(ctx: VerbContext, plan: Plan, levels: Iterable<string>): void {
  requireFeature(plan, { kind: 'include_geometry' }, ctx.config.DASHBOARD_URL);
  for (const level of new Set(levels)) {
    requireFeature(plan, { kind: 'include_geometry', level: level as BoundaryLevel }, ctx.config.DASHBOARD_URL);
  }
}

export async function charge(ctx: VerbContext, plan: Plan, shape: Parameters<typeof costOf>[1]): Promise<number> {
  const units = costOf(plan, shape);
  await ctx.charge?.(units);
  return units;
}
