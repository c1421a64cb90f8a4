// GET /v1/coverage and the MCP tool get_coverage: in which surveys and years one place has values
// for some variables, without the values. One row per dataset and vintage the registry publishes,
// counting the asked variables whose estimate is non-null there. Priced as a lookup (1 unit): the
// place profile asks it to choose its survey and year, which as a timeseries of the 36 headline
// figures cost 144 units a dataset on a Free key.
import { z } from 'zod';
import { AppError, quoteInput } from '../domain/errors.js';
import { datasetKeys, datasetSpec, latestVintage, parseDataset, type DatasetKey } from '../domain/datasets.js';
import { parseGeoParam } from '../domain/geo/geo-param.js';
import { geoInputError, type GeoSpecifier } from '../domain/geo/specifier.js';
import type { Plan } from '../domain/plans.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';
import { storeIfOpen, storeOf } from '../context/stores.js';
import { resolvePlaceName } from '../store/geographies/resolve-name.js';
import type { GeographyRecord } from '../store/geographies.js';
import { defineVerb } from './define-verb.js';
import { costTerms } from './describe-plans.js';
import type { RequestShape } from '../domain/cost.js';
import { resolveSpecifiers, type ResolvedGeographies } from './resolve-geographies.js';
import { computeGrid } from './observations/engine.js';
import { SYNTHETIC_NOTE } from './observations/meta.js';
import { observationInputShape } from './observations/prepare.js';
import { bindVariables, parseVariableNames, type ParsedVariables, type RequestedVariable } from './observations/variables.js';
import { MAX_POINTS } from './get-timeseries.js';

export const coverageInput = z.object({
  variables: observationInputShape.variables,
  geo: z
    .union([z.string(), z.array(z.string())])
    .describe(
      'ONE geography: a key {type}:{fips} (state:48, county:48453, metro:12420, tract:48453001100) or a name of that level (county:Travis County, TX). Wildcards, several places and regions are refused (400).',
    ),
  dataset: z
    .string()
    .optional()
    .describe(`One dataset (${datasetKeys().join(' or ')}); absent: every dataset, in the registry's order (${datasetKeys().join(', ')}).`),
});

export const coverageRowSchema = z.object({
  dataset: z.string().describe('Dataset key (acs5, acs1).'),
  vintage: z.number().int().positive().describe('Survey year: every vintage the dataset publishes, ascending.'),
  with_values: z
    .number()
    .int()
    .nonnegative()
    .describe('How many of the asked variables have a non-null estimate for the place in this dataset and vintage.'),
  variables: z
    .number()
    .int()
    .nonnegative()
    .describe(
      'How many variables were counted: the distinct variables asked (a whole table, B19013*, as its codes published in this dataset).',
    ),
  loaded: z
    .boolean()
    .describe("Whether this deployment holds values at the place's level in this vintage (as /v1/datasets' loaded_vintages)."),
});

export type CoverageRow = z.infer<typeof coverageRowSchema>;

/** Its price: a lookup, whatever the number of variables and years (the operation's `cost`). */
const COVERAGE_COST: RequestShape = { kind: 'lookup' };

/** The price in words, for every transport's description: "Costs 1 quota unit, whatever …". */
export function coverageCostTerms(): string {
  return `Costs ${costTerms(COVERAGE_COST)}, whatever the number of variables and years.`;
}

/** What the count is, said in every answer (meta.counted) and in the route's description. */
export const COVERAGE_COUNTED =
  "with_values counts the asked variables whose estimate is non-null for this place in each dataset and vintage (a null estimate, whatever its reason, is not counted); loaded says whether this deployment holds values at the place's level in that vintage; no value is returned.";

interface NormalizedCoverageInput {
  variables: string | readonly string[];
  datasets: DatasetKey[];
  place: GeoSpecifier;
}

function notOnePlace(raw: string, why: string): AppError {
  return geoInputError(
    'validation-error',
    raw,
    (quoted) => `"${quoted}" ${why}: coverage is asked for ONE place, e.g. state:48 or county:48453.`,
    {
      errors: [{ field: 'geo', message: 'one geography', type: 'value_error' }],
    },
  );
}

/** The one place of `geo`, refused in the parse phase when it is several, a wildcard or a region. */
function onePlace(geo: string | readonly string[]): GeoSpecifier {
  const raw = typeof geo === 'string' ? geo : geo.join(';');
  const parsed = parseGeoParam(geo);
  if (parsed.regions.length) throw notOnePlace(raw, 'is a custom region, which is several places');
  if (parsed.specifiers.length === 0) {
    throw new AppError('validation-error', 'geo is required: give one geography such as state:48.', {
      errors: [{ field: 'geo', message: 'Field required', type: 'missing' }],
    });
  }
  if (parsed.specifiers.length > 1) throw notOnePlace(raw, `names ${parsed.specifiers.length} places`);
  const place = parsed.specifiers[0]!;
  if (place.kind === 'wildcard') throw notOnePlace(raw, 'is a wildcard, which stands for many places');
  return place;
}

/**
 * A name is one place only when it names the level itself (county:Travis County, TX); one naming a
 * larger place (county:Texas) stands for its members. Refused as such here, before the resolver,
 * whose plan gate would otherwise answer a Free key that it needs a higher plan.
 */
function checkNameIsOnePlace(ctx: VerbContext, place: GeoSpecifier, vintage: number): void {
  if (place.kind !== 'name') return;
  const { target } = resolvePlaceName(storeOf(ctx.stores, 'geographies'), place.name, vintage, place.type);
  if (target.type !== place.type) {
    throw notOnePlace(place.raw, `names ${target.label}, which holds many ${place.type} geographies`);
  }
}

/**
 * The variables of the request as `dataset` publishes them over all its vintages. A name the
 * Bureau published elsewhere only (a code of acs5 alone, asked with every dataset) has no values
 * here: it is counted among `variables`, never among `with_values`, and named in meta.
 */
function bindIn(
  parsed: ParsedVariables,
  ctx: Parameters<typeof bindVariables>[1],
): { variables: RequestedVariable[]; unpublished: string[] } {
  const kept: ParsedVariables['items'] = [];
  const unpublished: string[] = [];
  for (const item of parsed.items) {
    try {
      bindVariables({ items: [item] }, ctx);
      kept.push(item);
    } catch (e) {
      if (!(e instanceof AppError) || e.code !== 'variable-not-found' || item.kind === 'catalog') throw e;
      unpublished.push(quoteInput(item.raw));
    }
  }
  // Once more over what is published, for the duplicates and the expanded-tables limit of every request.
  return { variables: kept.length ? bindVariables({ items: kept }, ctx) : [], unpublished: [...new Set(unpublished)] };
}

interface DatasetCoverage {
  dataset: DatasetKey;
  vintages: number[];
  variables: RequestedVariable[];
  unpublished: string[];
  geo: ResolvedGeographies;
  place: GeographyRecord;
}

async function resolveCoverage(ctx: VerbContext, plan: Plan, input: NormalizedCoverageInput): Promise<DatasetCoverage[]> {
  const catalog = storeOf(ctx.stores, 'catalog');
  const observations = storeOf(ctx.stores, 'observations');
  const geographies = storeOf(ctx.stores, 'geographies');
  const tables = storeIfOpen(ctx.stores, 'censusTables');
  // 400 for more than 50, 404 for a name published in no dataset: as /v1/data.
  const parsed = parseVariableNames(catalog, tables, observations, input.variables);
  checkNameIsOnePlace(ctx, input.place, latestVintage(input.datasets[0]!));
  return input.datasets.map((dataset) => {
    const vintages = datasetSpec(dataset).vintages;
    const { variables, unpublished } = bindIn(parsed, { tables, observations, dataset, vintages });
    // The place as defined in the dataset's latest vintage, as a timeseries ending there resolves it.
    const geo = resolveSpecifiers(geographies, [input.place], {
      vintage: latestVintage(dataset),
      plan,
      dashboardUrl: ctx.config.DASHBOARD_URL,
    });
    if (geo.geographies.length !== 1) throw notOnePlace(input.place.raw, `stands for ${geo.geographies.length} places`);
    return { dataset, vintages, variables, unpublished, geo, place: geo.geographies[0]! };
  });
}

/** Vintages in ranges of a timeseries' length: each range is one read of the place's stored cells. */
function ranges(vintages: readonly number[]): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < vintages.length; i += MAX_POINTS) out.push(vintages.slice(i, i + MAX_POINTS));
  return out;
}

export const getCoverage = defineVerb({
  name: 'get-coverage',
  input: coverageInput,
  output: z.array(coverageRowSchema),
  feature: 'data',
  normalize: (input): NormalizedCoverageInput => ({
    variables: input.variables,
    // dataset first, as the other data operations read it, then the place.
    datasets: input.dataset === undefined || input.dataset.trim() === '' ? datasetKeys() : [parseDataset(input.dataset)],
    place: onePlace(input.geo),
  }),
  resolve: ({ ctx, input, plan }) => resolveCoverage(ctx, plan, input),
  cost: COVERAGE_COST,
  run: async ({ ctx, resolved }): Promise<VerbResult<CoverageRow[]>> => {
    const stores = {
      observations: storeOf(ctx.stores, 'observations'),
      geographies: storeOf(ctx.stores, 'geographies'),
      tables: storeIfOpen(ctx.stores, 'censusTables'),
    };
    const catalog = storeOf(ctx.stores, 'catalog');
    const rows: CoverageRow[] = [];
    for (const d of resolved) {
      const counted = d.variables.length + d.unpublished.length;
      const loaded = new Set(stores.observations.loadedVintages(d.dataset, d.place.type));
      // Every vintage is counted by the engine (none defaults to 0), unless nothing is asked of this dataset.
      const withValues = new Map<number, number>(d.variables.length ? [] : d.vintages.map((v) => [v, 0]));
      if (d.variables.length) {
        for (const vintages of ranges(d.vintages)) {
          const grid = await computeGrid(stores, catalog, { dataset: d.dataset, vintages, variables: d.variables, geographies: [d.place] });
          for (const s of grid.slices) withValues.set(s.vintage, s.estimate.filter((e) => e !== null).length);
        }
      }
      for (const vintage of d.vintages) {
        const count = withValues.get(vintage);
        if (count === undefined) throw new Error(`coverage: ${d.dataset} ${vintage} was not counted`);
        rows.push({ dataset: d.dataset, vintage, with_values: count, variables: counted, loaded: loaded.has(vintage) });
      }
    }
    const first = resolved[0]!;
    const notes = [...new Set(resolved.flatMap((d) => d.geo.notes.slice(1)))];
    const unpublished = Object.fromEntries(resolved.filter((d) => d.unpublished.length).map((d) => [d.dataset, d.unpublished]));
    const synthetic = stores.observations.synthetic;
    return {
      data: rows,
      meta: {
        source: null,
        geo_key: first.place.key,
        name: first.place.name,
        geo_type: first.place.type,
        datasets: resolved.map((d) => d.dataset),
        counted: COVERAGE_COUNTED,
        variable_count: Math.max(...resolved.map((d) => d.variables.length + d.unpublished.length)),
        geography_count: 1,
        total_count: rows.length,
        hint: synthetic ? SYNTHETIC_NOTE : null,
        geography_definitions: first.geo.definitionVintage.description,
        ...(notes.length ? { notes } : {}),
        ...(Object.keys(unpublished).length ? { not_published: unpublished } : {}),
        ...(synthetic ? { synthetic: true } : {}),
      },
    };
  },
});
