// The answers of repeated identical data requests, kept. A build never changes once live, so the
// engine's answer to the same request (dataset, vintages, variables as resolved, geographies) is
// the same every time (keys: answer-key.ts): on all states × 10 variables, building the 520 cells and their labels was
// ~12% of the request's CPU and rendering them as JSON (the response schema's pass and
// JSON.stringify) ~20% more. Kept here: the engine's grid (engine.ts), per observation store (so
// per build), least recently used out, and beside it, built on first use, the long-format cells
// (small answers only: a cell object is ~0.5 KB) and the compact table. Only where the store keeps
// query results (OBSERVATION_CACHE_CELLS > 0: with the cache off, nothing is kept here either).
// Answers handed out from here are marked shared (isSharedAnswer, isSharedCompact): nobody may
// modify them, and the transport may keep their rendered JSON beside them (route-helpers.ts).
import { AnswerCache } from '../../store/answer-cache.js';
import type { CatalogStore } from '../../store/catalog.js';
import { storeMetrics } from '../../store/metrics.js';
import type { ObservationStore } from '../../store/observations.js';
import type { AnswerKey } from './answer-key.js';
import { compactGrid, type CompactData } from './compact.js';
import {
  cellsOf,
  computeGrid,
  gridCellCount,
  type EngineGrid,
  type EngineRequest,
  type EngineResult,
  type EngineStores,
} from './engine.js';

/**
 * Answers up to this many cells keep their cell objects (and, in the transport, their rendered
 * long-format JSON): ~1 KB a cell with both. Larger answers keep only the grid and compact table
 * (~150 bytes a cell with the compact JSON); the long format streams them cell by cell anyway.
 */
const SMALL_ANSWER_CELLS = 12_500;
/** Weight of an answer: its cells, a large answer's at a quarter (it keeps no cell objects). */
const weightOf = (cells: number) => (cells <= SMALL_ANSWER_CELLS ? cells : Math.ceil(cells / 4));
/** Weight kept in all, per build: ~100 MB at most. */
const MAX_WEIGHT = 100_000;
/** Answers weighing more than this are not kept (one must not flush the rest): 100,000 cells. */
const MAX_ANSWER_WEIGHT = MAX_WEIGHT / 4;

interface Kept {
  grid: EngineGrid;
  cells: number;
  result?: EngineResult;
  compact?: CompactData;
}

const sharedCells = new WeakSet<object>();
const sharedCompact = new WeakSet<object>();
const keptOf = new WeakMap<EngineGrid, Kept>();

/** Whether `cells` came from the answer cache, so the same array is served again (never modify it). */
export const isSharedAnswer = (cells: object): boolean => sharedCells.has(cells);
/** The same for a compact table. */
export const isSharedCompact = (data: object): boolean => sharedCompact.has(data);

const caches = new WeakMap<ObservationStore, AnswerCache<Kept>>();

/** The engine's own objects frozen (not the geography records it points at: those are the store's). */
function freezeGrid(grid: EngineGrid): EngineGrid {
  for (const s of grid.slices) {
    for (const v of s.variables) Object.freeze(v);
    for (const part of [s.variables, s.estimate, s.moe, s.estimate_annotation, s.moe_annotation, s]) Object.freeze(part);
  }
  Object.freeze(grid.slices);
  return Object.freeze(grid);
}

/**
 * computeGrid, answered from the cache for a request seen before on this build. `key` says what was
 * asked (answer-key.ts): a verb's parsed input when the grid is that verb's answer, else `req`.
 */
export async function computeGridShared(
  stores: EngineStores,
  catalog: Pick<CatalogStore, 'resolveForVintage'>,
  req: EngineRequest,
  key: AnswerKey,
): Promise<EngineGrid> {
  const obs = stores.observations;
  const size = req.vintages.length * req.variables.length * req.geographies.length;
  if (!obs.cachesResults || weightOf(size) > MAX_ANSWER_WEIGHT) return computeGrid(stores, catalog, req);
  let cache = caches.get(obs);
  if (!cache) caches.set(obs, (cache = new AnswerCache<Kept>(MAX_WEIGHT, (k) => weightOf(k.cells))));
  const hit = cache.get(key);
  storeMetrics.cache('data_answers', hit !== undefined);
  if (hit) return hit.grid;
  const grid = freezeGrid(await computeGrid(stores, catalog, req));
  const kept: Kept = { grid, cells: gridCellCount(grid) };
  keptOf.set(grid, kept);
  cache.set(key, kept);
  return grid;
}

/**
 * For a grid handed out from the cache, an object that stands for it for as long as it is kept (the
 * transport keeps rendered bytes under it); undefined for a grid computed afresh.
 */
export const sharedKeyOf = (grid: EngineGrid): object | undefined => keptOf.get(grid);

/** cellsOf, kept beside a shared grid of a small answer so a repeated request builds no cell. */
export function cellsShared(grid: EngineGrid): EngineResult {
  const kept = keptOf.get(grid);
  if (kept?.result) return kept.result;
  const result: EngineResult = {
    cells: cellsOf(grid),
    nullReasons: grid.nullReasons,
    loaded: grid.loaded,
    loadedInOther: grid.loadedInOther,
  };
  if (kept && kept.cells <= SMALL_ANSWER_CELLS) {
    Object.freeze(result.cells);
    sharedCells.add(result.cells);
    kept.result = result;
  }
  return result;
}

/** compactGrid, kept beside a shared grid so a repeated request renders nothing. */
export function compactShared(grid: EngineGrid, fallback: { dataset: string; vintage: number }): CompactData {
  const kept = keptOf.get(grid);
  if (kept?.compact) return kept.compact;
  const compact = compactGrid(grid, fallback);
  if (kept) {
    // Frozen at the top only: its arrays are fresh, and nothing but the renderer reads them.
    Object.freeze(compact);
    sharedCompact.add(compact);
    kept.compact = compact;
  }
  return compact;
}
