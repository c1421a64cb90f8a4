// Request cost in units, charged against the monthly quota by admitRequest. A pure function of
// (plan, request shape) so the verb can compute it after validation/expansion and before any
// expensive work. The formula is documented in docs/plans.md ("Cost in units").
import { hasFeature, planOf, type BoundaryLevel, type Plan, type Resolution } from './plans.js';

/** One geography specifier as the verb resolved it. */
export type GeoTerm =
  | { kind: 'single' }
  /** A `*` wildcard or a name that expanded to `count` geographies. */
  | { kind: 'expansion'; count: number };

export type RequestShape =
  | {
      kind: 'data' | 'compare' | 'timeseries';
      variables: number;
      geos: readonly GeoTerm[];
      /** Points per series (timeseries); 1 otherwise. */
      vintages?: number;
    }
  | { kind: 'boundaries'; level: BoundaryLevel; resolution?: Resolution }
  | { kind: 'centroids'; level: BoundaryLevel }
  /** Catalog, topics, datasets, geography browse/detail/children, geocode, codebook. */
  | { kind: 'lookup' };

/** Expanded geographies per unit: a 5,000-tract wildcard costs 500 units, not 5,000. */
export const EXPANSION_PER_UNIT = 10;
/** Vintages per unit multiplier: a full 16-point acs5 series costs 4× a single vintage. */
export const VINTAGES_PER_MULTIPLIER = 4;

export function geoUnits(geos: readonly GeoTerm[]): number {
  let units = 0;
  for (const g of geos) {
    units += g.kind === 'single' ? 1 : Math.max(1, Math.ceil(g.count / EXPANSION_PER_UNIT));
  }
  return Math.max(1, units);
}

export function costOf(plan: Plan | string, shape: RequestShape): number {
  const p = typeof plan === 'string' ? planOf(plan) : plan;
  switch (shape.kind) {
    case 'boundaries':
      // Spec: boundary requests cost 0 for tiers with access. Without access the gate has already
      // refused with 403; 1 keeps the function total for callers that charge before gating.
      return hasFeature(p, { kind: 'boundaries', level: shape.level, resolution: shape.resolution ?? '20m' }) ? 0 : 1;
    case 'centroids':
      return hasFeature(p, { kind: 'centroids', level: shape.level }) ? 0 : 1;
    case 'lookup':
      return 1;
    default: {
      const variables = Math.max(1, Math.floor(shape.variables));
      const base = geoUnits(shape.geos) + (variables - 1);
      const multiplier = Math.max(1, Math.ceil((shape.vintages ?? 1) / VINTAGES_PER_MULTIPLIER));
      return base * multiplier;
    }
  }
}
