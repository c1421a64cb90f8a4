// What a `variables` list names. Three kinds of item, mixable:
//   - a catalog api_name (core_median_household_income): the curated variable, with its
//     comparability rules across vintages (docs/catalog.md);
//   - a census code (B07009_025E, b19013_001m): that code exactly as the Bureau published it in
//     the vintage asked for, with that vintage's label, universe and table title;
//   - a whole table (B19013*): every estimate code of the table in the vintage(s) asked for.
// Names are parsed first (parseVariableNames); codes and tables are checked against what was
// published once the vintages are known (bindVariables), so "not published in 2005, published in
// 2007–2018" can be said precisely.
import { AppError, MAX_QUOTED_ITEMS, quoteInput, quoteList } from '../../domain/errors.js';
import { otherDataset, type DatasetKey } from '../../domain/datasets.js';
import type { CatalogStore, CatalogVariable } from '../../store/catalog.js';
import { CENSUS_TABLE_WILDCARD, CensusTableStore } from '../../store/census-tables.js';
import type { ObservationStore } from '../../store/observations.js';
import { splitList } from './list.js';

/** Most items one request may name (the Census Data API's own limit is 50 too). */
export const MAX_VARIABLES = 50;
/** Most variables after tables are expanded (the largest Detailed Table has 566 lines). */
export const MAX_EXPANDED_VARIABLES = 1_000;

/** A published census code asked for by its code. */
export interface CensusCodeVariable {
  source: 'census_code';
  /** The code itself: what the cell's `variable` says. */
  api_name: string;
  census_code: string;
  table_id: string;
}

export type RequestedVariable = CatalogVariable | CensusCodeVariable;

export const isCensusCode = (v: RequestedVariable): v is CensusCodeVariable => (v as CensusCodeVariable).source === 'census_code';

type ParsedName =
  { kind: 'catalog'; v: CatalogVariable } | { kind: 'code'; code: string; raw: string } | { kind: 'table'; table: string; raw: string };

export interface ParsedVariables {
  items: ParsedName[];
}

const tableOf = (code: string) => code.slice(0, code.indexOf('_'));

export function parseVariableNames(
  catalog: CatalogStore,
  tables: CensusTableStore | undefined,
  observations: Pick<ObservationStore, 'hasTableAnywhere'>,
  value: string | readonly string[] | undefined,
): ParsedVariables {
  const names = splitList(value);
  if (names.length === 0) {
    throw new AppError(
      'unprocessable-request',
      'variables is required: name at least one variable by api_name, census code or table (B19013*).',
      {
        errors: [{ field: 'variables', message: 'Field required', type: 'missing' }],
      },
    );
  }
  if (names.length > MAX_VARIABLES) {
    throw new AppError(
      'validation-error',
      `At most ${MAX_VARIABLES} variables per request; got ${names.length}. Split the request, or ask for a whole table with B19013*.`,
      {
        errors: [{ field: 'variables', message: `at most ${MAX_VARIABLES} values`, type: 'too_long' }],
      },
    );
  }
  const items: ParsedName[] = [];
  const unknown: string[] = [];
  for (const n of names) {
    const byName = catalog.getVariable(n);
    const code = CensusTableStore.normalizeCode(n);
    const table = CENSUS_TABLE_WILDCARD.exec(n.trim().toUpperCase())?.[1];
    // A code is a code even when a catalog variable has it as census_code: asked by code, it means
    // the code as published (no catalog comparability rules).
    // A table the Bureau publishes that this build has not loaded is known too (bindVariables).
    const named = (t: string) => observations.hasTableAnywhere(t) || (tables?.notLoadedAnywhere(t) ?? false);
    if (code && (tables?.known(code) || named(tableOf(code)))) items.push({ kind: 'code', code, raw: n });
    else if (byName && !code) items.push({ kind: 'catalog', v: byName });
    else if (table && (tables?.hasTable(table) || named(table))) items.push({ kind: 'table', table, raw: n });
    else unknown.push(n);
  }
  if (unknown.length > 0) {
    const suggestions = unknown.flatMap((u) =>
      catalog.list({ search: u.replace(/_/g, ' '), offset: 0, limit: 3 }).items.map((s) => s.api_name),
    );
    const yearHint = unknown.some((u) => /_(19|20)\d\d$/.test(u))
      ? ' api_name values carry no vintage year; pass the year as vintage.'
      : '';
    const closest = [...new Set(suggestions)].slice(0, 5);
    const named = quoteList(unknown);
    throw new AppError(
      'variable-not-found',
      `Unknown variable${unknown.length > 1 ? 's' : ''}: ${named.shown.join(', ')}${named.more ? ` and ${named.more} more` : ''}.${yearHint} Neither a catalog api_name nor a census code or table the Census Bureau published in any vintage. Search at /v1/variables?search=… or /v1/tables?search=…${closest.length ? `; closest: ${closest.join(', ')}` : ''}.`,
      { extensions: { unknown_variables: named.shown, suggestions: closest } },
    );
  }
  return { items };
}

/** Codes the request will read, per item, for "latest vintage with values" defaults. */
export function tablesNamed(parsed: ParsedVariables): { catalog: CatalogVariable[]; tables: string[] } {
  const catalog: CatalogVariable[] = [];
  const tables: string[] = [];
  for (const i of parsed.items) {
    if (i.kind === 'catalog') catalog.push(i.v);
    else tables.push(i.kind === 'code' ? tableOf(i.code) : i.table);
  }
  return { catalog, tables };
}

const listYears = (ys: number[]) => (ys.length > 6 ? `${ys.slice(0, 3).join(', ')}, …, ${ys.slice(-2).join(', ')}` : ys.join(', '));

function whereElse(tables: CensusTableStore, dataset: DatasetKey, code: string): string {
  const here = tables.vintagesOf(dataset, code);
  const other: DatasetKey = otherDataset(dataset);
  const there = tables.vintagesOf(other, code);
  const parts = [];
  if (here.length) parts.push(`${dataset} ${listYears(here)}`);
  if (there.length) parts.push(`${other} ${listYears(there)}`);
  return parts.length ? `It was published in ${parts.join('; ')}.` : '';
}

/**
 * Turn parsed names into the variables of a request over `vintages`: codes must have been
 * published in at least one of them (else 404 naming where they were), tables expand to their
 * codes in those vintages, in line order.
 */
export function bindVariables(
  parsed: ParsedVariables,
  ctx: { tables: CensusTableStore | undefined; observations: ObservationStore; dataset: DatasetKey; vintages: number[] },
): RequestedVariable[] {
  const out: RequestedVariable[] = [];
  const seen = new Set<string>();
  const add = (v: RequestedVariable) => {
    if (seen.has(v.api_name)) return;
    seen.add(v.api_name);
    out.push(v);
  };
  const missing: string[] = [];
  const span = ctx.vintages.length === 1 ? `${ctx.dataset} ${ctx.vintages[0]}` : `${ctx.dataset} ${ctx.vintages[0]}–${ctx.vintages.at(-1)}`;
  for (const item of parsed.items) {
    if (item.kind === 'catalog') {
      add(item.v);
      continue;
    }
    if (item.kind === 'code') {
      // A code of a table the Bureau publishes and this build has not loaded is asked for: its
      // cells are null no_data_loaded, with the command that loads them (meta.fill_command).
      const published = ctx.vintages.some((y) => isPublished(ctx, item.code, y) || notLoaded(ctx, item.code, y));
      if (!published)
        missing.push(
          `${quoteInput(item.raw)} was not published in ${span}. ${ctx.tables ? whereElse(ctx.tables, ctx.dataset, item.code) : ''}`.trim(),
        );
      else add({ source: 'census_code', api_name: item.code, census_code: item.code, table_id: tableOf(item.code) });
      continue;
    }
    const codes = new Set<string>();
    for (const y of ctx.vintages) for (const c of ctx.tables?.table(ctx.dataset, item.table, y)?.columns ?? []) codes.add(c.code);
    if (codes.size === 0) {
      const ys = ctx.tables?.tableVintages(item.table)[ctx.dataset] ?? [];
      const unloaded = ctx.vintages.filter((y) => ctx.tables?.notLoaded(ctx.dataset, item.table, y));
      missing.push(
        unloaded.length
          ? `Table ${item.table} is published in ${ctx.dataset} ${listYears(unloaded)}, but this deployment has not loaded it (its operator loads it with: npm run etl -- build --online --datasets ${ctx.dataset} --vintages ${unloaded.join(',')} --tables ${item.table}).`
          : `Table ${item.table} was not published in ${span}.${ys.length ? ` It was published in ${ctx.dataset} ${listYears(ys)}.` : ''}`,
      );
      continue;
    }
    const ordered = [...codes].sort((a, b) => Number(a.slice(-4, -1)) - Number(b.slice(-4, -1)));
    for (const code of ordered) add({ source: 'census_code', api_name: code, census_code: code, table_id: item.table });
  }
  if (missing.length) {
    // The sentences quote their input already (quoteInput); only how many are listed is capped.
    const more = missing.length - MAX_QUOTED_ITEMS;
    throw new AppError(
      'variable-not-found',
      `${missing.slice(0, MAX_QUOTED_ITEMS).join(' ')}${more > 0 ? ` And ${more} more.` : ''} Search at /v1/variables?search=… or /v1/tables?search=….`,
      {
        extensions: {
          unknown_variables: quoteList(
            parsed.items
              .filter((i) => i.kind !== 'catalog')
              .map((i) => quoteInput((i as { raw: string }).raw))
              .filter((r) => missing.some((m) => m.includes(r) || m.includes(r.replace('*', '')))),
          ).shown,
        },
      },
    );
  }
  if (out.length > MAX_EXPANDED_VARIABLES) {
    throw new AppError(
      'validation-error',
      `At most ${MAX_EXPANDED_VARIABLES} variables per request once tables are expanded; got ${out.length}. Ask for fewer tables at once.`,
      {
        errors: [{ field: 'variables', message: `at most ${MAX_EXPANDED_VARIABLES} variables after expansion`, type: 'too_long' }],
      },
    );
  }
  return out;
}

/**
 * Whether the Bureau publishes `code`'s table in this vintage and this build has not loaded it:
 * groups.json names the table, and its lines were not downloaded (an online selection of other
 * tables). Its codes are then not loaded rather than unknown (not_in_vintage, "unknown variable").
 */
export function notLoaded(ctx: { tables: CensusTableStore | undefined; dataset: DatasetKey }, code: string, vintage: number): boolean {
  return ctx.tables?.notLoaded(ctx.dataset, tableOf(code), vintage) ?? false;
}

/**
 * Whether the Bureau published `code` in this vintage: the metadata says so, or (a vintage whose
 * metadata this build lacks) the values themselves hold its table.
 */
export function isPublished(
  ctx: { tables: CensusTableStore | undefined; observations: ObservationStore; dataset: DatasetKey },
  code: string,
  vintage: number,
): boolean {
  if (ctx.tables?.info(ctx.dataset, code, vintage)) return true;
  return !ctx.tables?.hasVintageMetadata(ctx.dataset, vintage) && ctx.observations.hasTableAnyLevel(ctx.dataset, vintage, tableOf(code));
}
