// The shared engine behind data, compare and timeseries: for a dataset, vintages, catalog
// variables and resolved geographies, fetch what the build holds and produce one cell per
// vintage × geography × variable. Every null carries the precise reason (annotation code) and
// the reasons are summarised into a hint, so an empty answer always says why.
import { describeAnnotation, type AnnotationInfo } from '../../domain/annotations.js';
import { inferCensusUnit } from '../../domain/census-units.js';
import { datasetSpec, otherDataset, type DatasetKey } from '../../domain/datasets.js';
import { evaluateFormula, parseFormula, type Cell, type Formula } from '../../domain/formula.js';
import type { CatalogStore, Resolution } from '../../store/catalog.js';
import type { CensusTableStore } from '../../store/census-tables.js';
import type { GeographyRecord, GeographyStore } from '../../store/geographies.js';
import type { ObservationStore } from '../../store/observations.js';
import { StoredCells } from '../../store/stored-cells.js';
import { isCensusCode, isPublished, notLoaded, type RequestedVariable } from './variables.js';

/** One value as every data endpoint returns it (documented in docs/data.md). */
export interface ObservationCell {
  geo_key: string;
  geo_name: string;
  geo_type: string;
  variable: string;
  census_code: string | null;
  /** Derived variables: the declared formula over census codes; null for published codes. */
  formula: string | null;
  label: string;
  /** Null for a census code whose unit its table title does not settle (docs/tables.md). */
  unit: string | null;
  dataset: string;
  vintage: number;
  estimate: number | null;
  moe_numeric: number | null;
  estimate_annotation: AnnotationInfo | null;
  moe_annotation: AnnotationInfo | null;
  /** Census codes asked for by code only: the table, and what the code meant in this vintage. */
  table_id?: string;
  table_title?: string | null;
  universe?: string | null;
  /**
   * Census codes asked for by code only: set when this vintage's label or universe differs
   * materially from the code's latest vintage (the series is shown, not hidden; read with care).
   */
  label_changed?: LabelChange | null;
}

export interface LabelChange {
  code: 'label_changed';
  label_differs: boolean;
  universe_differs: boolean;
  latest_vintage: number;
  latest_label: string | null;
  latest_universe: string | null;
}

export interface EngineStores {
  observations: ObservationStore;
  geographies: GeographyStore;
  tables: CensusTableStore | undefined;
}

export interface EngineRequest {
  dataset: DatasetKey;
  vintages: number[];
  variables: RequestedVariable[];
  geographies: GeographyRecord[];
}

export interface EngineResult extends EngineSummary {
  cells: ObservationCell[];
}

/** What an answer says beside its values: why cells are null, and what is loaded (for hints). */
export interface EngineSummary {
  /** Annotation codes that made cells null, with how many cells each. */
  nullReasons: Map<string, number>;
  /** Loaded vintages per level, for hints. */
  loaded: Map<string, number[]>;
  /** The same for the other dataset (acs1 for acs5 and back), so a hint can point there. */
  loadedInOther: Map<string, number[]>;
}

const formulaCache = new Map<string, Formula>();
const formulaOf = (src: string) => {
  let f = formulaCache.get(src);
  if (!f) formulaCache.set(src, (f = parseFormula(src)));
  return f;
};

const nullCell = (code: string): Cell => ({ estimate: null, moe: null, estimate_annotation: code, moe_annotation: code });
const tableOf = (code: string) => code.slice(0, code.indexOf('_'));

/** How the cells of a census code asked for by code are described in one vintage. */
function describeCensusCode(tables: CensusTableStore | undefined, dataset: DatasetKey, code: string, vintage: number) {
  const here = tables?.info(dataset, code, vintage) ?? null;
  const latest = tables?.latest(dataset, code) ?? null;
  const changed = here && latest && (here.label_changed || here.universe_changed);
  const label_changed: LabelChange | null = changed
    ? {
        code: 'label_changed',
        label_differs: here.label_changed,
        universe_differs: here.universe_changed,
        latest_vintage: latest.vintage,
        latest_label: latest.label,
        latest_universe: latest.universe,
      }
    : null;
  const title = here?.table_title ?? latest?.table_title ?? null;
  return {
    label: here?.label ?? latest?.label ?? code,
    unit: inferCensusUnit(title),
    table_title: title,
    universe: here?.universe ?? latest?.universe ?? null,
    label_changed,
  };
}

/**
 * What every cell of one variable shares within a vintage (all but geography, value, dataset and
 * vintage), in the key order of a cell. The compact format lists exactly these per variable.
 */
export interface GridVariable {
  variable: string;
  census_code: string | null;
  formula: string | null;
  label: string;
  unit: string | null;
  table_id?: string;
  table_title?: string | null;
  universe?: string | null;
  label_changed?: LabelChange | null;
}

/**
 * The values of one level and vintage as a table: geographies × variables, row-major (value of
 * geography g, variable v at g · variables.length + v), each null with its annotation code.
 */
export interface GridSlice {
  level: string;
  vintage: number;
  geographies: readonly GeographyRecord[];
  variables: readonly GridVariable[];
  estimate: (number | null)[];
  moe: (number | null)[];
  estimate_annotation: (string | null)[];
  moe_annotation: (string | null)[];
}

/**
 * The engine's answer as tables rather than cells: large answers (tens of thousands of cells) are
 * rendered in the compact format without building a cell object each (cellsOf builds them for the
 * long format, in the same order). Slices come level by level (first-seen order), vintage by vintage.
 */
export interface EngineGrid extends EngineSummary {
  dataset: DatasetKey;
  slices: GridSlice[];
}

/** How many cells a grid holds (as cellsOf would build). */
export const gridCellCount = (grid: EngineGrid): number => grid.slices.reduce((n, s) => n + s.geographies.length * s.variables.length, 0);

/** The cells of a grid, in order: slice by slice, geography by geography, variable by variable. */
export function cellsOf(grid: EngineGrid): ObservationCell[] {
  const cells: ObservationCell[] = [];
  const dataset = grid.dataset;
  for (const s of grid.slices) {
    const nv = s.variables.length;
    for (let g = 0; g < s.geographies.length; g++) {
      const geo = s.geographies[g]!;
      for (let vi = 0; vi < nv; vi++) {
        const d = s.variables[vi]!;
        const i = g * nv + vi;
        // Every field written out: an object literal with spreads followed by more properties
        // costs ~35 µs a cell in V8 (Node 20) against ~0.6 µs written out (measured).
        const estimate_annotation = describeAnnotation(s.estimate_annotation[i]!);
        const moe_annotation = describeAnnotation(s.moe_annotation[i]!);
        const cell: ObservationCell = {
          geo_key: geo.key,
          geo_name: geo.name,
          geo_type: geo.type,
          variable: d.variable,
          census_code: d.census_code,
          formula: d.table_id !== undefined ? null : d.formula,
          label: d.label,
          unit: d.unit,
          dataset,
          vintage: s.vintage,
          estimate: s.estimate[i]!,
          moe_numeric: s.moe[i]!,
          estimate_annotation,
          moe_annotation,
        };
        // A census code asked for by code also says what it meant in this vintage (added after,
        // not spread in: see above).
        if (d.table_id !== undefined) {
          cell.table_id = d.table_id;
          cell.table_title = d.table_title;
          cell.universe = d.universe;
          cell.label_changed = d.label_changed;
        }
        cells.push(cell);
      }
    }
  }
  return cells;
}

export async function computeCells(
  stores: EngineStores,
  catalog: Pick<CatalogStore, 'resolveForVintage'>,
  req: EngineRequest,
): Promise<EngineResult> {
  const grid = await computeGrid(stores, catalog, req);
  return { cells: cellsOf(grid), nullReasons: grid.nullReasons, loaded: grid.loaded, loadedInOther: grid.loadedInOther };
}

/**
 * The values of a request as a grid: one slice per level (first-seen order) and vintage. In four
 * steps, each its own function below so a reader can take one at a time: group the geographies by
 * level (one stored read per level), resolve each variable once per vintage (not per cell), describe
 * what the cells of each variable share, then read the level's stored cells and fill each slice.
 */
export async function computeGrid(
  stores: EngineStores,
  catalog: Pick<CatalogStore, 'resolveForVintage'>,
  req: EngineRequest,
): Promise<EngineGrid> {
  const { observations: obs } = stores;
  const { resolvedByVintage, codes } = resolveVariables(stores, catalog, req);
  const variablesByVintage = describeVariables(stores, req, resolvedByVintage);
  const ctx: SliceContext = {
    stores,
    nullReasons: new Map<string, number>(),
    tableLoaded: tableLoadedMemo(obs, req.dataset),
    // The registry's threshold: acs1 publishes no area under 65,000.
    threshold: datasetSpec(req.dataset).populationThreshold,
  };
  const slices: GridSlice[] = [];
  const loaded = new Map<string, number[]>();
  const loadedInOther = new Map<string, number[]>();
  for (const [level, geos] of groupByLevel(req.geographies)) {
    // The registry's levels: acs1 publishes no tracts or block groups.
    const publishedAt = datasetSpec(req.dataset).levels.includes(level);
    loaded.set(level, obs.loadedVintages(req.dataset, level));
    loadedInOther.set(level, obs.loadedVintages(otherDataset(req.dataset), level));
    const stored = !publishedAt
      ? new StoredCells(codes)
      : await obs.fetch({ dataset: req.dataset, vintages: req.vintages, level, geoKeys: geos.map((g) => g.key), codes });
    for (const y of req.vintages) {
      slices.push(fillSlice(ctx, { level, vintage: y, geos, publishedAt, stored }, variablesByVintage.get(y)!, resolvedByVintage.get(y)!));
    }
  }
  return { dataset: req.dataset, slices, nullReasons: ctx.nullReasons, loaded, loadedInOther };
}

/** The geographies by level, in first-seen order: each level is one read of the stored cells. */
function groupByLevel(geographies: readonly GeographyRecord[]): Map<string, GeographyRecord[]> {
  const byLevel = new Map<string, GeographyRecord[]>();
  for (const g of geographies) {
    const list = byLevel.get(g.type);
    if (list) list.push(g);
    else byLevel.set(g.type, [g]);
  }
  return byLevel;
}

/**
 * Each variable resolved once per vintage and variable, not per cell (it does not depend on the
 * geography), and every code any vintage needs (what is read from the stored cells).
 */
function resolveVariables(
  stores: EngineStores,
  catalog: Pick<CatalogStore, 'resolveForVintage'>,
  req: EngineRequest,
): { resolvedByVintage: Map<number, Resolution[]>; codes: string[] } {
  const published = { tables: stores.tables, observations: stores.observations, dataset: req.dataset };
  const resolve = (v: RequestedVariable, y: number): Resolution => {
    if (!isCensusCode(v)) return catalog.resolveForVintage(v, req.dataset, y);
    if (isPublished(published, v.census_code, y)) return { kind: 'direct', code: v.census_code };
    return { kind: 'unavailable', reason: notLoaded(published, v.census_code, y) ? 'no_data_loaded' : 'not_in_vintage' };
  };
  const resolvedByVintage = new Map<number, Resolution[]>();
  const codes = new Set<string>();
  for (const y of req.vintages) {
    const resolved = req.variables.map((v) => resolve(v, y));
    resolvedByVintage.set(y, resolved);
    for (const r of resolved) {
      if (r.kind === 'direct') codes.add(r.code);
      else if (r.kind === 'derived') for (const c of r.codes) codes.add(c);
    }
  }
  return { resolvedByVintage, codes: [...codes] };
}

/** What every cell of a variable shares, once per vintage and variable, not per cell. */
function describeVariables(
  stores: EngineStores,
  req: EngineRequest,
  resolvedByVintage: Map<number, Resolution[]>,
): Map<number, GridVariable[]> {
  const variablesByVintage = new Map<number, GridVariable[]>();
  for (const y of req.vintages) {
    const resolved = resolvedByVintage.get(y)!;
    variablesByVintage.set(
      y,
      req.variables.map((v, vi): GridVariable => {
        if (isCensusCode(v)) {
          const d = describeCensusCode(stores.tables, req.dataset, v.census_code, y);
          return {
            variable: v.api_name,
            census_code: v.census_code,
            formula: null,
            label: d.label,
            unit: d.unit,
            table_id: v.table_id,
            table_title: d.table_title,
            universe: d.universe,
            label_changed: d.label_changed,
          };
        }
        const r = resolved[vi]!;
        return {
          variable: v.api_name,
          census_code: r.kind === 'direct' ? r.code : v.census_code,
          formula: v.formula,
          label: v.label,
          unit: v.unit,
        };
      }),
    );
  }
  return variablesByVintage;
}

/** Whether a table is loaded, asked per vintage, level and table rather than per missing cell (answers of 30,000+ cells). */
function tableLoadedMemo(obs: ObservationStore, dataset: DatasetKey): (y: number, level: string, table: string) => boolean {
  const tablesLoaded = new Map<string, boolean>();
  return (y, level, table) => {
    const k = `${y}|${level}|${table}`;
    let loaded = tablesLoaded.get(k);
    if (loaded === undefined) tablesLoaded.set(k, (loaded = obs.hasTable(dataset, y, level, table)));
    return loaded;
  };
}

/** What every slice of one request shares while it is filled. */
interface SliceContext {
  stores: EngineStores;
  /** Counts of each null's annotation over the whole grid (meta). */
  nullReasons: Map<string, number>;
  tableLoaded: (y: number, level: string, table: string) => boolean;
  threshold: number | null;
}

/** One level and vintage: its geographies, whether the dataset publishes the level, and the level's stored cells. */
interface SliceSource {
  level: string;
  vintage: number;
  geos: readonly GeographyRecord[];
  publishedAt: boolean;
  stored: StoredCells;
}

/**
 * One slice: every geography × variable of a level and vintage, from the stored cells, each
 * missing value null with the reason it is missing. The hot loop of large answers: the comments
 * say what each shape saves.
 */
function fillSlice(ctx: SliceContext, src: SliceSource, variables: readonly GridVariable[], resolved: readonly Resolution[]): GridSlice {
  const { nullReasons } = ctx;
  const { level, vintage: y, geos, stored } = src;
  const nv = resolved.length;
  const size = geos.length * nv;
  const slice: GridSlice = {
    level,
    vintage: y,
    geographies: geos,
    variables,
    estimate: new Array<number | null>(size),
    moe: new Array<number | null>(size),
    estimate_annotation: new Array<string | null>(size),
    moe_annotation: new Array<string | null>(size),
  };
  // Column of each directly resolved variable's code in the stored cells.
  const columns = resolved.map((r) => (r.kind === 'direct' ? stored.column(r.code) : -1));
  const absentReason = absentReasonOf(ctx, src);
  for (let gi = 0; gi < geos.length; gi++) {
    const g = geos[gi]!;
    // One lookup per geography and vintage; the codes are read by column.
    const block = stored.block(y, g.key);
    // Only derived variables read codes by name (a closure per geography otherwise).
    let get: ((code: string) => Cell) | undefined;

    for (let vi = 0; vi < nv; vi++) {
      const r = resolved[vi]!;
      const i = gi * nv + vi;
      let cell: Cell;
      if (r.kind === 'direct') {
        // The common case, written straight into the grid.
        if (stored.copyTo(block, columns[vi]!, slice, i)) {
          const ea = slice.estimate_annotation[i]!;
          if (slice.estimate[i] === null && ea) nullReasons.set(ea, (nullReasons.get(ea) ?? 0) + 1);
          continue;
        }
        cell = nullCell(absentReason(gi, r.code));
      } else if (r.kind === 'unavailable') cell = nullCell(r.reason);
      else {
        // A derived value whose components are simply not in the data takes their reason
        // (e.g. no_data_loaded), not the generic "derived from annotated".
        const missing = r.codes.find((c) => !stored.found(block, stored.column(c)));
        get ??= (code: string): Cell => stored.at(block, stored.column(code)) ?? nullCell(absentReason(gi, code));
        cell = missing ? nullCell(absentReason(gi, missing)) : evaluateFormula(formulaOf(r.formula), get);
      }
      if (cell.estimate === null && cell.estimate_annotation) {
        nullReasons.set(cell.estimate_annotation, (nullReasons.get(cell.estimate_annotation) ?? 0) + 1);
      }
      slice.estimate[i] = cell.estimate;
      slice.moe[i] = cell.moe;
      slice.estimate_annotation[i] = cell.estimate_annotation;
      slice.moe_annotation[i] = cell.moe_annotation;
    }
  }
  return slice;
}

/**
 * Why a stored value is absent, for geography `gi` of a slice and a code. Made once per slice, not
 * per geography: two closures per geography were ~3% of an all-counties answer's CPU (each also
 * named by the TypeScript loader).
 */
function absentReasonOf(ctx: SliceContext, src: SliceSource): (gi: number, code: string) => string {
  const { level, vintage: y, geos, publishedAt } = src;
  const { threshold } = ctx;
  // Whether each geography is undefined in this vintage: looked up on its first missing cell
  // only (a record lookup per missing cell was ~8% of an all-counties answer's CPU); 0 unknown.
  const undefinedIn = new Int8Array(geos.length);
  return (gi, code) => {
    const g = geos[gi]!;
    if (!publishedAt) return 'not_in_dataset';
    // A geography that does not exist in this vintage has no value, whatever is loaded.
    if (undefinedIn[gi] === 0) undefinedIn[gi] = ctx.stores.geographies.get(g.key, y) === null ? 1 : -1;
    if (undefinedIn[gi] === 1) return 'geography_not_defined';
    if (threshold !== null && level !== 'nation' && level !== 'state' && g.population !== null && g.population < threshold) {
      return 'below_acs1_threshold';
    }
    if (!ctx.tableLoaded(y, level, tableOf(code))) return 'no_data_loaded';
    return 'not_published';
  };
}
