// Plans as data: the one table every gate, quota and price reads. Values come from the spec's
// "Tier feature access" and "Limits" tables; where the spec is silent the choice is documented in
// docs/plans.md (search for "chosen").
import { AppError } from './errors.js';
import { GEO_TYPES, RESOLUTIONS, type GeoType, type Resolution } from './geo/keys.js';

export const PLAN_IDS = ['free', 'pioneer', 'pro', 'business', 'enterprise'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

/** The plan a new account starts on (first sign-in); the accounts stores and the docs read it. */
export const SIGN_UP_PLAN: PlanId = 'free';

/** Boundaries exist for every geography level (src/domain/geo/keys.ts holds the lists). */
export const BOUNDARY_LEVELS = GEO_TYPES;
export type BoundaryLevel = GeoType;
export { RESOLUTIONS, type Resolution };

export interface PlanFeatures {
  csvExport: boolean;
  /** Any `*` wildcard or name expansion in a geo specifier (tract and coarser levels). */
  wildcards: boolean;
  /** Wildcards / name expansion down to block groups. */
  blockGroupWildcards: boolean;
  includeGeometry: boolean;
  /** Levels whose boundaries (GeoJSON) the plan may download. */
  boundaryLevels: readonly BoundaryLevel[];
  /** Levels whose centroids the plan may download (chosen: same as boundary levels). */
  centroidLevels: readonly BoundaryLevel[];
  resolutions: readonly Resolution[];
  mcp: boolean;
  bulkBoundaryDelivery: boolean;
  prioritySupport: boolean;
}

export interface PlanLimits {
  /** Monthly quota in cost units (src/domain/cost.ts), per calendar month UTC. */
  monthlyUnits: number;
  /** Requests admitted per fixed one-minute window, whatever their cost. */
  burstPerMinute: number;
  concurrentConnections: number;
  /** Active (non-revoked) keys an account may hold. */
  apiKeys: number;
  pageSizeDefault: number;
  pageSizeMax: number;
  /** Geographies a wildcard or name may expand to; 0 = no wildcard access. */
  wildcardExpansionMax: number;
  csvRowCap: number;
}

export interface Plan {
  id: PlanId;
  name: string;
  rank: number;
  /** Prices in US cents; null = custom (sales-negotiated), not sold through checkout. */
  price: { monthly: number | null; annual: number | null };
  features: PlanFeatures;
  limits: PlanLimits;
}

const COARSE: readonly BoundaryLevel[] = ['nation', 'state'];
const PIONEER_LEVELS: readonly BoundaryLevel[] = [...COARSE, 'county', 'metro', 'cd'];
const PRO_LEVELS: readonly BoundaryLevel[] = [...PIONEER_LEVELS, 'tract'];
const ALL_LEVELS: readonly BoundaryLevel[] = [...PRO_LEVELS, 'block_group'];

export const PLANS: Readonly<Record<PlanId, Plan>> = {
  free: {
    id: 'free',
    name: 'Free',
    rank: 0,
    price: { monthly: 0, annual: 0 },
    features: {
      csvExport: false,
      wildcards: false,
      blockGroupWildcards: false,
      includeGeometry: false,
      boundaryLevels: COARSE,
      centroidLevels: COARSE,
      resolutions: ['20m'],
      mcp: false,
      bulkBoundaryDelivery: false,
      prioritySupport: false,
    },
    limits: {
      monthlyUnits: 1_000,
      burstPerMinute: 60,
      concurrentConnections: 2,
      apiKeys: 2,
      pageSizeDefault: 50,
      pageSizeMax: 100,
      wildcardExpansionMax: 0,
      csvRowCap: 10_000,
    },
  },
  pioneer: {
    id: 'pioneer',
    name: 'Pioneer',
    rank: 1,
    price: { monthly: 1_900, annual: 19_000 },
    features: {
      csvExport: false,
      wildcards: false,
      blockGroupWildcards: false,
      includeGeometry: false,
      boundaryLevels: PIONEER_LEVELS,
      centroidLevels: PIONEER_LEVELS,
      resolutions: ['20m'],
      mcp: true,
      bulkBoundaryDelivery: false,
      prioritySupport: false,
    },
    limits: {
      monthlyUnits: 50_000,
      burstPerMinute: 300,
      concurrentConnections: 10,
      apiKeys: 5,
      pageSizeDefault: 50,
      pageSizeMax: 1_000,
      wildcardExpansionMax: 0,
      csvRowCap: 10_000,
    },
  },
  pro: {
    id: 'pro',
    name: 'Pro',
    rank: 2,
    price: { monthly: 4_900, annual: 49_000 },
    features: {
      csvExport: true,
      wildcards: true,
      blockGroupWildcards: false,
      includeGeometry: true,
      boundaryLevels: PRO_LEVELS,
      centroidLevels: PRO_LEVELS,
      resolutions: ['20m'],
      mcp: true,
      bulkBoundaryDelivery: false,
      prioritySupport: false,
    },
    limits: {
      monthlyUnits: 500_000,
      burstPerMinute: 1_500,
      concurrentConnections: 25,
      apiKeys: 10,
      pageSizeDefault: 50,
      pageSizeMax: 5_000,
      wildcardExpansionMax: 5_000,
      csvRowCap: 10_000,
    },
  },
  business: {
    id: 'business',
    name: 'Business',
    rank: 3,
    price: { monthly: 29_900, annual: 299_000 },
    features: {
      csvExport: true,
      wildcards: true,
      blockGroupWildcards: true,
      includeGeometry: true,
      boundaryLevels: ALL_LEVELS,
      centroidLevels: ALL_LEVELS,
      resolutions: ['20m', '5m'],
      mcp: true,
      bulkBoundaryDelivery: false,
      prioritySupport: true,
    },
    limits: {
      monthlyUnits: 2_000_000,
      burstPerMinute: 3_000,
      concurrentConnections: 50,
      apiKeys: 50,
      pageSizeDefault: 50,
      pageSizeMax: 5_000,
      wildcardExpansionMax: 25_000,
      csvRowCap: 10_000,
    },
  },
  enterprise: {
    id: 'enterprise',
    name: 'Enterprise',
    rank: 4,
    price: { monthly: null, annual: null },
    features: {
      csvExport: true,
      wildcards: true,
      blockGroupWildcards: true,
      includeGeometry: true,
      boundaryLevels: ALL_LEVELS,
      centroidLevels: ALL_LEVELS,
      resolutions: ['20m', '5m', '500k'],
      mcp: true,
      bulkBoundaryDelivery: true,
      prioritySupport: true,
    },
    limits: {
      monthlyUnits: 10_000_000,
      burstPerMinute: 6_000,
      concurrentConnections: 100,
      apiKeys: 100,
      pageSizeDefault: 50,
      pageSizeMax: 10_000,
      wildcardExpansionMax: 50_000,
      csvRowCap: 10_000,
    },
  },
};

export function isPlanId(id: unknown): id is PlanId {
  return typeof id === 'string' && (PLAN_IDS as readonly string[]).includes(id);
}

/** The plan for an id; an unknown id (e.g. a retired plan in an old row) falls back to Free. */
export function planOf(id: string): Plan {
  return isPlanId(id) ? PLANS[id] : PLANS.free;
}

/** Plans sold through self-service checkout (Enterprise is custom). */
export function isPurchasable(plan: Plan): boolean {
  return plan.price.monthly !== null && plan.price.monthly > 0;
}

/** A gate a request may need. Level/resolution gates carry the level or resolution asked for. */
export type Feature =
  | { kind: 'csv' }
  | { kind: 'wildcard'; level: BoundaryLevel }
  | { kind: 'include_geometry'; level?: BoundaryLevel }
  | { kind: 'boundaries'; level: BoundaryLevel; resolution?: Resolution }
  | { kind: 'centroids'; level: BoundaryLevel }
  | { kind: 'mcp' }
  | { kind: 'bulk_boundaries' };

export function hasFeature(plan: Plan, f: Feature): boolean {
  const x = plan.features;
  switch (f.kind) {
    case 'csv':
      return x.csvExport;
    case 'wildcard':
      return f.level === 'block_group' ? x.blockGroupWildcards : x.wildcards;
    case 'include_geometry':
      // Geometry for a level needs both the flag and access to that level's boundaries.
      return x.includeGeometry && (f.level === undefined || x.boundaryLevels.includes(f.level));
    case 'boundaries':
      return x.boundaryLevels.includes(f.level) && x.resolutions.includes(f.resolution ?? '20m');
    case 'centroids':
      return x.centroidLevels.includes(f.level);
    case 'mcp':
      return x.mcp;
    case 'bulk_boundaries':
      return x.bulkBoundaryDelivery;
  }
}

/** The cheapest plan that grants a feature (Enterprise when only it does). */
export function requiredPlanFor(f: Feature): Plan {
  for (const id of PLAN_IDS) if (hasFeature(PLANS[id], f)) return PLANS[id];
  return PLANS.enterprise;
}

export function describeFeature(f: Feature): string {
  switch (f.kind) {
    case 'csv':
      return 'CSV export (format=csv)';
    case 'wildcard':
      return `${f.level} wildcard or name expansion`;
    case 'include_geometry':
      return f.level ? `include_geometry for ${f.level}` : 'include_geometry';
    case 'boundaries':
      return `${f.level} boundaries at ${f.resolution ?? '20m'} resolution`;
    case 'centroids':
      return `${f.level} centroids`;
    case 'mcp':
      return 'MCP server access';
    case 'bulk_boundaries':
      return 'bulk boundary delivery';
  }
}

/** Where a caller upgrades; the dashboard's billing page preselects the plan. */
export function upgradeUrl(dashboardUrl: string, plan?: PlanId): string {
  const base = `${dashboardUrl.replace(/\/$/, '')}/billing`;
  return plan ? `${base}?plan=${plan}` : base;
}

/**
 * The gate: throws 403 feature-requires-upgrade naming the cheapest sufficient plan. Gates run
 * before admission so a Free/Pioneer caller asking for a Pro feature gets 403, never 429.
 */
export function requireFeature(
  plan: Plan | string,
  f: Feature,
  dashboardUrl: string,
  /** The operation's own wording of the refusal (what was asked and how to do without). */
  detail?: (plan: Plan, required: Plan) => string,
): void {
  const p = typeof plan === 'string' ? planOf(plan) : plan;
  if (hasFeature(p, f)) return;
  const required = requiredPlanFor(f);
  throw new AppError(
    'feature-requires-upgrade',
    detail?.(p, required) ?? `${describeFeature(f)} requires the ${required.name} plan or above; your plan is ${p.name}.`,
    { extensions: { plan: p.id, required_plan: required.id, upgrade_url: upgradeUrl(dashboardUrl, required.id) } },
  );
}

/**
 * The error for a wildcard or name expansion past the plan's cap (checked after expansion, before
 * any data is read). When a bigger plan allows it: 403 feature-requires-upgrade naming that plan,
 * because the remedy is an upgrade or a narrower specifier, not waiting (never 429). Past the
 * largest plan: 413 payload-too-large. `detail` says what was asked and how to narrow it.
 */
export function expansionLimitError(plan: Plan | string, count: number, dashboardUrl: string, detail?: string): AppError {
  const p = typeof plan === 'string' ? planOf(plan) : plan;
  const max = p.limits.wildcardExpansionMax;
  const base = { plan: p.id, requested: count, limit: max };
  const next = PLAN_IDS.map((id) => PLANS[id]).find((q) => q.rank > p.rank && q.limits.wildcardExpansionMax >= count);
  const asked =
    detail ?? `The specifier expands to ${count} geographies; the ${p.name} plan allows ${max} per request. Narrow the specifier.`;
  if (!next) {
    return new AppError('payload-too-large', `${asked} No plan allows more than ${PLANS.enterprise.limits.wildcardExpansionMax}.`, {
      extensions: base,
    });
  }
  return new AppError('feature-requires-upgrade', `${asked} The ${next.name} plan allows ${next.limits.wildcardExpansionMax}.`, {
    extensions: { ...base, required_plan: next.id, upgrade_url: upgradeUrl(dashboardUrl, next.id) },
  });
}

export function requireExpansionWithin(plan: Plan | string, count: number, dashboardUrl: string): void {
  const p = typeof plan === 'string' ? planOf(plan) : plan;
  if (count > p.limits.wildcardExpansionMax) throw expansionLimitError(p, count, dashboardUrl);
}

/** Clamp a requested page size to the plan's maximum (default when absent). */
export function pageSizeFor(plan: Plan | string, requested: number | undefined): number {
  const p = typeof plan === 'string' ? planOf(plan) : plan;
  if (requested === undefined) return p.limits.pageSizeDefault;
  return Math.max(1, Math.min(requested, p.limits.pageSizeMax));
}
