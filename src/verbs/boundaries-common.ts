// Shared by the boundary, centroid and geometry operations: tier gates (the allowed levels and
// resolutions come from the plans table via the caller), store access and GeoJSON streaming.
//
// Streaming contract for FeatureCollections: `data` is a Node Readable of UTF-8 GeoJSON text,
// sent as is (NOT wrapped in the JSON envelope); `meta.headers` lists the response headers
// (Content-Type, ETag, X-Boundary-Vintage); `meta.etag` is the strong ETag for If-None-Match.
import { Readable } from 'node:stream';
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import type { BoundaryFeature } from '../store/boundaries.js';
import { BOUNDARY_LEVELS, RESOLUTIONS, type BoundaryLevel, type Resolution } from '../store/boundaries/manifest.js';
import type { VerbContext } from '../context/verb-context.js';
import { requiredPlanFor, upgradeUrl, type Plan, type PlanId } from '../domain/plans.js';

export interface BoundaryAccess {
  allowedLevels: string[];
  allowedResolutions: string[];
  /** Plan that unlocks each gated value, e.g. { 'level:tract': 'pro', 'resolution:500k': 'enterprise' }. */
  requiredPlan: Record<string, string>;
  upgradeUrl?: string;
}

/**
 * What a plan allows (plans table): levels and resolutions, the plan that unlocks each gate, and
 * an upgrade link preselecting the cheapest plan that grants the whole request `want`.
 */
export function accessFor(
  ctx: Pick<VerbContext, 'config'>,
  plan: Plan,
  kind: 'boundaries' | 'centroids',
  want: { level?: string; resolution?: string } = {},
): BoundaryAccess {
  const requiredPlan: Record<string, string> = {};
  for (const level of BOUNDARY_LEVELS) requiredPlan[`level:${level}`] = requiredPlanFor({ kind, level }).id;
  for (const resolution of RESOLUTIONS)
    requiredPlan[`resolution:${resolution}`] = requiredPlanFor({ kind: 'boundaries', level: 'nation', resolution }).id;
  let target: PlanId | undefined;
  const level = (BOUNDARY_LEVELS as readonly string[]).includes(want.level ?? '') ? (want.level as BoundaryLevel) : undefined;
  if (level) {
    const resolution = (RESOLUTIONS as readonly string[]).includes(want.resolution ?? '') ? (want.resolution as Resolution) : undefined;
    target = (kind === 'boundaries' ? requiredPlanFor({ kind, level, resolution }) : requiredPlanFor({ kind, level })).id;
  }
  return {
    allowedLevels: [...(kind === 'boundaries' ? plan.features.boundaryLevels : plan.features.centroidLevels)],
    allowedResolutions: kind === 'boundaries' ? [...plan.features.resolutions] : [...RESOLUTIONS],
    requiredPlan,
    upgradeUrl: upgradeUrl(ctx.config.DASHBOARD_URL, target),
  };
}

export const levelSchema = z.enum(BOUNDARY_LEVELS);
export const resolutionSchema = z
  .enum(RESOLUTIONS)
  .default('20m')
  .describe('`20m` (default), `5m` (Business and above) or `500k` (Enterprise).');
export const editionSchema = z
  .string()
  .max(20)
  .optional()
  .describe('Boundary edition, e.g. county `2017` (legacy Connecticut counties, for ACS ≤ 2021); default: the newest.');
export const shapeVintageSchema = z
  .number()
  .int()
  .min(2005)
  .max(2100)
  .optional()
  .describe(
    'ACS vintage whose geography definitions the shapes must have (instead of an edition): county → the 2017 edition through 2021; tracts of 2010 definitions only before 2020; districts from 2022. A vintage with no such file → 404 with the reason.',
  );
/** `[min_lng, min_lat, max_lng, max_lat]` (WGS 84). */
export const bboxSchema = z
  .tuple([z.number().min(-180).max(180), z.number().min(-90).max(90), z.number().min(-180).max(180), z.number().min(-90).max(90)])
  .refine(([x0, y0, x1, y1]) => x0 <= x1 && y0 <= y1, 'min must not exceed max')
  .optional()
  .describe('`min_lng,min_lat,max_lng,max_lat` (WGS 84): only features whose bounding box meets it.');

export function checkAccess(
  ctx: VerbContext,
  access: BoundaryAccess,
  level: BoundaryLevel,
  resolution: Resolution | null,
  what: string,
): void {
  const deny = (gate: string, detail: string) => {
    throw new AppError('feature-requires-upgrade', detail, {
      extensions: {
        upgrade_url: access.upgradeUrl ?? `${ctx.config.DASHBOARD_URL}/billing`,
        required_plan: access.requiredPlan[gate] ?? null,
      },
    });
  };
  if (!access.allowedLevels.includes(level)) deny(`level:${level}`, `${what} for level "${level}" are not included in your plan`);
  if (resolution && !access.allowedResolutions.includes(resolution))
    deny(`resolution:${resolution}`, `resolution ${resolution} is not included in your plan`);
}

/** A Readable emitting `{"type":"FeatureCollection","features":[…]}` one feature at a time. */
export function featureCollectionStream(features: AsyncIterable<BoundaryFeature>, extra: Record<string, unknown> = {}): Readable {
  async function* text(): AsyncGenerator<string> {
    const head = JSON.stringify({ type: 'FeatureCollection', ...extra });
    yield `${head.slice(0, -1)},"features":[`;
    let first = true;
    let batch = '';
    for await (const f of features) {
      batch += (first ? '' : ',') + JSON.stringify(f);
      first = false;
      // Batches of ~64 KB keep syscalls few while the first byte still leaves early.
      if (batch.length > 65_536) {
        yield batch;
        batch = '';
      }
    }
    yield `${batch}]}`;
  }
  return Readable.from(text(), { objectMode: false });
}

/** The meta of a streamed GeoJSON answer: what the transport needs for headers, 304 and metering. */
export function geojsonMeta(etag: string, vintage: string, featureCount: number | null) {
  return {
    etag,
    boundary_vintage: vintage,
    content_type: 'application/geo+json',
    headers: { 'Content-Type': 'application/geo+json', ETag: etag, 'X-Boundary-Vintage': vintage },
    feature_count: featureCount,
  };
}
