// Custom regions in data requests: resolve each region's members with the ordinary resolver (keys,
// wildcards and names, the plan's gates and expansion limit), fetch the members' values through the
// engine, and answer one row per region: counts summed (domain/regions/aggregate.ts), derived
// variables evaluated on the summed components (so a percent of a region is the proportion of its
// aggregated numerator and denominator, with the handbook's proportion MOE), medians estimated from
// their distribution where one is known (domain/regions/median.ts), anything else null with a reason.
import { puertoRicoCaveat, type RegionCaveat } from '../../domain/regions/puerto-rico.js';
import { evaluateFormula, parseFormula, type Cell, type Formula } from '../../domain/formula.js';
import type { GeoType } from '../../domain/geo/keys.js';
import { additivityOf } from '../../domain/regions/additive.js';
import { aggregateCount, type MemberCell, type RegionCell } from '../../domain/regions/aggregate.js';
import type { Resolution } from '../../store/catalog.js';
import type { GeographyRecord } from '../../store/geographies.js';
import { computeGridShared } from './answer-cache.js';
import { answerKeyOfRequest } from './answer-key.js';
import { cellsOf, type EngineGrid, type EngineResult, type GridSlice } from './engine.js';
import { isCensusCode, type CensusCodeVariable, type RequestedVariable } from './variables.js';
import type { PreparedRequest } from './prepare.js';
import type { ResolvedRegion } from './resolve-regions.js';
import { medianFromDistribution } from './region-medians.js';

export const REGION_MOE_NOTE =
  "Custom regions: counts are the sums of the members' published estimates; their MOE is √ΣMOE², and percents and ratios use the proportion and ratio formulas on the summed components — the Census Bureau's approximations for derived estimates (Understanding and Using American Community Survey Data: What All Data Users Need to Know, 2020, ch. 8 'Calculating Measures of Error for Derived Estimates'). They treat the members as independent, so the MOE is an approximation (docs/moe.md).";

/** Why a region's value is null, per variable and vintage (meta.regions[].missing). */
export interface RegionMissing {
  variable: string;
  vintage: number;
  reason: string;
  members: { geo_key: string; reason: string | null }[];
}

/** What meta says of each region. */
export interface RegionMeta {
  geo_key: string;
  geo_name: string;
  level: GeoType;
  member_count: number;
  members: string[];
  missing: RegionMissing[];
  /** What the region is not, said in the answer: e.g. with Puerto Rico it is not the nation (domain/regions/puerto-rico.ts). */
  caveats: RegionCaveat[];
}

const formulaCache = new Map<string, Formula>();
const formulaOf = (src: string): Formula => {
  let f = formulaCache.get(src);
  if (!f) formulaCache.set(src, (f = parseFormula(src)));
  return f;
};

const nullCell = (code: string): Cell => ({ estimate: null, moe: null, estimate_annotation: code, moe_annotation: code });
const tableOf = (code: string) => code.slice(0, code.indexOf('_'));
const codeVariable = (code: string): CensusCodeVariable => ({
  source: 'census_code',
  api_name: code,
  census_code: code,
  table_id: tableOf(code),
});
/** Members named in meta for one missing value: enough to act on, not the whole of a large region. */
const MISSING_NAMED = 25;

/**
 * The regions' rows, one slice per region and vintage, each with the requested variables; and what
 * meta says of them. The members' values come from the engine (answer cache included). In steps:
 * which columns to read from the members (memberColumns), then per region its members' grid, and
 * per member slice one region row (regionSlice), each value aggregated by regionCell.
 */
export async function regionGrid(
  p: PreparedRequest,
  regions: readonly ResolvedRegion[],
  vintages: readonly number[],
): Promise<{ slices: GridSlice[]; summary: Pick<EngineGrid, 'nullReasons' | 'loaded' | 'loadedInOther'>; meta: RegionMeta[] }> {
  const slices: GridSlice[] = [];
  const nullReasons = new Map<string, number>();
  const loaded = new Map<string, number[]>();
  const loadedInOther = new Map<string, number[]>();
  const meta: RegionMeta[] = [];
  const { catalog, tables } = p.stores;
  const dataset = p.dataset;
  const resolve = (v: RequestedVariable, y: number): Resolution =>
    isCensusCode(v) ? { kind: 'direct', code: v.census_code } : catalog.resolveForVintage(v, dataset, y);
  const { variables, column } = memberColumns(p.variables, resolve, vintages);
  const ctx: RegionContext = {
    p,
    nullReasons,
    resolve,
    titleOf: (code, y) => tables?.info(dataset, code, y)?.table_title ?? tables?.latest(dataset, code)?.table_title ?? null,
    column,
  };

  for (const region of regions) {
    const req = { dataset, vintages: [...vintages], variables, geographies: region.members };
    const stores = { observations: p.stores.observations, geographies: p.stores.geographies, tables };
    const grid = await computeGridShared(stores, catalog, req, answerKeyOfRequest(req));
    for (const [k, v] of grid.loaded) loaded.set(k, v);
    for (const [k, v] of grid.loadedInOther) loadedInOther.set(k, v);
    const missing: RegionMissing[] = [];
    const record = regionRecord(region);
    for (const s of grid.slices) slices.push(regionSlice(ctx, record, s, missing));
    meta.push({
      geo_key: region.key,
      geo_name: region.name,
      level: region.level,
      member_count: region.members.length,
      members: region.members.map((m) => m.key),
      missing,
      caveats: [puertoRicoCaveat(region.members, region.level)].filter((c): c is RegionCaveat => c !== null),
    });
  }
  return { slices, summary: { nullReasons, loaded, loadedInOther }, meta };
}

/** What every region row of one request shares while it is built. */
interface RegionContext {
  p: PreparedRequest;
  /** Counts of each null's annotation over the regions' rows (meta). */
  nullReasons: Map<string, number>;
  resolve: (v: RequestedVariable, y: number) => Resolution;
  /** A code's table title (whether its counts add up: domain/regions/additive.ts). */
  titleOf: (code: string, y: number) => string | null;
  /** The column of each extra code (memberColumns) in the members' grid. */
  column: Map<string, number>;
}

/**
 * What is read from the members: the requested variables, then the codes a variable needs beyond
 * its own column (derived components, and the distribution of a median), each as a column of its
 * own after the requested ones.
 */
function memberColumns(
  requested: readonly RequestedVariable[],
  resolve: (v: RequestedVariable, y: number) => Resolution,
  vintages: readonly number[],
): { variables: RequestedVariable[]; column: Map<string, number> } {
  const nv = requested.length;
  const extra = new Set<string>();
  for (const y of vintages) {
    for (const v of requested) {
      const r = resolve(v, y);
      if (r.kind === 'derived') for (const c of r.codes) extra.add(c);
      else if (r.kind === 'direct') for (const c of medianFromDistribution.codesFor(r.code, y)) extra.add(c);
    }
  }
  const extraCodes = [...extra];
  return { variables: [...requested, ...extraCodes.map(codeVariable)], column: new Map(extraCodes.map((c, i) => [c, nv + i])) };
}

/** A region's row record: a member's record with the region's own key and name. */
function regionRecord(region: ResolvedRegion): GeographyRecord {
  const record = {
    ...region.members[0]!,
    key: region.key,
    name: region.name,
    type: 'region',
    fips: '',
    parent_key: null,
    population: null,
    point: null,
  };
  // A region is no level of the geography tables; its record carries its own key and name.
  return record as unknown as GeographyRecord;
}

/**
 * One region row for one vintage, from the members' slice of that vintage: each requested variable
 * aggregated (regionCell), and why a value is null where members are missing (into `missing`).
 */
function regionSlice(ctx: RegionContext, record: GeographyRecord, s: GridSlice, missing: RegionMissing[]): GridSlice {
  const { p, nullReasons } = ctx;
  const nv = p.variables.length;
  const slice: GridSlice = {
    level: 'region',
    vintage: s.vintage,
    geographies: [record],
    variables: s.variables.slice(0, nv),
    estimate: [],
    moe: [],
    estimate_annotation: [],
    moe_annotation: [],
  };
  const sumOf = memberSums(ctx, s);
  for (let vi = 0; vi < nv; vi++) {
    const v = p.variables[vi]!;
    const out = regionCell(ctx, ctx.resolve(v, s.vintage), vi, s.vintage, sumOf);
    const c = out.cell;
    slice.estimate.push(c.estimate);
    slice.moe.push(c.moe);
    slice.estimate_annotation.push(c.estimate_annotation);
    slice.moe_annotation.push(c.moe_annotation);
    if (c.estimate === null && c.estimate_annotation)
      nullReasons.set(c.estimate_annotation, (nullReasons.get(c.estimate_annotation) ?? 0) + 1);
    if (out.missing) {
      missing.push({
        variable: v.api_name,
        vintage: s.vintage,
        reason: c.estimate_annotation ?? 'region_member_missing',
        members: out.missing.members.slice(0, MISSING_NAMED),
      });
    }
  }
  return slice;
}

/**
 * The members' sum of one code (its column in the members' slice), summed once per slice however
 * many variables read it; null as not_additive where the code's table does not add up.
 */
function memberSums(ctx: RegionContext, s: GridSlice): (code: string, col: number) => RegionCell {
  const nm = s.variables.length;
  const membersOf = (col: number): MemberCell[] =>
    s.geographies.map((g, gi) => ({
      geo_key: g.key,
      estimate: s.estimate[gi * nm + col]!,
      moe: s.moe[gi * nm + col]!,
      estimate_annotation: s.estimate_annotation[gi * nm + col]!,
      moe_annotation: s.moe_annotation[gi * nm + col]!,
    }));
  const aggregated = new Map<string, RegionCell>();
  return (code, col) => {
    let r = aggregated.get(code);
    if (!r) {
      const additive = additivityOf(ctx.titleOf(code, s.vintage));
      r = additive.additive ? aggregateCount(membersOf(col)) : { cell: nullCell('not_additive'), missing: null };
      aggregated.set(code, r);
    }
    return r;
  };
}

/**
 * One region value: a count summed; a median estimated from its summed distribution; a derived
 * variable evaluated on its summed components (null if any is missing or does not add up).
 */
function regionCell(
  ctx: RegionContext,
  r: Resolution,
  vi: number,
  vintage: number,
  sumOf: (code: string, col: number) => RegionCell,
): RegionCell {
  if (r.kind === 'unavailable') return { cell: nullCell(r.reason), missing: null };
  if (r.kind === 'direct') {
    const median = medianFromDistribution.codesFor(r.code, vintage);
    if (median.length === 0) return sumOf(r.code, vi);
    const parts = median.map((c) => sumOf(c, ctx.column.get(c)!));
    const gap = parts.find((x) => x.missing !== null);
    return (
      gap ?? {
        cell: medianFromDistribution.estimate(
          r.code,
          vintage,
          parts.map((x) => x.cell),
        ),
        missing: null,
      }
    );
  }
  const parts = r.codes.map((c) => sumOf(c, ctx.column.get(c)!));
  const gap = parts.find((x) => x.missing !== null);
  if (gap) return gap;
  if (parts.some((x) => x.cell.estimate_annotation === 'not_additive')) return { cell: nullCell('not_additive'), missing: null };
  const byCode = new Map(r.codes.map((c, i) => [c, parts[i]!.cell]));
  return { cell: evaluateFormula(formulaOf(r.formula), (c) => byCode.get(c)!), missing: null };
}

/** A grid with the regions' rows after the ordinary geographies', and the null reasons of both. */
export function withRegionSlices(grid: EngineGrid, regions: Awaited<ReturnType<typeof regionGrid>>): EngineGrid {
  if (regions.slices.length === 0) return grid;
  const nullReasons = new Map(grid.nullReasons);
  for (const [k, n] of regions.summary.nullReasons) nullReasons.set(k, (nullReasons.get(k) ?? 0) + n);
  return {
    dataset: grid.dataset,
    slices: [...grid.slices, ...regions.slices],
    nullReasons,
    loaded: new Map([...regions.summary.loaded, ...grid.loaded]),
    loadedInOther: new Map([...regions.summary.loadedInOther, ...grid.loadedInOther]),
  };
}

/** What meta says of an answer with regions: rows counted with them, each region described, the method noted. */
export function regionMeta(p: PreparedRequest, regions: { meta: RegionMeta[] }): Record<string, unknown> {
  if (p.regions.length === 0) return {};
  const notes = [...p.geo.notes];
  for (const r of p.regions) for (const n of r.resolution.notes) if (!notes.includes(n)) notes.push(n);
  for (const r of regions.meta) for (const c of r.caveats) notes.push(`${r.geo_key}: ${c.detail}`);
  notes.push(REGION_MOE_NOTE);
  return { geography_count: p.geo.geographies.length + p.regions.length, regions: regions.meta, notes };
}

/** The keys of an answer's rows in order: the listed geographies', then the regions'. */
export const rowKeysOf = (p: PreparedRequest): string[] => [...p.geo.geographies.map((g) => g.key), ...p.regions.map((r) => r.key)];

/** computeCells with the regions' rows after the listed geographies' (compare and timeseries). */
export async function computeCellsWithRegions(p: PreparedRequest, vintages: number[]): Promise<EngineResult & { regions: RegionMeta[] }> {
  const req = { dataset: p.dataset, vintages, variables: p.variables, geographies: p.geo.geographies };
  const grid = await computeGridShared(p.stores, p.stores.catalog, req, answerKeyOfRequest(req));
  const regions = p.regions.length ? await regionGrid(p, p.regions, vintages) : null;
  const all = regions ? withRegionSlices(grid, regions) : grid;
  return {
    cells: cellsOf(all),
    nullReasons: all.nullReasons,
    loaded: all.loaded,
    loadedInOther: all.loadedInOther,
    regions: regions?.meta ?? [],
  };
}
