// Catalog operations: search/browse variables, variable detail, topics, datasets. Shared by the
// HTTP catalog routes and the MCP tools search_variables, list_topics, list_datasets.
import { expandSearch } from '../domain/catalog/search-synonyms.js';
import { AppError } from '../domain/errors.js';
import { pageSizeFor } from '../domain/plans.js';
import { DATASETS } from '../domain/datasets.js';
import type { ObservationStore } from '../store/observations.js';
import type { Dataset, Topic, VariableSummary } from '../store/catalog.js';
import type { VerbContext, VerbResult } from '../context/verb-context.js';
import { storeOf, storeIfOpen } from '../context/stores.js';


export interface SearchVariablesInput {
  search?: string;
  topic?: string;
  limit?: number;
  offset?: number;
}

export async function searchVariables({ ctx, input }: { ctx: VerbContext; input: SearchVariablesInput }): Promise<VerbResult<VariableSummary[]>> {
  const catalog = storeOf(ctx.stores, 'catalog');
  const topics = catalog.topics().map((t) => t.topic_key);
  if (input.topic !== undefined && !topics.includes(input.topic)) {
    throw new AppError('validation-error', `Unknown topic "${input.topic}". Topics: ${topics.join(', ')}.`, {
      errors: [{ field: 'topic', message: `Expected one of: ${topics.join(', ')}`, type: 'enum' }],
    });
  }
  const limit = pageSizeFor(ctx.caller?.plan ?? 'free', input.limit);
  const offset = input.offset ?? 0;
  const search = input.search?.trim() || undefined;
  const expanded = search ? expandSearch(search) : undefined;
  const { items, total } = catalog.list({ search: expanded?.words, best: expanded?.best, topic: input.topic, offset, limit });
  let hint: string | null = null;
  if (total === 0) {
    hint = search
      ? `No variables match "${search}"${input.topic ? ` in topic ${input.topic}` : ''}. Try fewer or broader words, a census table id such as B19013, or browse /v1/topics.`
      : 'No variables in this topic.';
  } else if (items.length === 0) {
    hint = `offset ${offset} is past the last of ${total} results.`;
  }
  return { data: items, meta: { source: null, total_count: total, hint }, page: { offset, limit, total } };
}

export interface VariableDetail extends VariableSummary {
  availability: Record<Dataset, number[]>;
  census_codes: { code: string; vintages: number[] }[];
  not_comparable: Record<Dataset, { vintage: number; reason: string }[]>;
  formula: string | null;
  notes: string | null;
}

export async function getVariable({ ctx, input }: { ctx: VerbContext; input: { name: string } }): Promise<VerbResult<VariableDetail>> {
  const catalog = storeOf(ctx.stores, 'catalog');
  const v = catalog.getVariable(input.name.trim());
  if (!v) {
    const withYear = /_(19|20)\d{2}$/.test(input.name) ? ' api_name values carry no vintage year; drop the year suffix and pass vintage separately.' : '';
    throw new AppError('variable-not-found', `No variable "${input.name}" in the catalog.${withYear} Search with /v1/variables?search=…`);
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
}

export async function listTopics({ ctx }: { ctx: VerbContext; input?: unknown }): Promise<VerbResult<(Topic & { variable_count: number })[]>> {
  const topics = storeOf(ctx.stores, 'catalog').topics();
  return { data: topics, meta: { source: null, total_count: topics.length } };
}

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
  for (const level of DATASETS[dataset].levels) {
    const years = obs.loadedVintages(dataset, level);
    if (years.length) out[level] = years;
  }
  return out;
}

export async function listDatasets({ ctx }: { ctx: VerbContext; input?: unknown }): Promise<VerbResult<DatasetSummary[]>> {
  const ds = storeOf(ctx.stores, 'catalog').datasets();
  const obs = storeIfOpen(ctx.stores, 'observations');
  const data = (['acs5', 'acs1'] as const).map((d) => ({
    dataset: d,
    label: DATASETS[d].label,
    vintages: ds[d].vintages,
    default_vintage: ds[d].vintages.length ? Math.max(...ds[d].vintages) : null,
    variable_count: ds[d].variable_count,
    loaded_vintages: loadedVintages(obs, d),
  }));
  return { data, meta: { source: null, total_count: data.length } };
}
