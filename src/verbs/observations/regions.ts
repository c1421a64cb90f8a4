// Custom regions in data requests: resolve each region's members with the ordinary resolver (keys,
// wildcards and names, the plan's gates and expansion limit), fetch the members' values through the
// engine, and answer one row per region: counts summed (domain/regions/aggregate.ts), derived
// variables evaluated on the summed components (so a percent of a region is the proportion of its
// aggregated numerator and denominator, with the handbook's proportion MOE), medians estimated from
// their distribution where one is known (domain/regions/median.ts), anything else null with a reason.
import { puertoRicoCaveat, type RegionCaveat } from '../../domain/regions/puerto-rico.js';
import { AppError } from '../../domain/errors.js';
import { evaluateFormula, parseFormula, type Cell, type Formula } from '../../domain/formula.js';
import type { GeoType } from '../../domain/geo/keys.js';
import { additivityOf } from '../../domain/regions/additive.js';
import { aggregateCount, type MemberCell, type RegionCell } from '../../domain/regions/aggregate.js';
import { extractRegions, type RegionSpec } from '../../domain/regions/specifier.js';
import type { GeoTerm } from '../../domain/cost.js';
import type { Resolution } from '../../store/catalog.js';
import type { GeographyRecord } from '../../store/geographies.js';
import { parseGeoList, type GeoSpecifier } from '../../domain/geo/specifier.js';
import { resolveSpecifiers, type ResolvedGeographies, type ResolveOptions } from '../resolve-geographies.js';
import { computeGridShared } from './answer-cache.js';
import { answerKeyOfRequest } from './answer-key.js';
import { cellsOf, type EngineGrid, type EngineResult, type GridSlice } from './engine.js';
import { isCensusCode, type CensusCodeVariable, type RequestedVariable } from './variables.js';
import type { PreparedRequest } from './prepare.js';
import { geoTermsOf } from './geo-terms.js';
import { medianFromDistribution } from './region-medians.js';

export { extractRegions };

/** A region as answered: its own key and name, the level and the members of a vintage. */
export interface ResolvedRegion {
  spec: string;
  /** `region(county:06001,county:06013)` (members sorted) or `region:<saved name>`. */
  key: string;
  name: string;
  level: GeoType;
  members: GeographyRecord[];
  /** The members' resolution: its expansions price the region as its members (domain/cost.ts). */
  resolution: ResolvedGeographies;
}

/** Where a saved region's members come from (the caller's account); null when it has none of that name. */
export type SavedRegionLookup = (name: string) => Promise<{ name: string; members: string } | null>;

export const REGION_MOE_NOTE =
  "Custom regions: counts are the sums of the members' published estimates; their MOE is √ΣMOE², and percents and ratios use the proportion and ratio formulas on the summed components — the Census Bureau's approximations for derived estimates (Understanding and Using American Community Survey Data: What All Data Users Need to Know, 2020, ch. 8 'Calculating Measures of Error for Derived Estimates'). They treat the members as independent, so the MOE is an approximation (docs/moe.md).";

const PLURAL: Record<GeoType, string> = {
  nation: 'nations',
  state: 'states',
  county: 'counties',
  metro: 'metros',
  cd: 'congressional districts',
  tract: 'tracts',
  block_group: 'block groups',
};

function regionName(level: GeoType, members: readonly GeographyRecord[], saved: string | null): string {
  const shown = members.slice(0, members.length <= 5 ? 5 : 3).map((m) => m.name);
  const more = members.length - shown.length;
  const list = `${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
  return `${saved ? `Region "${saved}"` : 'Region'} of ${members.length} ${members.length === 1 ? level.replace('_', ' ') : PLURAL[level]}: ${list}`;
}

/** Saved regions with their members read from the account (404 for a name it does not have). */
export async function readSavedRegions(specs: readonly RegionSpec[], saved?: SavedRegionLookup): Promise<RegionSpec[]> {
  const out: RegionSpec[] = [];
  for (const spec of specs) {
    if (spec.kind !== 'saved' || spec.members !== undefined) {
      out.push(spec);
      continue;
    }
    const found = saved ? await saved(spec.name) : null;
    if (!found) {
      throw new AppError(
        'geography-not-found',
        `${spec.raw}: your account has no saved region named "${spec.name}" (GET /v1/account/regions lists them).`,
        { extensions: { geo: spec.raw } },
      );
    }
    out.push({ ...spec, members: found.members });
  }
  return out;
}

/** A region with its members parsed (once: prepare.ts reads their levels before resolving them). */
export type ParsedRegionSpec = RegionSpec & { parsed?: readonly GeoSpecifier[] };

/** Resolve regions for one vintage; saved regions are read through `saved` (absent: refused). */
export async function resolveRegions(
  store: Parameters<typeof resolveSpecifiers>[0],
  specs: readonly ParsedRegionSpec[],
  opts: ResolveOptions,
  saved?: SavedRegionLookup,
): Promise<ResolvedRegion[]> {
  const out: ResolvedRegion[] = [];
  for (const spec of specs) {
    const [read] = await readSavedRegions([spec], saved);
    const resolution = resolveSpecifiers(store, spec.parsed ?? parseGeoList(read!.members!), opts);
    const levels = [...new Set(resolution.geographies.map((g) => g.type))];
    if (levels.length !== 1) {
      throw new AppError(
        'unprocessable-request',
        `${spec.raw} mixes geography levels (${levels.join(', ')}): a region's members are of one level, e.g. region(county:06001,county:06013).`,
        { errors: [{ field: 'geo', message: 'A region has members of one level', type: 'value_error' }], extensions: { geo: spec.raw } },
      );
    }
    const level = levels[0]!;
    const sorted = [...resolution.geographies].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const key = spec.kind === 'saved' ? spec.raw : `region(${sorted.map((g) => g.key).join(',')})`;
    out.push({
      spec: spec.raw,
      key,
      name: regionName(level, sorted, spec.kind === 'saved' ? spec.name : null),
      level,
      members: sorted,
      resolution,
    });
  }
  return out;
}

/** What a region costs: what its members would cost asked for one by one or by their wildcard. */
export const regionGeoTerms = (regions: readonly ResolvedRegion[]): GeoTerm[] => regions.flatMap((r) => geoTermsOf(r.resolution));

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
 * meta says of them. The members' values come from the engine (answer cache included).
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
  const nv = p.variables.length;
  const resolve = (v: RequestedVariable, y: number): Resolution =>
    isCensusCode(v) ? { kind: 'direct', code: v.census_code } : catalog.resolveForVintage(v, dataset, y);
  const titleOf = (code: string, y: number): string | null =>
    tables?.info(dataset, code, y)?.table_title ?? tables?.latest(dataset, code)?.table_title ?? null;

  // The codes each variable needs from the members beyond its own column: derived components, and
  // the distribution of a median.
  const extra = new Set<string>();
  for (const y of vintages) {
    for (const v of p.variables) {
      const r = resolve(v, y);
      if (r.kind === 'derived') for (const c of r.codes) extra.add(c);
      else if (r.kind === 'direct') for (const c of medianFromDistribution.codesFor(r.code, y)) extra.add(c);
    }
  }
  const extraCodes = [...extra];
  const variables = [...p.variables, ...extraCodes.map(codeVariable)];
  const column = new Map(extraCodes.map((c, i) => [c, nv + i]));

  for (const region of regions) {
    const req = { dataset, vintages: [...vintages], variables, geographies: region.members };
    const stores = { observations: p.stores.observations, geographies: p.stores.geographies, tables };
    const grid = await computeGridShared(stores, catalog, req, answerKeyOfRequest(req));
    for (const [k, v] of grid.loaded) loaded.set(k, v);
    for (const [k, v] of grid.loadedInOther) loadedInOther.set(k, v);
    const missing: RegionMissing[] = [];
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
    for (const s of grid.slices) {
      const nm = s.variables.length;
      const membersOf = (col: number): MemberCell[] =>
        s.geographies.map((g, gi) => ({
          geo_key: g.key,
          estimate: s.estimate[gi * nm + col]!,
          moe: s.moe[gi * nm + col]!,
          estimate_annotation: s.estimate_annotation[gi * nm + col]!,
          moe_annotation: s.moe_annotation[gi * nm + col]!,
        }));
      const slice: GridSlice = {
        level: 'region',
        vintage: s.vintage,
        // A region is no level of the geography tables; its record carries its own key and name.
        geographies: [record as unknown as GeographyRecord],
        variables: s.variables.slice(0, nv),
        estimate: [],
        moe: [],
        estimate_annotation: [],
        moe_annotation: [],
      };
      const aggregated = new Map<string, RegionCell>();
      const sumOf = (code: string, col: number): RegionCell => {
        let r = aggregated.get(code);
        if (!r) {
          const additive = additivityOf(titleOf(code, s.vintage));
          r = additive.additive ? aggregateCount(membersOf(col)) : { cell: nullCell('not_additive'), missing: null };
          aggregated.set(code, r);
        }
        return r;
      };
      for (let vi = 0; vi < nv; vi++) {
        const v = p.variables[vi]!;
        const r = resolve(v, s.vintage);
        let out: RegionCell;
        if (r.kind === 'unavailable') out = { cell: nullCell(r.reason), missing: null };
        else if (r.kind === 'direct') {
          const median = medianFromDistribution.codesFor(r.code, s.vintage);
          if (median.length > 0) {
            const parts = median.map((c) => sumOf(c, column.get(c)!));
            const gap = parts.find((x) => x.missing !== null);
            out = gap ?? {
              cell: medianFromDistribution.estimate(
                r.code,
                s.vintage,
                parts.map((x) => x.cell),
              ),
              missing: null,
            };
          } else out = sumOf(r.code, vi);
        } else {
          const parts = r.codes.map((c) => sumOf(c, column.get(c)!));
          const gap = parts.find((x) => x.missing !== null);
          const notAdditive = parts.some((x) => x.cell.estimate_annotation === 'not_additive');
          if (gap) out = gap;
          else if (notAdditive) out = { cell: nullCell('not_additive'), missing: null };
          else {
            const byCode = new Map(r.codes.map((c, i) => [c, parts[i]!.cell]));
            out = { cell: evaluateFormula(formulaOf(r.formula), (c) => byCode.get(c)!), missing: null };
          }
        }
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
      slices.push(slice);
    }
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
