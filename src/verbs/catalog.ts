// Catalog operations: search/browse variables, variable detail, topics, datasets. Shared by the
// HTTP catalog routes and the MCP tools search_variables, list_topics, list_datasets.
import { expandSearch } from '../domain/catalog/search-synonyms.js';
import { CODE_PREFIX } from '../domain/census-codes.js';
import { AppError, quoteInput } from '../domain/errors.js';
import { pageSizeFor } from '../domain/plans.js';
import { DEFAULT_DATASET, datasetKeys, datasetSpec, perDataset, type PerDataset } from '../domain/datasets.js';
import type { ObservationStore } from '../store/observations.js';
import type { CatalogStore, Dataset, Topic, VariableSummary } from '../store/catalog.js';
import { answerCacheOf, deepFreeze } from '../store/answer-cache.js';
import { CensusTableStore, type TableSummary } from '../store/census-tables.js';
import { inferCensusUnit } from '../domain/census-units.js';
import { z } from 'zod';
import type { VerbResult } from '../context/verb-context.js';
import { storeOf, storeIfOpen } from '../context/stores.js';
import { defineVerb } from './define-verb.js';
import { pageShape } from './paging.js';
import { datasetSchema, topicWithCountSchema, variableDetailSchema, variableSearchItemSchema } from './catalog-schemas.js';

export const searchVariablesInput = z.object({
  search: z
    .string()
    .max(200)
    .optional()
    .describe('Words or a census table/code to look for, e.g. "median household income", "poverty", "B19013".'),
  topic: z.string().optional().describe('Restrict to one topic_key (the topics list), e.g. economics, housing.'),
  ...pageShape,
});
export type SearchVariablesInput = z.input<typeof searchVariablesInput>;

/** A search result: a catalog variable, or a published census code found by its code. */
export type VariableSearchItem = (VariableSummary & { kind: 'catalog' }) | CensusCodeSummary;

export interface CensusCodeSummary extends VariableSummary {
  kind: 'census_code';
  table_id: string;
  table_title: string | null;
  /** Vintages in which the Bureau published the code, per dataset. */
  availability: PerDataset<number[]>;
}

function censusCodeMatches(tables: CensusTableStore, search: string): CensusCodeSummary[] {
  const q = search.toUpperCase().replace(/M$/, 'E');
  if (!CODE_PREFIX.test(q)) return [];
  return tables.codesWithPrefix(q).map((code) => {
    const availability = perDataset((d) => tables.vintagesOf(d, code));
    const latest = tables.latest(datasetKeys().find((d) => availability[d]?.length) ?? DEFAULT_DATASET, code)!;
    return {
      kind: 'census_code',
      api_name: code,
      census_code: code,
      label: latest.label ?? code,
      unit: inferCensusUnit(latest.table_title) as VariableSummary['unit'],
      topic: null,
      display_format: null,
      matched_census_codes: [{ code, vintages: [...new Set(Object.values(availability).flatMap((ys) => ys ?? []))].sort((a, b) => a - b) }],
      table_id: latest.table_id,
      table_title: latest.table_title,
      availability,
    };
  });
}

/** Search answers kept per catalog + census-tables stores (both immutable per build). */
export const SEARCH_CACHE_ANSWERS = 500;
/** Pages larger than this are built on each request (bounds the cache's memory: ~500 × 200 items). */
const SEARCH_CACHE_MAX_ITEMS = 200;

type SearchAnswer = VerbResult<VariableSearchItem[]>;

function searchAnswer(
  catalog: CatalogStore,
  tables: CensusTableStore | null | undefined,
  input: { search: string | undefined; topic: string | undefined; offset: number; limit: number },
): SearchAnswer {
  const { search, topic, offset, limit } = input;
  const expanded = search ? expandSearch(search) : undefined;
  // Catalog variables first (curated, comparable across vintages), then every published code the
  // search names by code: a census code asked for by code is served as published. Only the page's
  // items are built.
  const fromCatalog = catalog.list({ search: expanded?.words, best: expanded?.best, topic, offset, limit });
  const codes = search && tables && !topic ? censusCodeMatches(tables, search) : [];
  const total = fromCatalog.total + codes.length;
  const items: VariableSearchItem[] = fromCatalog.items.map((v) => ({ ...v, kind: 'catalog' as const }));
  const codeStart = Math.max(0, offset - fromCatalog.total);
  for (const c of codes.slice(codeStart, codeStart + limit - items.length)) items.push(c);
  const matchingTables: TableSummary[] =
    search && tables && !topic
      ? tables
          .searchTables(search)
          .slice(0, 5)
          .map((id) => tables.summary(id))
      : [];
  let hint: string | null = null;
  if (total === 0) {
    hint = search
      ? `No variables match "${search}"${topic ? ` in topic ${topic}` : ''}.${matchingTables.length ? ` Tables whose title matches: ${matchingTables.map((t) => t.table_id).join(', ')} (see /v1/tables/{table_id}).` : ''} Try fewer or broader words, a census code or table id such as B19013, or browse /v1/topics.`
      : 'No variables in this topic.';
  } else if (items.length === 0) {
    hint = `offset ${offset} is past the last of ${total} results.`;
  }
  return {
    data: items,
    meta: { source: null, total_count: total, hint, matching_tables: matchingTables },
    page: { offset, limit, total },
  };
}

export const searchVariables = defineVerb({
  name: 'search-variables',
  input: searchVariablesInput,
  output: z.array(variableSearchItemSchema),
  cost: { kind: 'lookup' },
  run: async ({ ctx, input, plan }): Promise<VerbResult<VariableSearchItem[]>> => {
    const catalog = storeOf(ctx.stores, 'catalog');
    const topicKeys = answerCacheOf<ReadonlySet<string>>('topic-keys', 1, [catalog]);
    const topics = topicKeys.get('') ?? topicKeys.set('', new Set(catalog.topics().map((t) => t.topic_key)));
    if (input.topic !== undefined && !topics.has(input.topic)) {
      const list = [...topics].join(', ');
      throw new AppError('validation-error', `Unknown topic "${quoteInput(input.topic)}". Topics: ${list}.`, {
        errors: [{ field: 'topic', message: `Expected one of: ${list}`, type: 'enum' }],
      });
    }
    const limit = pageSizeFor(plan, input.limit);
    const offset = input.offset ?? 0;
    const search = input.search?.trim() || undefined;
    const tables = storeIfOpen(ctx.stores, 'censusTables');
    const args = { search, topic: input.topic, offset, limit };
    if (limit > SEARCH_CACHE_MAX_ITEMS) return searchAnswer(catalog, tables, args);
    // The catalog and the census tables never change once loaded: the same search, topic and page
    // give the same answer, computed once per pair of stores (frozen; the envelope is built around it).
    const cache = answerCacheOf<SearchAnswer>('variable-search', SEARCH_CACHE_ANSWERS, [catalog, tables]);
    const key = `${offset}\u0000${limit}\u0000${input.topic ?? ''}\u0000${search ?? ''}`;
    return cache.get(key) ?? cache.set(key, deepFreeze(searchAnswer(catalog, tables, args)));
  },
});

export interface VariableDetail extends VariableSummary {
  availability: PerDataset<number[]>;
  census_codes: { code: string; vintages: number[] }[];
  not_comparable: PerDataset<{ vintage: number; reason: string }[]>;
  formula: string | null;
  notes: string | null;
}

export const getVariable = defineVerb({
  name: 'get-variable',
  input: z.object({ name: z.string().min(1).max(100).describe('api_name or census code') }),
  output: variableDetailSchema,
  cost: { kind: 'lookup' },
  run: async ({ ctx, input }): Promise<VerbResult<VariableDetail>> => {
    const catalog = storeOf(ctx.stores, 'catalog');
    const v = catalog.getVariable(input.name.trim());
    if (!v) {
      const withYear = /_(19|20)\d{2}$/.test(input.name)
        ? ' api_name values carry no vintage year; drop the year suffix and pass vintage separately.'
        : '';
      const tables = storeIfOpen(ctx.stores, 'censusTables');
      const code = CensusTableStore.normalizeCode(input.name);
      if (code && tables?.known(code)) {
        const table = code.slice(0, code.indexOf('_'));
        throw new AppError(
          'variable-not-found',
          `${code} is a census code the Bureau published, but not a curated catalog variable: ask for it by code in /v1/data (variables=${code}), and see its table at /v1/tables/${table}.`,
        );
      }
      throw new AppError(
        'variable-not-found',
        `No variable "${quoteInput(input.name)}" in the catalog.${withYear} Search with /v1/variables?search=…`,
      );
    }
    return {
      data: {
        ...catalog.summary(v),
        availability: v.availability,
        census_codes: catalog.codesByVintage(v),
        not_comparable: v.not_comparable,
        formula: v.formula,
        notes: v.notes,
      },
      meta: { source: null },
    };
  },
});

const noInput = z.object({});

export const listTopics = defineVerb({
  name: 'list-topics',
  input: noInput,
  output: z.array(topicWithCountSchema),
  cost: { kind: 'lookup' },
  run: async ({ ctx }): Promise<VerbResult<(Topic & { variable_count: number })[]>> => {
    const topics = storeOf(ctx.stores, 'catalog').topics();
    return { data: topics, meta: { source: null, total_count: topics.length } };
  },
});

export interface DatasetSummary {
  dataset: Dataset;
  label: string;
  vintages: number[];
  default_vintage: number | null;
  variable_count: number;
  /** Per geography level, the vintages this deployment holds values for (empty object: none loaded). */
  loaded_vintages: Record<string, number[]>;
}

function loadedVintages(obs: ObservationStore | undefined, dataset: Dataset): Record<string, number[]> {
  if (!obs) return {};
  const out: Record<string, number[]> = {};
  for (const level of datasetSpec(dataset).levels) {
    const years = obs.loadedVintages(dataset, level);
    if (years.length) out[level] = years;
  }
  return out;
}

export const listDatasets = defineVerb({
  name: 'list-datasets',
  input: noInput,
  output: z.array(datasetSchema),
  cost: { kind: 'lookup' },
  run: async ({ ctx }): Promise<VerbResult<DatasetSummary[]>> => {
    const ds = storeOf(ctx.stores, 'catalog').datasets();
    const obs = storeIfOpen(ctx.stores, 'observations');
    const data = datasetKeys().map((d) => ({
      dataset: d,
      label: datasetSpec(d).label,
      vintages: ds[d]!.vintages,
      default_vintage: ds[d]!.vintages.length ? Math.max(...ds[d]!.vintages) : null,
      variable_count: ds[d]!.variable_count,
      loaded_vintages: loadedVintages(obs, d),
    }));
    return { data, meta: { source: null, total_count: data.length } };
  },
});
