// Routes written with the same helpers production routes use, to exercise the frame itself.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { AppError, ERROR_CATALOGUE, type ErrorCode } from '../../src/domain/errors.js';
import { defineRoute } from '../../src/http/route-helpers.js';
import { paginationQuery, queryBool, queryInt, queryList } from '../../src/http/query-params.js';
import { defineVerbRoute } from '../../src/http/verb-route.js';
import { defineVerb } from '../../src/verbs/define-verb.js';

export const SECRET = 'postgres://admin:hunter2@db.internal:5432 at /srv/app/secret.ts:42';

/** A fixture operation exportable as CSV: the CSV gate and row cap are the verb's (define-verb.ts). */
const tableVerb = defineVerb({
  name: 'fixture-table',
  input: z.object({ rows: z.number().int().min(0).max(20_000).optional() }),
  formats: ['json', 'csv'],
  cost: { kind: 'lookup' },
  run: async ({ input }) => ({
    data: Array.from({ length: input.rows ?? 3 }, (_, i) => ({
      geo: `state:${String(i).padStart(2, '0')}`,
      label: i === 0 ? '=HYPERLINK("http://evil")' : i === 1 ? '-2+3' : `row ${i}`,
      estimate: i === 1 ? -42.5 : i === 2 ? null : i,
    })),
  }),
});

const ITEMS = Array.from({ length: 25 }, (_, i) => ({ id: i + 1, name: `item-${i + 1}` }));

export function fixtureRoutes(app: FastifyInstance) {
  defineRoute(app, {
    url: '/t/items',
    summary: 'Paginated fixture list',
    tags: ['test'],
    auth: 'api-key',
    paginated: true,
    querystring: z.object({
      geo: z.string().min(1),
      vintage: queryInt({ min: 2005, max: 2024 }).optional(),
      dataset: z.enum(['acs1', 'acs5']).optional(),
      include_geometry: queryBool().optional(),
      variables: queryList(z.string(), { max: 3 }).optional(),
      ...paginationQuery,
    }),
    data: z.array(z.object({ id: z.number(), name: z.string() })),
    handler: async ({ query }) => {
      const limit = query.limit ?? 10;
      const offset = query.offset ?? 0;
      return {
        data: ITEMS.slice(offset, offset + limit),
        meta: {
          source: {
            dataset: query.dataset ?? 'acs5',
            vintage_year: query.vintage ?? 2024,
            reference_period: '2020-2024',
            census_program: '',
          },
        },
        page: { offset, limit, total: ITEMS.length },
      };
    },
  });

  defineRoute(app, {
    url: '/t/expensive',
    summary: 'Charges 5 units from inside the handler, as data verbs do',
    auth: 'api-key',
    costOf: 'verb',
    data: z.object({ charged: z.boolean() }),
    handler: async ({ ctx }) => {
      if (!ctx.charge) return { data: { charged: false } };
      await ctx.charge(5);
      return { data: { charged: true } };
    },
  });

  defineRoute(app, {
    url: '/t/public',
    summary: 'Public fixture',
    auth: 'none',
    // One parameter, so self links can be checked to keep a query string.
    querystring: z.object({ x: z.string().optional() }),
    data: z.object({ ok: z.boolean() }),
    handler: async () => ({ data: { ok: true } }),
  });

  defineRoute(app, {
    url: '/t/throw',
    summary: 'Throws an unexpected error',
    auth: 'none',
    hide: true,
    data: z.object({}),
    handler: async () => {
      throw new Error(SECRET);
    },
  });

  defineRoute(app, {
    url: '/t/slow',
    summary: 'Takes 300 ms',
    auth: 'none',
    hide: true,
    data: z.object({ ok: z.boolean() }),
    handler: async () => {
      await new Promise((r) => setTimeout(r, 300));
      return { data: { ok: true } };
    },
  });

  defineRoute(app, {
    url: '/t/bad-shape',
    summary: 'Returns data that violates its schema',
    auth: 'none',
    hide: true,
    data: z.object({ n: z.number() }),
    handler: async () => ({ data: { n: SECRET } as unknown as { n: number } }),
  });

  defineRoute(app, {
    url: '/t/error/:code',
    summary: 'Throws the AppError named in the path',
    auth: 'none',
    hide: true,
    params: z.object({ code: z.string() }),
    data: z.object({}),
    handler: async ({ params }) => {
      if (!(params.code in ERROR_CATALOGUE)) throw new AppError('not-found', 'no such code');
      throw new AppError(params.code as ErrorCode, `detail for ${params.code}`, { extensions: { upgrade_url: 'https://x/billing' } });
    },
  });

  defineRoute(app, {
    url: '/t/needs-widgets',
    summary: 'Needs a store (the live build)',
    auth: 'none',
    needs: ['build'],
    data: z.object({ ok: z.boolean() }),
    handler: async () => ({ data: { ok: true } }),
  });

  defineRoute(app, {
    url: '/t/flagged',
    summary: 'Behind a feature flag',
    auth: 'api-key',
    feature: 'flagged',
    data: z.object({ ok: z.boolean() }),
    handler: async () => ({ data: { ok: true } }),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/t/echo',
    summary: 'Echoes a JSON body',
    auth: 'none',
    body: z.object({ interval: z.enum(['monthly', 'annual']).default('monthly') }),
    data: z.object({ interval: z.string() }),
    handler: async ({ body }) => ({ data: { interval: body.interval } }),
  });

  defineVerbRoute(app, {
    url: '/t/table',
    summary: 'JSON or CSV',
    auth: 'api-key',
    verb: tableVerb,
    data: z.array(z.object({ geo: z.string(), label: z.string(), estimate: z.number().nullable() })),
    csv: (result) => ({
      filename: 'data export 2024',
      columns: ['geo', 'label', 'estimate'],
      rows: result.data.map((r) => [r.geo, r.label, r.estimate]),
    }),
  });
}
