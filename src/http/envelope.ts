// The APIResponse envelope every successful JSON body is wrapped in, plus the links it carries.
// Links are built from the public base address (BASE_URL, else the request's own scheme and host,
// which honour X-Forwarded-Proto/Host when TRUST_PROXY is on) and never carry `api_key`, so a
// key passed in the query string is not echoed back into bodies that get pasted around.
import { z } from 'zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VerbResult } from '../context/verb-context.js';
import { requestOrigin } from './request-target.js';

export const DEFAULT_CENSUS_PROGRAM = 'U.S. Census Bureau';

export const sourceSchema = z
  .object({
    dataset: z.string(),
    vintage_year: z.number().int(),
    reference_period: z.string().nullable().optional(),
    census_program: z.string().optional(),
  })
  .describe('Provenance of the figures; null on catalog endpoints.');

export const metaSchema = z.looseObject({
  source: sourceSchema.nullable(),
  variable_count: z.number().int().nullable().optional(),
  geography_count: z.number().int().nullable().optional(),
  total_count: z.number().int().nullable().optional(),
  hint: z.string().nullable().optional(),
  request_id: z.string().uuid(),
  elapsed_ms: z.number().int(),
});

export const linksSchema = z.object({
  self: z.string(),
  next: z.string().nullable(),
  prev: z.string().nullable(),
});

export function envelopeSchema<D extends z.ZodType>(data: D) {
  return z.object({ data, meta: metaSchema, links: linksSchema });
}

export type Envelope<T> = {
  data: T;
  meta: z.infer<typeof metaSchema>;
  links: z.infer<typeof linksSchema>;
};

/** Query parameters that must never appear in a link we emit. */
const SECRET_PARAMS = ['api_key'];

export function publicBase(req: FastifyRequest, baseUrl: string | undefined): string {
  if (baseUrl) return baseUrl.replace(/\/$/, '');
  return requestOrigin(req);
}

export function selfUrl(req: FastifyRequest, baseUrl: string | undefined): URL {
  // Concatenation (not new URL(path, base)) keeps a base path such as https://x.org/census.
  const url = new URL(publicBase(req, baseUrl) + req.url);
  for (const p of SECRET_PARAMS) url.searchParams.delete(p);
  return url;
}

function withPage(url: URL, offset: number, limit: number): string {
  const u = new URL(url);
  u.searchParams.set('offset', String(offset));
  u.searchParams.set('limit', String(limit));
  return u.toString();
}

export function linksFor(self: URL, page: VerbResult<unknown>['page']) {
  if (!page) return { self: self.toString(), next: null, prev: null };
  const { offset, limit, total } = page;
  const next = offset + limit < total ? withPage(self, offset + limit, limit) : null;
  // Past the end, `prev` is the last page that has records, not a page that is still empty.
  const lastPage = total > 0 ? Math.floor((total - 1) / limit) * limit : 0;
  const prev = offset > 0 ? withPage(self, Math.min(Math.max(0, offset - limit), lastPage), limit) : null;
  return { self: self.toString(), next, prev };
}

export function renderEnvelope<T>(
  result: VerbResult<T>,
  req: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string | undefined,
): Envelope<T> {
  const m = result.meta ?? {};
  const source = m.source ? { ...m.source, census_program: m.source.census_program || DEFAULT_CENSUS_PROGRAM } : null;
  const meta = {
    ...m,
    source,
    variable_count: m.variable_count ?? null,
    geography_count: m.geography_count ?? null,
    total_count: m.total_count ?? result.page?.total ?? null,
    hint: m.hint ?? null,
    request_id: req.id,
    elapsed_ms: Math.round(reply.elapsedTime),
  };
  return { data: result.data, meta, links: linksFor(selfUrl(req, baseUrl), result.page) };
}

/**
 * The envelope's meta and links alone, without reading `data`: for bodies whose data part is
 * written from bytes (VerbResult.itemsJson, whose result may build `data` only when read).
 */
export function renderMetaAndLinks(
  result: Pick<VerbResult<unknown>, 'meta' | 'page'>,
  req: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string | undefined,
): Omit<Envelope<unknown>, 'data'> {
  const { meta, links } = renderEnvelope({ meta: result.meta, page: result.page, data: null }, req, reply, baseUrl);
  return { meta, links };
}
