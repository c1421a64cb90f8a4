// GET /data/{vintage}/acs/{acs1|acs5}: a Census Data API query answered from this service's data,
// in the Bureau's format (an array of string rows, header first). The query is translated into the
// very request /v1/data would make for the same cells — the same `prepare` (variables, plan gates
// on wildcards, expansion limits), the same charge, the same engine — and only the rendering is
// the Bureau's: its column names and order, its text for every value (published-text.ts), its
// geography columns. Bureau-style failures are CensusApiError; the rest stay AppError and the
// transport renders both in the Bureau's form (src/http/routes/census-api/).
import { z } from 'zod';
import type { VerbResult } from '../context/verb-context.js';
import { storeIfOpen, storeOf } from '../context/stores.js';
import { CensusApiError, quoted, unknownVariable } from '../domain/census-api/errors.js';
import { geoIdOf, geographyColumns, type CensusApiLevel } from '../domain/census-api/levels.js';
import { renderAnnotation, renderValue, tableColumns, type PublishedForm } from '../domain/census-api/published-text.js';
import { parseCensusApiQuery, type CensusApiQuery } from '../domain/census-api/query.js';
import {
  checkVintage,
  datasetByBureauPath,
  datasetKeys,
  datasetSpec,
  isDatasetKey,
  unregisteredPartitions,
  type DatasetKey,
} from '../domain/datasets.js';
import { AppError } from '../domain/errors.js';
import { checkResponseSize } from '../domain/row-cap.js';
import { computeGridShared, sharedKeyOf } from './observations/answer-cache.js';
import { answerKeyOfInput, type AnswerKey } from './observations/answer-key.js';
import type { GridSlice } from './observations/engine.js';
import { geoTerms, prepare, type PreparedRequest } from './observations/prepare.js';
import { mayExpand } from '../domain/geo/specifier.js';
import { resolveSpecifiers, type ResolvedGeographies } from './resolve-geographies.js';
import type { GeographyRecord } from '../store/geographies.js';
import { defineVerb } from './define-verb.js';

const param = z.union([z.string(), z.array(z.string())]).optional();

export const censusApiQueryInput = z.object({
  dataset: z.string().describe(`The path segment after acs/: ${datasetKeys().join(', ')}.`),
  vintage: z.string().describe('The vintage (the path segment), e.g. 2018.'),
  get: param.describe(
    "The Bureau's `get=`: NAME, GEO_ID, codes with their suffix (B19013_001E, _001M, _001EA, _001MA) and group(B19013), comma-separated.",
  ),
  for: param.describe("The Bureau's `for=`: level:codes, e.g. state:06,48 or county:*."),
  in: param.describe("The Bureau's `in=`: parent clauses, repeated or separated by a space (state:06 county:037)."),
  ucgid: param.describe("The Bureau's `ucgid=`: GEO_IDs of one level, comma-separated (0400000US06)."),
});

/** The Bureau's answer: header row, then one row per geography; every value a string or null. */
export type CensusApiRows = Array<Array<string | null>>;

/** The datasets and vintages this deployment answers, for the "unknown dataset" pointer. */
export function servedDatasets(partitions: ReadonlySet<string>): string[] {
  const unserved = new Set(unregisteredPartitions(partitions));
  const held = new Set([...partitions].filter((p) => !unserved.has(p)).map((p) => p.split('/').slice(0, 2).join('/')));
  return [...held].sort().map((p) => {
    const [ds, v] = p.split('/');
    return `/data/${v}/${datasetSpec(ds!).bureauPath}`;
  });
}

/** The Bureau's "unknown dataset" answer for a path this service does not hold, naming those it does. */
export function unknownDataset(path: string, served: string[]): CensusApiError {
  return new CensusApiError(
    'unknown-dataset',
    `unknown/unsupported dataset ${quoted(path)}. This service answers ACS detailed tables at: ${served.join(', ')} (see /data.json).`,
  );
}

/** One output column: where its text comes from. */
type Column =
  | { kind: 'NAME' }
  | { kind: 'GEO_ID' }
  | { kind: 'cell'; name: string; variable: string; suffix: 'E' | 'M' | 'EA' | 'MA' }
  | { kind: 'geo'; index: number }
  | { kind: 'ucgid' }
  /** A code the discovery documents list that the source file did not publish: null, as the Bureau answers a value it lacks. */
  | { kind: 'absent' };

/**
 * The codes of a table the discovery documents list for this dataset and vintage (every estimate
 * with its EA, and its M and MA where the Bureau publishes a margin; discovery-variables.ts).
 */
export function listedCodes(columns: ReadonlyArray<{ code: string; has_moe: boolean }>): Set<string> {
  const out = new Set<string>();
  for (const c of columns) {
    const base = c.code.slice(0, -1);
    out.add(c.code).add(`${base}EA`);
    if (c.has_moe) out.add(`${base}M`).add(`${base}MA`);
  }
  return out;
}

/** The columns a query asks for, checked against what the partition publishes. */
function columnsOf(
  query: CensusApiQuery,
  form: PublishedForm,
  bureauPublishes: (table: string) => boolean,
  listed: (table: string) => ReadonlySet<string>,
  where: string,
): { columns: Column[]; header: string[]; variables: string[] } {
  const header: string[] = [];
  const columns: Column[] = [];
  const variables = new Set<string>();
  const cell = (name: string) => {
    const m = /^(.*_\d{3})(E|M|EA|MA)$/.exec(name)!;
    variables.add(`${m[1]}E`);
    return { kind: 'cell' as const, name, variable: `${m[1]}E`, suffix: m[2] as 'E' | 'M' | 'EA' | 'MA' };
  };
  for (const item of query.items) {
    if (item.kind === 'NAME' || item.kind === 'GEO_ID') {
      header.push(item.kind);
      columns.push({ kind: item.kind });
      continue;
    }
    const encoded = form.tables[item.table];
    if (encoded === undefined) {
      // A table the Bureau publishes there but this deployment has not loaded is not "unknown".
      if (bureauPublishes(item.table))
        throw new CensusApiError(
          'not-loaded',
          `this service holds no values of table ${quoted(item.table)} for ${where}; the datasets it answers are listed at /data.json`,
        );
      throw unknownVariable(item.kind === 'group' ? `group(${item.table})` : item.column);
    }
    const published = tableColumns(item.table, encoded);
    if (item.kind === 'group') {
      for (const name of published) {
        header.push(name);
        columns.push(name === 'NAME' || name === 'GEO_ID' ? { kind: name } : cell(name));
      }
    } else if (published.includes(item.column)) {
      header.push(item.column);
      columns.push(cell(item.column));
    } else {
      // A code the Bureau published and our discovery documents list, but the source file of this
      // partition left out (acs5 2022 counties' B01003_001M, the 2017 metro files' partial
      // groups): its cells are null, as the Bureau answers a value it lacks — never "unknown".
      if (!listed(item.table).has(item.column)) throw unknownVariable(item.column);
      header.push(item.column);
      columns.push({ kind: 'absent' });
    }
  }
  if (query.byUcgid) {
    header.push('ucgid');
    columns.push({ kind: 'ucgid' });
  } else
    query.level.columns.forEach((name, index) => {
      header.push(name);
      columns.push({ kind: 'geo', index });
    });
  return { columns, header, variables: [...variables] };
}

/** The rows of a slice of the engine's grid (or of geographies alone, for NAME / GEO_ID queries). */
function renderRows(
  geographies: readonly GeographyRecord[],
  slice: GridSlice | undefined,
  columns: Column[],
  level: CensusApiLevel,
  form: PublishedForm,
  ucgids?: ReadonlyMap<string, string>,
): CensusApiRows {
  const nv = slice?.variables.length ?? 0;
  const at = new Map(slice?.variables.map((v, i) => [v.census_code, i]));
  const rows: CensusApiRows = [];
  const geos = geographies
    .map((g, i) => ({ g, i }))
    // Only the geographies the Bureau published in this vintage and dataset, as it would answer.
    .filter(({ g }) => g.key in form.names)
    .sort((a, b) => (a.g.key < b.g.key ? -1 : a.g.key > b.g.key ? 1 : 0));
  for (const { g, i } of geos) {
    const fips = g.key.slice(g.key.indexOf(':') + 1);
    const geoCols = geographyColumns(level, fips);
    const own = form.text[g.key];
    const geoId = form.geoIds[g.key] ?? geoIdOf(level, fips);
    rows.push(
      columns.map((c) => {
        switch (c.kind) {
          case 'NAME':
            return form.names[g.key] ?? g.name;
          case 'GEO_ID':
            return geoId;
          case 'geo':
            return geoCols[c.index]!;
          case 'ucgid':
            return geoId ?? ucgids?.get(g.key) ?? null;
          case 'absent':
            return null;
          case 'cell': {
            if (own && c.name in own) return own[c.name]!;
            if (!slice) return null;
            const k = i * nv + at.get(c.variable)!;
            switch (c.suffix) {
              case 'E':
                return renderValue(slice.estimate[k]!, slice.estimate_annotation[k]!);
              case 'M':
                return renderValue(slice.moe[k]!, slice.moe_annotation[k]!);
              case 'EA':
                return renderAnnotation(slice.estimate_annotation[k]!);
              case 'MA':
                return renderAnnotation(slice.moe_annotation[k]!);
            }
          }
        }
      }),
    );
  }
  return rows;
}

/** The route's input once normalized: the schema's output and the query read from it. */
export type CensusApiInput = z.output<typeof censusApiQueryInput> & { query: CensusApiQuery };

/**
 * The answer cache's key of a query's grid, read from the parsed query as /v1's is (answer-key.ts,
 * which leaves out each specifier's `raw` text): the input less the client's text of `get`, `for`,
 * `in` and `ucgid` and less what only the rendering reads (the columns, `ucgid` or the level's
 * columns, the GEO_IDs as written), with the estimate codes the columns need (`asked`) and the
 * geographies as specifiers. Rows are answered in geography order whatever order the query named
 * them in, so the specifiers are a set: sorted, each once. So `for=state:06,48` and
 * `for=state:48,06`, `in=…&for=…` and `for=…&in=…`, `ucgid=` and `for`/`in` naming the same
 * geographies, or `get=` asking other suffixes or another column order of the same variables,
 * share one entry, and each is rendered in its own spelling. Any other field (one added to the
 * schema included) stays in the key with no edit here.
 */
export function gridKeyOf(input: CensusApiInput, asked: readonly string[]): AnswerKey {
  const { get: _get, for: _for, in: _in, ucgid: _ucgid, query, ...rest } = input;
  const { items: _items, byUcgid: _byUcgid, ucgids: _ucgids, geo, ...shape } = query;
  const specifiers = new Map(geo.map(({ raw: _raw, ...s }) => [JSON.stringify(s), s]));
  return answerKeyOfInput('census-api-query', {
    ...rest,
    query: { ...shape, geo: [...specifiers.keys()].sort().map((k) => specifiers.get(k)!) },
    variables: [...new Set(asked)].sort(),
  });
}

/**
 * What a rendering of a grid depends on beyond the grid: the header (the columns and their order,
 * the level's geography columns or `ucgid`) and, for `ucgid=`, each GEO_ID as the client wrote it,
 * echoed where the published form has none (metros, congressional districts).
 */
function renderingOf(header: readonly string[], query: CensusApiQuery): string {
  const spelt = query.byUcgid ? [...(query.ucgids ?? [])].map(([key, id]) => `${key}=${id}`).sort() : [];
  return `${header.join('\u0001')}\u0002${query.byUcgid}\u0002${spelt.join('\u0001')}`;
}

/** What `resolve` found: the partition's published form, the columns asked, the geographies (and /v1/data's prepared request when values are asked). */
interface Resolved {
  form: PublishedForm;
  columns: Column[];
  header: string[];
  vintage: number;
  geo: ResolvedGeographies;
  p: PreparedRequest | null;
  /** The estimate codes /v1/data was asked for (whole tables as `B19013*`): part of the cache key. */
  asked: string[];
}

/** Renderings of cached grids, by the grid's cache entry (kept as long as the entry is). */
const rendered = new WeakMap<object, Map<string, CensusApiRows>>();

export const censusApiQuery = defineVerb({
  name: 'census-api-query',
  input: censusApiQueryInput,
  output: z.array(z.array(z.string().nullable())),
  // The same cells as /v1/data, under the same kill switch.
  feature: 'data',
  // The Bureau's get/for/in/ucgid read once, into columns and our geography specifiers (not text).
  normalize: (input) => ({ ...input, query: parseCensusApiQuery(input) }),
  heavy: (input) => input.query.geo.some(mayExpand),
  // Before the queue: the dataset and level held, every column known, the geographies found and
  // gated, the size checked — the Bureau's 400s and 404s never wait for a slot.
  resolve: async ({ ctx, input, plan }): Promise<Resolved> => {
    const observations = storeOf(ctx.stores, 'observations');
    const served = servedDatasets(observations.partitions);
    const known = datasetByBureauPath(`acs/${input.dataset}`) ?? (isDatasetKey(input.dataset) ? datasetSpec(input.dataset) : undefined);
    const path = `/data/${input.vintage}/${known?.bureauPath ?? `acs/${input.dataset}`}`;
    if (!/^\d{4}$/.test(input.vintage) || !known || !served.includes(path)) throw unknownDataset(path, served);
    const dataset: DatasetKey = known.key;
    const vintage = Number(input.vintage);
    const { query } = input;
    const level = query.level;
    const form = await observations.publishedForm(dataset, vintage, level.type);
    if (!observations.has(dataset, vintage, level.type) || form === null) {
      throw new CensusApiError(
        'not-loaded',
        `this service holds no ${dataset} ${vintage} values for the level ${quoted(level.name)}; the datasets it answers are listed at /data.json`,
      );
    }
    const censusTables = storeIfOpen(ctx.stores, 'censusTables');
    const { columns, header, variables } = columnsOf(
      query,
      form,
      (table) => censusTables?.table(dataset, table, vintage) != null || (censusTables?.notLoaded(dataset, table, vintage) ?? false),
      (table) => listedCodes(censusTables?.apiColumns(dataset, table, vintage) ?? []),
      `${dataset} ${vintage} at the level '${level.name}'`,
    );
    const shown = { form, columns, header, vintage };
    if (variables.length === 0) {
      // NAME / GEO_ID alone: geographies and no values, resolved and gated as /v1/data resolves
      // them, and charged as a data request of one variable (the least one costs).
      const geo = resolveSpecifiers(storeOf(ctx.stores, 'geographies'), query.geo, {
        vintage: checkVintage(dataset, vintage),
        plan,
        dashboardUrl: ctx.config.DASHBOARD_URL,
      });
      return { ...shown, geo, p: null, asked: [] };
    }

    // From here on, /v1/data's own path: the same variables (whole tables as B19013*), the same
    // geographies, gates, limits and charge.
    const wholeTables = query.items.filter((i) => i.kind === 'group').map((i) => i.table);
    const asked = [
      ...new Set([...wholeTables.map((t) => `${t}*`), ...variables.filter((v) => !wholeTables.includes(v.slice(0, v.indexOf('_'))))]),
    ];
    let p;
    try {
      p = await prepare(
        ctx,
        plan,
        { variables: asked, geo: { specifiers: query.geo, regions: [] }, dataset },
        {
          requested: vintage,
          defaultToLoaded: false,
        },
      );
    } catch (e) {
      // A code the Bureau published but our metadata does not know for this vintage.
      if (e instanceof AppError && e.code === 'variable-not-found') throw unknownVariable(asked.join(','));
      throw e;
    }
    checkResponseSize({ geographies: p.geo.geographies.length, variables: p.variables.length });
    return { ...shown, geo: p.geo, p, asked };
  },
  cost: (_input, r) => ({ kind: 'data', variables: r.p?.variables.length ?? 0, geos: geoTerms(r.geo) }),
  run: async ({ input, resolved: r }): Promise<VerbResult<CensusApiRows>> => {
    const { query } = input;
    const { form, columns, header, vintage, p, asked } = r;
    const level = query.level;
    if (p === null) {
      const rows = renderRows(r.geo.geographies, undefined, columns, level, form, query.ucgids);
      return { data: rows.length === 0 ? [] : [header, ...rows] };
    }
    const grid = await computeGridShared(
      p.stores,
      p.stores.catalog,
      { dataset: p.dataset, vintages: [vintage], variables: p.variables, geographies: p.geo.geographies },
      gridKeyOf(input, asked),
    );
    // A grid handed out from the answer cache keeps its renderings, one per way of writing it out
    // (the same query asked again answers the same array, whose JSON the transport keeps in turn).
    const shared = sharedKeyOf(grid);
    const signature = renderingOf(header, query);
    const kept = shared && rendered.get(shared)?.get(signature);
    if (kept) return { data: kept };
    const rows = grid.slices.flatMap((s) => renderRows(s.geographies, s, columns, level, form, query.ucgids));
    const data = rows.length === 0 ? [] : [header, ...rows];
    if (shared) (rendered.get(shared) ?? rendered.set(shared, new Map()).get(shared)!).set(signature, data);
    return { data };
  },
});
