// GET /v1/tables (search Detailed Tables by id or words) and GET /v1/tables/{table_id} (one
// table's title, universe and columns in a vintage, with where it was published and where this
// service holds its values). The MCP tool search_variables lists matching tables too.
import { AppError, quoteInput } from '../domain/errors.js';
import {
  DEFAULT_DATASET,
  checkVintage,
  datasetKeys,
  datasetSpec,
  parseDataset,
  perDataset,
  type DatasetKey,
  type PerDataset,
} from '../domain/datasets.js';
import { pageSizeFor } from '../domain/plans.js';
import type { TableInVintage, TableSummary } from '../store/census-tables.js';
import type { ObservationStore } from '../store/observations.js';
import { z } from 'zod';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf } from '../context/stores.js';
import { defineVerb } from './define-verb.js';
import { datasetParamDescription } from './dataset-schemas.js';
import { pageShape } from './paging.js';
import { tableDetailSchema, tableSummarySchema } from './catalog-schemas.js';

export const searchTables = defineVerb({
  name: 'search-tables',
  input: z.object({ search: z.string().max(200).optional().describe('A table id prefix or words of the title.'), ...pageShape }),
  output: z.array(tableSummarySchema),
  cost: { kind: 'lookup' },
  run: async ({ ctx, input, plan }): Promise<VerbResult<TableSummary[]>> => {
    const tables = storeOf(ctx.stores, 'censusTables');
    const limit = pageSizeFor(plan, input.limit);
    const offset = input.offset ?? 0;
    const search = input.search?.trim() || undefined;
    const ids = tables.searchTables(search ?? '');
    const items = ids.slice(offset, offset + limit).map((id) => tables.summary(id));
    let hint: string | null = null;
    if (ids.length === 0) hint = `No Detailed Table matches "${search}". Try a table id prefix such as B19 or fewer words.`;
    else if (items.length === 0) hint = `offset ${offset} is past the last of ${ids.length} results.`;
    return { data: items, meta: { source: null, total_count: ids.length, hint }, page: { offset, limit, total: ids.length } };
  },
});

export interface TableDetail extends TableInVintage {
  dataset: DatasetKey;
  vintage: number;
  /** Vintages in which the Bureau published the table, per dataset. */
  published: PerDataset<number[]>;
  /** Per dataset and geography level, the vintages this service holds the table's values for. */
  loaded: PerDataset<Record<string, number[]>>;
  /** How to ask for the whole table in one data request. */
  request: string;
}

function loadedFor(obs: ObservationStore | undefined, tableId: string): PerDataset<Record<string, number[]>> {
  const out = perDataset((): Record<string, number[]> => ({}));
  if (!obs) return out;
  for (const d of datasetKeys()) {
    for (const level of datasetSpec(d).levels) {
      const ys = obs.loadedVintages(d, level).filter((y) => obs.hasTable(d, y, level, tableId));
      if (ys.length) out[d]![level] = ys;
    }
  }
  return out;
}

export const getTable = defineVerb({
  name: 'get-table',
  input: z.object({
    table_id: z.string().min(1).max(20).describe('Table id, e.g. B19013'),
    dataset: z.string().optional().describe(`${datasetParamDescription()}.`),
    vintage: z.number().int().optional().describe('Survey year.'),
  }),
  output: tableDetailSchema,
  cost: { kind: 'lookup' },
  run: async ({ ctx, input }): Promise<VerbResult<TableDetail>> => {
    const tables = storeOf(ctx.stores, 'censusTables');
    const id = input.table_id.trim().toUpperCase().replace(/\*$/, '');
    if (!tables.hasTable(id)) {
      throw new AppError(
        'not-found',
        `No Detailed Table "${quoteInput(input.table_id)}" was published in any vintage of ${datasetKeys().join(', ')}. Search with /v1/tables?search=….`,
      );
    }
    const published = tables.tableVintages(id);
    // Default: the 5-year product when it has the table (every geography), else the 1-year one.
    const dataset =
      input.dataset === undefined ? (datasetKeys().find((d) => published[d]?.length) ?? DEFAULT_DATASET) : parseDataset(input.dataset);
    const vintage = input.vintage === undefined ? published[dataset]?.at(-1) : checkVintage(dataset, input.vintage);
    const table = vintage === undefined ? null : tables.table(dataset, id, vintage);
    if (!table || vintage === undefined) {
      const ys = published[dataset] ?? [];
      const others = datasetKeys()
        .filter((d) => d !== dataset)
        .map((d) => `${d} ${published[d]?.join(', ') || 'none'}`);
      throw new AppError(
        'not-found',
        `Table ${id} was not published in ${dataset}${input.vintage ? ` ${input.vintage}` : ''}.${ys.length ? ` It was in ${dataset} ${ys.join(', ')}.` : ''} Other datasets: ${others.join('; ')}.`,
      );
    }
    return {
      data: {
        ...table,
        dataset,
        vintage,
        published,
        loaded: loadedFor(ctx.stores.observations as ObservationStore | undefined, id),
        request: `/v1/data?variables=${id}*&dataset=${dataset}&vintage=${vintage}&geo=…`,
      },
      meta: { source: null },
    };
  },
});
