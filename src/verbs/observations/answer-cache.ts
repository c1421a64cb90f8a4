// The cells of repeated identical data requests, kept. A build never changes once live, so the
// engine's answer to the same request (dataset, vintages, variables as resolved, geographies) is
// the same every time: on all states × 10 variables, building the 520 cells and their labels was
// ~12% of the request's CPU and rendering them as JSON (the response schema's pass and
// JSON.stringify) ~20% more. Kept here: the cells, per observation store (so per build), bounded
// by cells in all (least recently used out), and only where the store keeps query results
// (OBSERVATION_CACHE_CELLS > 0: with the cache off, nothing is kept here either). Answers handed
// out from here are marked shared (isSharedAnswer): nobody may modify them, and the transport
// may keep their rendered JSON beside them (route-helpers.ts).
import { AnswerCache } from '../../store/answer-cache.js';
import type { CatalogStore } from '../../store/catalog.js';
import { storeMetrics } from '../../store/metrics.js';
import type { ObservationStore } from '../../store/observations.js';
import { computeCells, type EngineRequest, type EngineResult, type EngineStores } from './engine.js';

/** Cells kept in all, per build (a cell is ~0.5 KB of objects: ~50 MB at most). */
const MAX_CELLS = 100_000;
/** Answers larger than this are not kept (one must not flush the rest). */
const MAX_ANSWER_CELLS = MAX_CELLS / 8;

const shared = new WeakSet<object>();

/** Whether `cells` came from the answer cache, so the same array is served again (never modify it). */
export const isSharedAnswer = (cells: object): boolean => shared.has(cells);

const caches = new WeakMap<ObservationStore, AnswerCache<EngineResult>>();

/** Everything the engine's answer depends on besides the build. */
function keyOf(req: EngineRequest): string {
  const geos = req.geographies
    .map((g) => `${g.key}\u0001${g.type}\u0001${g.name}\u0001${g.population}\u0001${g.definition}`)
    .join('\u0002');
  return `${req.dataset}|${req.vintages.join(',')}|${JSON.stringify(req.variables)}|${geos}`;
}

/** computeCells, answered from the cache for a request seen before on this build. */
export async function computeCellsShared(
  stores: EngineStores,
  catalog: Pick<CatalogStore, 'resolveForVintage'>,
  req: EngineRequest,
): Promise<EngineResult> {
  const obs = stores.observations;
  const size = req.vintages.length * req.variables.length * req.geographies.length;
  if (!obs.cachesResults || size > MAX_ANSWER_CELLS) return computeCells(stores, catalog, req);
  let cache = caches.get(obs);
  if (!cache) caches.set(obs, (cache = new AnswerCache<EngineResult>(MAX_CELLS, (r) => r.cells.length)));
  const key = keyOf(req);
  const hit = cache.get(key);
  storeMetrics.cache('data_answers', hit !== undefined);
  if (hit) return hit;
  const result = await computeCells(stores, catalog, req);
  Object.freeze(result.cells);
  shared.add(result.cells);
  cache.set(key, result);
  return result;
}
