// GET /v1/data, /v1/compare, /v1/timeseries: the data operations rendered over REST. Their query
// schemas are derived from the verbs' input (verb-schemas.ts); the wording below is REST's own
// (markdown, links), the rules (plan gates, CSV gate and row cap, cost) are the verbs'.
import type { FastifyInstance } from 'fastify';
import type { VerbResult } from '../../context/verb-context.js';
import { compareGeographies } from '../../verbs/compare-geographies.js';
import { compactFormat, getData, longFormat } from '../../verbs/get-data.js';
import { getTimeseries, MAX_POINTS } from '../../verbs/get-timeseries.js';
import { MAX_VARIABLES } from '../../verbs/observations/variables.js';
import type { ObservationCell } from '../../verbs/observations/engine.js';
import type { CsvTable } from '../csv.js';
import { defineVerbRoute } from '../verb-route.js';
import { withChangeColumns, withDollarsColumns } from '../csv-dollars.js';
import { csvRowCapText, plansWith } from '../../verbs/describe-plans.js';
import { datasetParamDescription, pooledDatasets } from '../../verbs/dataset-schemas.js';
import { DEFAULT_DATASET, latestVintage } from '../../domain/datasets.js';

/** REST wording of the fields the three operations share. */
const common = {
  variables: { describe: `Variables by api_name or census code, mixable: comma-separated and/or repeated; at most ${MAX_VARIABLES}.` },
  geo: {
    describe:
      'Geography specifiers `{type}:{fips}`, wildcards (`county:48*`) or names (`tract:Travis County, TX`); several separated by `;` or by repeating geo.',
  },
  dataset: { describe: `${datasetParamDescription()}.` },
};

/** Every data operation's description ends with this: a SYNTHETIC benchmark build says so in every answer. */
/** dollars= on every data operation (docs/moe.md#constant-dollars). */
const DOLLARS_SENTENCE =
  " `dollars=YYYY` restates every dollar-denominated cell (and its MOE) in that year's dollars with the BLS R-CPI-U-RS; each cell carries `dollars` (factor, source and target year, index values) and `meta.dollars` names the index and its release; a year outside the index is 422.";

const SYNTHETIC_SENTENCE =
  ' On a SYNTHETIC benchmark build (random values for real geography keys, `etl synth`; `/health` shows `data.synthetic: true`) every answer carries `meta.synthetic: true` and `meta.hint` starts with "SYNTHETIC build"; on real builds `meta.synthetic` is absent.';

const CELL_COLUMNS = [
  'geo_key',
  'geo_name',
  'geo_type',
  'variable',
  'census_code',
  'label',
  'unit',
  'dataset',
  'vintage',
  'estimate',
  'moe_numeric',
  'estimate_annotation',
  'moe_annotation',
] as const;

function cellRow(c: ObservationCell): (string | number | null)[] {
  return [
    c.geo_key,
    c.geo_name,
    c.geo_type,
    c.variable,
    c.census_code ?? c.formula,
    c.label,
    c.unit,
    c.dataset,
    c.vintage,
    c.estimate,
    c.moe_numeric,
    c.estimate_annotation?.code ?? null,
    c.moe_annotation?.code ?? null,
  ];
}

function cellsCsv(name: string, result: VerbResult<ObservationCell[]>): CsvTable {
  const source = result.meta?.source;
  return {
    columns: [...CELL_COLUMNS],
    rows: result.data.map(cellRow),
    filename: `${name}-${source?.dataset ?? 'acs'}-${source?.vintage_year ?? ''}`,
  };
}

/** What the three data routes share: auth, stores and the documented 404. */
const DATA_ROUTE = {
  tags: ['data'],
  auth: 'api-key',
  needs: ['catalog', 'geographies', 'observations'],
  errorStatuses: [404],
} as const;

export function dataRoutes(app: FastifyInstance) {
  defineVerbRoute(app, {
    url: '/v1/data',
    summary: 'Estimates with margins of error for variables and geographies',
    description:
      `One cell per geography × variable (long format). Each cell carries the geography key and name, the variable api_name, census code (or formula for derived variables), label, unit, estimate, \`moe_numeric\` (90% margin of error) and structured \`estimate_annotation\` / \`moe_annotation\`. A null always comes with an annotation saying why, and \`meta.hint\` summarises. Default dataset ${DEFAULT_DATASET}; default vintage the latest this deployment holds values for (else ${latestVintage(DEFAULT_DATASET)}). CSV (\`format=csv\`, ` +
      plansWith({ kind: 'csv' }) +
      `) has the same columns, annotations as codes; more than ${csvRowCapText()} rows is refused with 413.` +
      DOLLARS_SENTENCE +
      SYNTHETIC_SENTENCE,
    ...DATA_ROUTE,
    verb: getData,
    rest: {
      ...common,
      vintage: {
        describe: `Survey year; default: the latest vintage this deployment holds values for (for these variables and geographies), else the latest of the dataset (${latestVintage(DEFAULT_DATASET)}). meta.hint says when the default was used.`,
      },
      include_geometry: {
        describe: `Add each geography's GeoJSON geometry (20m) to its cells; ${plansWith({ kind: 'include_geometry' })}.`,
      },
    },
    csv: (result) => withDollarsColumns(cellsCsv('data', longFormat(result)), longFormat(result).data),
    // The verb builds the compact table itself when asked for it (observations/compact.ts).
    compact: (result) => compactFormat(result).data,
  });

  defineVerbRoute(app, {
    url: '/v1/compare',
    summary: 'Compare geographies side by side, with significance of the differences',
    description:
      "The same cells as /v1/data, ordered by variable then geography, for two or more geographies. Every geography after the first carries `comparison` against the first: `difference`, `difference_moe` = √(MOE₁²+MOE₂²) and `significant` (|difference| > difference_moe, the Census Bureau's 90% test). No verdict is given (`significant: null`, with `not_tested_reason`) when either value is null, top- or bottom-coded, controlled (no sampling error) or has a missing or annotated MOE. The time form, `compare_to=YYYY`, adds `change` to every cell (as /v1/timeseries does) against the same geography in that vintage; one geography is then enough." +
      DOLLARS_SENTENCE +
      SYNTHETIC_SENTENCE,
    ...DATA_ROUTE,
    verb: compareGeographies,
    rest: { ...common, vintage: { describe: 'Survey year; default as for /v1/data.' } },
    csv: (result) => {
      const table = withChangeColumns(withDollarsColumns(cellsCsv('compare', result), result.data), result.data);
      const cells = result.data;
      return {
        ...table,
        columns: [...table.columns, 'reference_geo_key', 'difference', 'difference_moe', 'significant', 'not_tested_reason'],
        rows: table.rows.map((r, i) => {
          const c = cells[i]!.comparison;
          return [
            ...r,
            c?.reference_geo_key ?? null,
            c?.difference ?? null,
            c?.difference_moe ?? null,
            c?.significant === undefined || c?.significant === null ? null : String(c.significant),
            c?.not_tested_reason ?? null,
          ];
        }),
      };
    },
  });

  defineVerbRoute(app, {
    url: '/v1/timeseries',
    summary: `Variables across vintages (up to ${MAX_POINTS} points per variable and geography)`,
    description:
      `Cells as in /v1/data, one per vintage from \`from\` to \`to\` for every variable and geography; vintages without a value are null with the reason. Geographies are resolved as defined in \`to\`. \`compare_to=YYYY\` adds \`change\` to every point: difference, percent change and their MOEs against the base vintage, and \`significant\` at 90% (the Census Bureau's test); overlapping periods (${pooledDatasets()}), non-comparable, controlled, top-coded or annotated values get \`significant: null\` with \`not_tested_reason\`.` +
      DOLLARS_SENTENCE +
      SYNTHETIC_SENTENCE,
    ...DATA_ROUTE,
    verb: getTimeseries,
    rest: {
      ...common,
      from: { describe: `First vintage; default: ${MAX_POINTS - 1} years before \`to\` (at most ${MAX_POINTS} points).` },
      to: { describe: 'Last vintage; default: the latest.' },
    },
    csv: (result) => withChangeColumns(withDollarsColumns(cellsCsv('timeseries', result), result.data), result.data),
  });
}
