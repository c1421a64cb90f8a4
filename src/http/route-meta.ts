// What a route declares about itself, kept in fastify's route config: read by its guards
// (route-guards.ts), by the error handler to place field errors (plugins/errors.ts), by the
// OpenAPI transform and by the contract test (app.routeTable).
import type { z } from 'zod';
import type { StoreName } from '../context/stores.js';
import type { AuthMode } from './plugins/auth.js';
import type { VerbFormat } from '../verbs/lifecycle/verb-spec.js';

/** The formats a route answers in: the verbs' own list (verb-spec.ts), not a second one. */
export type Format = VerbFormat;

/** Route metadata kept in fastify's route config; the OpenAPI transform reads it too. */
export interface RouteMeta {
  auth: AuthMode;
  feature?: string;
  formats: Format[];
  needs: StoreName[];
  paginated?: boolean;
  /** Where each operation field lives in this route: `geo_key` → `path`; the rest is query (or body). */
  places: Record<string, string>;
  hasBody: boolean;
  /** Statuses the operation raises beyond what auth, inputs and formats imply (404, 409, …), for /openapi.json. */
  errorStatuses?: number[];
  /** OpenAPI response objects of non-JSON answers (GeoJSON, files), for /openapi.json. */
  docResponses?: Record<string, unknown>;
  /** The route refuses an Accept it cannot answer with 406 (routes of defineRoute), for /openapi.json. */
  negotiates?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    meta?: RouteMeta;
  }
}

/** What routeMeta reads of a route's spec. */
export interface MetaSpec {
  auth: AuthMode;
  feature?: string;
  needs?: StoreName[];
  params?: z.ZodObject<z.ZodRawShape>;
  body?: z.ZodType;
  fields?: Record<string, string>;
  errorStatuses?: number[];
}

export function routeMeta(spec: MetaSpec, formats: Format[], paginated?: boolean, docResponses?: Record<string, unknown>): RouteMeta {
  const places: Record<string, string> = {};
  for (const name of Object.keys(spec.params?.shape ?? {})) places[name] = `path → ${name}`;
  Object.assign(places, spec.fields ?? {});
  return {
    auth: spec.auth,
    feature: spec.feature,
    formats,
    needs: spec.needs ?? [],
    paginated,
    places,
    hasBody: spec.body !== undefined,
    errorStatuses: spec.errorStatuses,
    docResponses,
  };
}

/** Where an operation's field was in this request (`query → geo`, `path → geo_key`). */
export function placeOf(meta: RouteMeta | undefined, name: string): string {
  return meta?.places[name] ?? `${meta?.hasBody ? 'body' : 'query'} → ${name}`;
}
