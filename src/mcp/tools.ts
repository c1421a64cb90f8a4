// The eight MCP tools. Each is a thin binding of one verb (the same call the REST route makes):
// an input schema built from the verb's own zod shape, the verb call, and the text rendering.
// Gates, expansion limits and cost live in the verbs; nothing here decides a business rule.
import { z } from 'zod';
import { costOf } from '../domain/cost.js';
import { listDatasets, listTopics, searchVariables } from '../verbs/catalog.js';
import { compareGeographies, compareInput } from '../verbs/compare-geographies.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';
import { geocode } from '../verbs/geocode.js';
import { geographiesList, geographiesListInput } from '../verbs/geographies-list.js';
import { getData, getDataInput } from '../verbs/get-data.js';
import { getTimeseries, timeseriesInput } from '../verbs/get-timeseries.js';
import {
  renderCompare,
  renderData,
  renderDatasets,
  renderGeocode,
  renderGeographies,
  renderTimeseries,
  renderTopics,
  renderVariables,
} from './render.js';

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  /**
   * Strict: an argument the tool does not know (`year` for `vintage`) is an error, not silently
   * ignored, because ignoring it would answer a different question than the one asked.
   */
  input: z.ZodObject;
  /** 'verb': the verb charges through ctx.charge once it knows the expanded size; else units. */
  cost: 'verb' | number;
  /** The DISABLED_FEATURES flag that switches the tool off, as it does the REST route. */
  feature?: string;
  run(ctx: VerbContext, args: Record<string, unknown>): Promise<VerbResult<unknown>>;
  render(result: VerbResult<unknown>): string;
}

// A lookup costs the same on every plan and over every transport (src/domain/cost.ts).
const LOOKUP_UNITS = costOf('free', { kind: 'lookup' });

const GEO_GUIDE =
  'Geography keys are {type}:{fips} with leading zeros: nation:1, state:06, county:48453, metro:12420, cd:4835, tract:48453001100, block_group:484530011001. ' +
  'Wildcards (county:48*, tract:48453*) and names (county:Travis County, TX) expand to many geographies: county/metro/cd/tract wildcards need the Pro plan, block_group wildcards the Business plan; direct keys work on every plan. ' +
  'Use search_geographies or geocode to find keys.';

const VALUE_GUIDE =
  'Every value comes with its 90% margin of error; a missing value carries an annotation explaining why (e.g. not published for small areas in acs1).';

const dataSchema = getDataInput.strict();
const compareSchema = compareInput.strict();
const timeseriesSchema = timeseriesInput.strict();

const searchVariablesSchema = z.strictObject({
  search: z
    .string()
    .max(200)
    .optional()
    .describe('Words or a census table/code to look for, e.g. "median household income", "poverty", "B19013".'),
  topic: z.string().optional().describe('Restrict to one topic_key from list_topics, e.g. economics, housing.'),
  limit: z.number().int().min(1).optional().describe('Results per page (default 50; capped by the plan).'),
  offset: z.number().int().min(0).optional().describe('Index of the first result, for the next page (default 0).'),
});

const g = geographiesListInput.shape;
const searchGeographiesSchema = z.strictObject({
  search: g.search.describe(
    'Name to look for among states, counties, metros and congressional districts, e.g. "Travis", "Austin", "Texas 35". Not for tracts or block groups (list those by parent).',
  ),
  type: g.type.describe(
    "Only this geography type. With parent (and no search): list the parent's children of this type, e.g. type tract with parent county:48453.",
  ),
  parent: g.parent.describe(
    'A containing geography key (county:48453) or name ("Travis County, TX"), to list its children or restrict a search.',
  ),
  vintage: g.vintage.describe('Definitions of this ACS vintage (tracts were redrawn for 2020); default the latest.'),
  limit: g.limit.describe('Results per page (default 50; capped by the plan).'),
  offset: g.offset.describe('Index of the first result, for the next page (default 0).'),
});

const geocodeSchema = z.strictObject({
  address: z
    .string()
    .max(300)
    .optional()
    .describe('A US street address, e.g. "1600 Pennsylvania Ave NW, Washington, DC 20500". Give either address or lat+lng.'),
  lat: z.number().optional().describe('Latitude in decimal degrees (WGS84), with lng.'),
  lng: z.number().optional().describe('Longitude in decimal degrees (WGS84), with lat; negative in the western hemisphere.'),
});

const noArguments = z.strictObject({});

export const TOOLS: readonly ToolDef[] = [
  {
    name: 'get_census_data',
    title: 'Get ACS estimates',
    description:
      'American Community Survey estimates (with margins of error) for one or more variables and geographies in one vintage. ' +
      'Example: variables "B19013_001E" (median household income), geo "state:06", dataset "acs1", vintage 2018 → California $75,277 ± $317. ' +
      `Variables are api_names or census codes from search_variables. ${GEO_GUIDE} ${VALUE_GUIDE} ` +
      'Costs quota units: 1 per geography (a wildcard: 1 per 10 geographies it expands to) plus 1 per extra variable.',
    input: dataSchema,
    cost: 'verb',
    feature: 'data',
    run: (ctx, args) => getData({ ctx, input: args as z.output<typeof dataSchema> }),
    render: (r) => renderData(r as Parameters<typeof renderData>[0]),
  },
  {
    name: 'compare_geographies',
    title: 'Compare geographies',
    description:
      "The same variables for two or more geographies side by side, each compared with the FIRST geography: the difference, its margin of error, and whether it is statistically significant at 90% confidence (the Census Bureau's test). " +
      `Example: variables "B19013_001E", geo ["state:06", "state:48"], dataset "acs1", vintage 2018. ${GEO_GUIDE}`,
    input: compareSchema,
    cost: 'verb',
    feature: 'data',
    run: (ctx, args) => compareGeographies({ ctx, input: args as z.output<typeof compareSchema> }),
    render: (r) => renderCompare(r as Parameters<typeof renderCompare>[0]),
  },
  {
    name: 'get_timeseries',
    title: 'Get a time series',
    description:
      'Variables across survey years (vintages from..to, at most 16 points) for one or more geographies; every year of the range is listed, and years without a value say why (not published that year, changed meaning). ' +
      'acs5 periods overlap (2019 covers 2015–2019): compare non-overlapping periods to measure change. ' +
      `Example: variables "B01003_001E", geo "state:06", dataset "acs1", from 2016, to 2019. ${GEO_GUIDE}`,
    input: timeseriesSchema,
    cost: 'verb',
    feature: 'data',
    run: (ctx, args) => getTimeseries({ ctx, input: args as z.output<typeof timeseriesSchema> }),
    render: (r) => renderTimeseries(r as Parameters<typeof renderTimeseries>[0]),
  },
  {
    name: 'search_variables',
    title: 'Search variables',
    description:
      'Find variables by words or census code (e.g. "median household income", "B19013", "B07009_025E"), optionally within a topic: curated catalog variables first (api_name, comparable across years), then every published census code the search names by code (served exactly as published that year), plus the Detailed Tables whose id or title match (ask for a whole table with "B19013*"). 1 quota unit.',
    input: searchVariablesSchema,
    cost: LOOKUP_UNITS,
    run: (ctx, args) => searchVariables({ ctx, input: args as z.output<typeof searchVariablesSchema> }),
    render: (r) => renderVariables(r as Parameters<typeof renderVariables>[0]),
  },
  {
    name: 'search_geographies',
    title: 'Search geographies',
    description:
      'Find geography keys: search states, counties, metros and congressional districts by name ("Travis", "Austin"), or list the children of a geography (type "tract" with parent "county:48453"), or list every geography of a type. Returns geo_key, name, type and population. 1 quota unit.',
    input: searchGeographiesSchema,
    cost: LOOKUP_UNITS,
    run: (ctx, args) => geographiesList({ ctx, input: args as z.output<typeof searchGeographiesSchema> }),
    render: (r) => renderGeographies(r as Parameters<typeof renderGeographies>[0]),
  },
  {
    name: 'list_topics',
    title: 'List topics',
    description:
      'The topics the variable catalog is organised in (topic_key, label, number of variables). Use a topic_key with search_variables. 1 quota unit.',
    input: noArguments,
    cost: LOOKUP_UNITS,
    run: (ctx) => listTopics({ ctx }),
    render: (r) => renderTopics(r as Parameters<typeof renderTopics>[0]),
  },
  {
    name: 'list_datasets',
    title: 'List datasets',
    description:
      'The datasets (acs5: 5-year estimates, every geography; acs1: 1-year estimates, areas of 65,000+ only) with the vintages (survey years) each has and the default vintage. 1 quota unit.',
    input: noArguments,
    cost: LOOKUP_UNITS,
    run: (ctx) => listDatasets({ ctx }),
    render: (r) => renderDatasets(r as Parameters<typeof renderDatasets>[0]),
  },
  {
    name: 'geocode',
    title: 'Geocode',
    description:
      'The geographies (state, county, metro, congressional district, tract, block group) containing a point (lat+lng) or a US street address, with their keys for the data tools. Address coverage is limited; a point always works. 1 quota unit.',
    input: geocodeSchema,
    cost: LOOKUP_UNITS,
    feature: 'geocode',
    run: (ctx, args) => geocode({ ctx, input: args as z.output<typeof geocodeSchema> }),
    render: (r) => renderGeocode(r as Parameters<typeof renderGeocode>[0]),
  },
];

export const TOOL_NAMES = TOOLS.map((t) => t.name);
