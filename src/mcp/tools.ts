// The nine MCP tools. Each is a binding of one verb (the same verb the REST route calls): its
// input schema is the verb's own (made strict, with agent-oriented wording where it differs), the
// verb parses, gates, prices and runs, and the binding renders the result as text. The types flow
// from the verb to the renderer, so nothing here casts and nothing here decides a business rule.
import { z } from 'zod';
import type { VerbResult } from '../context/verb-context.js';
import type { VerbSpec } from '../verbs/lifecycle/verb-spec.js';
import { listDatasets, listTopics, searchVariables } from '../verbs/catalog.js';
import { compareGeographies } from '../verbs/compare-geographies.js';
import type { Verb } from '../verbs/define-verb.js';
import { geocode } from '../verbs/geocode.js';
import { geographiesList } from '../verbs/geographies-list.js';
import { getData, longFormat } from '../verbs/get-data.js';
import { getTimeseries, MAX_POINTS } from '../verbs/get-timeseries.js';
import { coverageCostTerms, getCoverage } from '../verbs/get-coverage.js';
import { datasetParamDescription, pooledDatasets, thresholdDatasets } from '../verbs/dataset-schemas.js';
import { argumentsError } from './errors.js';
import {
  renderCompare,
  renderCoverage,
  renderData,
  renderDatasets,
  renderGeocode,
  renderGeographies,
  renderTimeseries,
  renderTopics,
  renderVariables,
} from './render.js';
import { dataCostTerms, lookupCostTerms, wildcardTerms } from '../verbs/describe-plans.js';

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  /**
   * The verb's input, strict: an argument the tool does not know (`year` for `vintage`) is an
   * error, not silently ignored, because ignoring it would answer a different question.
   */
  input: z.ZodObject;
  /** The verb whose lifecycle a call runs (src/verbs/lifecycle/lifecycle.ts, through server.ts's transport). */
  verb: VerbSpec<z.ZodObject, unknown, unknown, unknown>;
  /**
   * The parse phase's reading of the arguments, with field errors placed `arguments → …`: `input`
   * is the verb's own schema (the same fields, only re-described) made strict, so its output is
   * the verb's parsed input; the lifecycle normalizes it from there.
   */
  parse(args: unknown): unknown;
  /** The render phase: the verb's result as the tool's text. */
  render(result: VerbResult<unknown>): string;
}

interface Binding<S extends z.ZodObject, O> {
  name: string;
  title: string;
  description: string;
  /** Agent-oriented wording of some arguments (the verb's descriptions otherwise). */
  describe?: Partial<Record<Extract<keyof S['shape'], string>, string>>;
  render(result: VerbResult<O>): string;
}

function tool<S extends z.ZodObject, O>(verb: Verb<S, O>, b: Binding<S, O>): ToolDef {
  const shape: Record<string, z.ZodType> = verb.spec.input.shape;
  const described = Object.entries(b.describe ?? {}).map(([k, d]) => [k, shape[k]!.describe(String(d))]);
  const input = verb.spec.input.extend(Object.fromEntries(described)).strict();
  return {
    name: b.name,
    title: b.title,
    description: b.description,
    input,
    verb: verb.spec as unknown as ToolDef['verb'],
    parse(args) {
      const strict = input.safeParse(args);
      if (!strict.success) throw argumentsError(b.name, strict.error.issues, args as Record<string, unknown>, input);
      return strict.data;
    },
    // The verb's result type flows from the verb to the binding's renderer; the list holds any verb.
    render: (result) => b.render(result as VerbResult<O>),
  };
}

const PAGE_LIMIT = 'Results per page (default 50; capped by the plan).';
const PAGE_OFFSET = 'Index of the first result, for the next page (default 0).';

const GEO_GUIDE =
  'Geography keys are {type}:{fips} with leading zeros: nation:1, state:06, county:48453, metro:12420, cd:4835, tract:48453001100, block_group:484530011001. ' +
  'Wildcards (county:48*, tract:48453*) and names (county:Travis County, TX) expand to many geographies: ' +
  wildcardTerms() +
  '; direct keys work on every plan. ' +
  'Use search_geographies or geocode to find keys.';

const REGION_GUIDE =
  'A custom region adds up geographies of one level: geo "region(county:06001,county:06013,county:06075)" (members as keys, wildcards or names), or "region:<name>" for a region saved to the account. ' +
  "Counts are summed with the MOE √ΣMOE² (the Census Bureau's approximation), percents and ratios computed from the summed parts, medians of household income, age, home value and gross rent interpolated from their tabulated distributions (no MOE); other medians and averages are null, never summed. A region costs what its members cost. " +
  'region(state:*) includes Puerto Rico, so it is not the nation (nation:1 is the 50 states and DC); the answer says so (meta.regions[].caveats).';

const VALUE_GUIDE = `Every value comes with its 90% margin of error; a missing value carries an annotation explaining why (e.g. not published for small areas in ${thresholdDatasets()}).`;

export const TOOLS: readonly ToolDef[] = [
  tool(getData, {
    name: 'get_census_data',
    title: 'Get ACS estimates',
    description:
      'American Community Survey estimates (with margins of error) for one or more variables and geographies in one vintage. ' +
      'Example: variables "B19013_001E" (median household income), geo "state:06", dataset "acs1", vintage 2018 → California $75,277 ± $317. ' +
      `Variables are api_names or census codes from search_variables. ${GEO_GUIDE} ${REGION_GUIDE} ${VALUE_GUIDE} ` +
      `Costs quota units: ${dataCostTerms()}.`,
    render: (r) => renderData(longFormat(r)),
  }),
  tool(compareGeographies, {
    name: 'compare_geographies',
    title: 'Compare geographies',
    description:
      "The same variables for two or more geographies side by side, each compared with the FIRST geography: the difference, its margin of error, and whether it is statistically significant at 90% confidence (the Census Bureau's test). " +
      `Example: variables "B19013_001E", geo ["state:06", "state:48"], dataset "acs1", vintage 2018. ${GEO_GUIDE} ${REGION_GUIDE}`,
    render: renderCompare,
  }),
  tool(getTimeseries, {
    name: 'get_timeseries',
    title: 'Get a time series',
    description:
      `Variables across survey years (vintages from..to, at most ${MAX_POINTS} points) for one or more geographies; every year of the range is listed, and years without a value say why (not published that year, changed meaning). ` +
      `Periods of ${pooledDatasets()} overlap: compare non-overlapping periods to measure change. ` +
      `Example: variables "B01003_001E", geo "state:06", dataset "acs1", from 2016, to 2019. ${GEO_GUIDE} ${REGION_GUIDE}`,
    render: renderTimeseries,
  }),
  tool(getCoverage, {
    name: 'get_coverage',
    title: 'Which surveys and years have values',
    description:
      'Which surveys and years have values for these variables at this place, without the values: one row per dataset and vintage with with_values (how many of the variables have a non-null estimate there), variables (how many were counted) and loaded (whether this deployment holds that level and year). ' +
      'Use it to choose the dataset and vintage before get_census_data or get_timeseries. ' +
      'Example: variables ["B01003_001E", "B19013_001E"], geo "county:48453" (one place: a key or a name of that level; no wildcards, lists or regions); dataset optional (absent: every dataset). ' +
      coverageCostTerms(),
    render: renderCoverage,
  }),
  tool(searchVariables, {
    name: 'search_variables',
    title: 'Search variables',
    description:
      'Find variables by words or census code (e.g. "median household income", "B19013", "B07009_025E"), optionally within a topic: curated catalog variables first (api_name, comparable across years), then every published census code the search names by code (served exactly as published that year), plus the Detailed Tables whose id or title match (ask for a whole table with "B19013*"). ' +
      lookupCostTerms(),
    describe: {
      topic: 'Restrict to one topic_key from list_topics, e.g. economics, housing.',
      limit: PAGE_LIMIT,
      offset: PAGE_OFFSET,
    },
    render: renderVariables,
  }),
  tool(geographiesList, {
    name: 'search_geographies',
    title: 'Search geographies',
    description:
      'Find geography keys: search states, counties, metros and congressional districts by name ("Travis", "Austin"), or list the children of a geography (type "tract" with parent "county:48453"), or list every geography of a type. Returns geo_key, name, type and population. ' +
      lookupCostTerms(),
    describe: {
      vintage: 'Definitions of this ACS vintage (tracts were redrawn for 2020); default the latest.',
      limit: PAGE_LIMIT,
      offset: PAGE_OFFSET,
    },
    render: renderGeographies,
  }),
  tool(listTopics, {
    name: 'list_topics',
    title: 'List topics',
    description:
      'The topics the variable catalog is organised in (topic_key, label, number of variables). Use a topic_key with search_variables. ' +
      lookupCostTerms(),
    render: renderTopics,
  }),
  tool(listDatasets, {
    name: 'list_datasets',
    title: 'List datasets',
    description: `The datasets (${datasetParamDescription()}) with the vintages (survey years) each has and the default vintage. ${lookupCostTerms()}`,
    render: renderDatasets,
  }),
  tool(geocode, {
    name: 'geocode',
    title: 'Geocode',
    description:
      'The geographies (state, county, metro, congressional district, tract, block group) containing a point (lat+lng) or a US street address, with their keys for the data tools. Address coverage is limited; a point always works. ' +
      lookupCostTerms(),
    render: renderGeocode,
  }),
];

export const TOOL_NAMES = TOOLS.map((t) => t.name);
