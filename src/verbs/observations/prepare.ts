// Everything data, compare and timeseries do before touching values, in the order the spec needs:
// validate dataset/vintage/variables, apply plan gates, expand geographies (limit checked before
// any data is read), compute the cost and charge it. Only then does the engine run.
import { z } from 'zod';
import { datasetSpec, checkVintage, latestVintage, parseDataset, type DatasetKey } from '../../domain/datasets.js';
import { geoMayExpand, parseGeoParam, type ParsedGeoParam } from '../../domain/geo/geo-param.js';
import type { GeoSpecifier } from '../../domain/geo/specifier.js';
import { requireFeature, type BoundaryLevel, type Plan } from '../../domain/plans.js';
import type { GeoTerm } from '../../domain/cost.js';
import type { CatalogStore } from '../../store/catalog.js';
import { CensusTableStore } from '../../store/census-tables.js';
import { ObservationStore } from '../../store/observations.js';
import { definitionOf, resolveSpecifiers, type ResolvedGeographies } from '../resolve-geographies.js';
import type { VerbContext } from '../../context/verb-context.js';
import type { GeographyStore } from '../../store/geographies.js';

import {
  bindVariables,
  MAX_VARIABLES,
  parseVariableNames,
  tablesNamed,
  type ParsedVariables,
  type RequestedVariable,
} from './variables.js';
import { storeOf, storeIfOpen } from '../../context/stores.js';
import { geoTermsOf } from './geo-terms.js';
import { datasetParamDescription } from '../dataset-schemas.js';
import { readSavedRegions, regionGeoTerms, resolveRegions, type ResolvedRegion, type SavedRegionLookup } from './resolve-regions.js';
import { dollarsRequest, refuseCompactDollars, type DollarsRequest } from './dollars.js';
import type { VerbFormat } from '../lifecycle/verb-spec.js';

const listParam = z.union([z.string(), z.array(z.string())]);

/** Input common to data, compare and timeseries (HTTP query and MCP arguments alike). */
export const observationInputShape = {
  variables: listParam.describe(
    `Variables by catalog api_name (core_median_household_income), by census code as published in that vintage (B19013_001E, B07009_025E) or a whole table (B19013*), mixable; comma-separated or repeated; at most ${MAX_VARIABLES} items.`,
  ),
  geo: listParam.describe(
    'Geographies: {type}:{fips} keys (state:06, county:48453), wildcards (county:48*) or names (tract:Travis County, TX); several separated by ";" or repeated. A custom region sums geographies of one level into one row: region(county:06001,county:06013), or region:<name> for a region saved to your account (docs/api.md "Custom regions"). region(state:*) has 52 members, Puerto Rico among them, so it is not the nation (nation:1 is the 50 states and DC): such an answer says so in meta.regions[].caveats (includes_puerto_rico).',
  ),
  dataset: z.string().optional().describe(`${datasetParamDescription()}.`),
};

export interface PreparedRequest {
  dataset: DatasetKey;
  /** The vintage requested, or the default chosen (see latestLoadedVintage). */
  vintage: number;
  /** Set when the default was an earlier vintage than the dataset's latest: said in meta.hint. */
  defaultNote: string | null;
  plan: Plan;
  variables: RequestedVariable[];
  /** The vintages the variables were checked against (one, or a timeseries range). */
  vintages: number[];
  geo: ResolvedGeographies;
  /** Custom regions (`region(…)`, `region:<name>`), answered after `geo`'s geographies. */
  regions: ResolvedRegion[];
  stores: { catalog: CatalogStore; observations: ObservationStore; geographies: GeographyStore; tables: CensusTableStore | undefined };
}

/** What the request's geographies cost: the listed ones and every region's members (regions.ts). */
export function geoTerms(geo: ResolvedGeographies, regions: readonly ResolvedRegion[] = []): GeoTerm[] {
  return [...geoTermsOf(geo), ...regionGeoTerms(regions)];
}

/**
 * The vintage used when a request names none: the latest vintage for which this deployment holds
 * values of any requested variable at any requested level ("latest available"), else the
 * dataset's latest. With a complete build the two are the same; with a partial one (the embedded
 * default data) the answer is real figures rather than a page of nulls, and meta says so.
 */
function latestLoadedVintage(
  obs: ObservationStore,
  catalog: CatalogStore,
  dataset: DatasetKey,
  geo: readonly GeoSpecifier[],
  parsed: ParsedVariables,
): number | undefined {
  const levels = [...new Set(geo.map((s) => s.type))];
  const named = tablesNamed(parsed);
  for (const v of [...datasetSpec(dataset).vintages].reverse()) {
    for (const level of levels) {
      if (named.tables.some((t) => obs.hasTable(dataset, v, level, t))) return v;
      for (const variable of named.catalog) {
        const r = catalog.resolveForVintage(variable, dataset, v);
        const codes = r.kind === 'direct' ? [r.code] : r.kind === 'derived' ? r.codes : [];
        if (codes.some((c) => obs.hasTable(dataset, v, level, c.slice(0, c.indexOf('_'))))) return v;
      }
    }
  }
  return undefined;
}

/** What data, compare and timeseries read after the parse phase: `geo`, `dataset` and `dollars` read once. */
export interface NormalizedObservationInput {
  geo: ParsedGeoParam;
  dataset: DatasetKey;
  /** dollars= checked against the price index; null when not asked for. */
  dollars: DollarsRequest | null;
}

type RawObservationFields = { geo: string | readonly string[]; dataset?: string; dollars?: number };

/**
 * The parse phase's reading of an observation request (VerbSpec.normalize): every 4xx the input
 * alone decides, in the order the run used to find them (dollars=, then dataset, then geo), so
 * none of them waits in the heavy queue or is charged. The text of `geo` is not kept: everything
 * after this (the heavy rule, gates, resolution, cost, the answer cache's key) reads specifiers.
 */
export function normalizeObservationInput<T extends RawObservationFields>(
  input: T,
  { format }: { format: VerbFormat },
): Omit<T, keyof RawObservationFields> & NormalizedObservationInput {
  const dollars = dollarsRequest(input.dollars);
  if (dollars && format === 'compact') refuseCompactDollars();
  const dataset = parseDataset(input.dataset);
  return { ...input, dollars, dataset, geo: parseGeoParam(input.geo) };
}

/** The heavy-queue rule of observation requests: a wildcard or a name may expand to hundreds of geographies. */
export const mayExpand = (input: { geo: ParsedGeoParam }): boolean => geoMayExpand(input.geo);

export async function prepare(
  ctx: VerbContext,
  plan: Plan,
  input: { variables?: string | readonly string[]; geo: ParsedGeoParam; dataset: DatasetKey },
  vintage: {
    requested: number | undefined;
    defaultToLoaded: boolean;
    range?: (chosen: number) => number[];
    /** `saved` reads the caller's saved regions (`geo=region:<name>`); without it they are not found. */
    regions?: { saved?: SavedRegionLookup };
  },
): Promise<PreparedRequest> {
  const catalog = storeOf(ctx.stores, 'catalog');
  const observations = storeOf(ctx.stores, 'observations');
  const geographies = storeOf(ctx.stores, 'geographies');
  const tables = storeIfOpen(ctx.stores, 'censusTables');
  const dataset = input.dataset;
  const geoParam = input.geo;
  const rest = geoParam.specifiers;
  const regionSpecs = await readSavedRegions(geoParam.regions, vintage.regions?.saved);
  // The levels the default vintage is looked for at: the listed geographies' and the regions' members'.
  const levelsOf = [...rest, ...regionSpecs.flatMap((r) => r.members)];
  const parsed = parseVariableNames(catalog, tables, observations, input.variables);
  const latest = latestVintage(dataset);
  let chosen = vintage.requested;
  let defaultNote: string | null = null;
  if (chosen === undefined) {
    chosen = (vintage.defaultToLoaded ? latestLoadedVintage(observations, catalog, dataset, levelsOf, parsed) : undefined) ?? latest;
    if (chosen !== latest) {
      defaultNote = `No vintage was given: ${chosen} is the latest with values in this service for these variables and geographies (the dataset's latest vintage is ${latest}).`;
    }
  }
  const definitionVintage = checkVintage(dataset, chosen, observations.partitions);
  const vintages = vintage.range ? vintage.range(definitionVintage) : [definitionVintage];
  const variables = bindVariables(parsed, { tables, observations, dataset, vintages });
  const gates = { vintage: definitionVintage, plan, dashboardUrl: ctx.config.DASHBOARD_URL };
  const geo =
    rest.length > 0 || regionSpecs.length === 0
      ? resolveSpecifiers(geographies, rest, gates)
      : {
          geographies: [],
          expansions: [],
          definitionVintage: definitionOf(definitionVintage, geographies),
          notes: [definitionOf(definitionVintage, geographies).description],
        };
  const regions = await resolveRegions(geographies, regionSpecs, gates, vintage.regions?.saved);
  return {
    dataset,
    plan,
    variables,
    vintages,
    geo,
    regions,
    vintage: chosen,
    defaultNote,
    stores: { catalog, observations, geographies, tables },
  };
}

/** Geometry follows boundary access: block-group shapes need Business, tract shapes Pro, … */
export function requireGeometryFeature(ctx: VerbContext, plan: Plan, levels: Iterable<string>): void {
  requireFeature(plan, { kind: 'include_geometry' }, ctx.config.DASHBOARD_URL);
  for (const level of new Set(levels)) {
    requireFeature(plan, { kind: 'include_geometry', level: level as BoundaryLevel }, ctx.config.DASHBOARD_URL);
  }
}
