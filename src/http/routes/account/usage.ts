// GET /v1/account/usage — units used this billing period (calendar month, UTC).
import type { FastifyInstance } from 'fastify';
import { accountUsage, usageInput } from '../../../verbs/account-usage.js';
import { defineRoute } from '../../route-helpers.js';
import { usageSchema } from './schemas.js';

export function usageRoutes(app: FastifyInstance) {
  defineRoute(app, {
    tags: ['account'],
    auth: 'user-token',
    needs: ['accounts'],
    url: '/v1/account/usage',
    summary: 'Usage for the billing period',
    description:
      'Units against the monthly quota, this minute’s burst count, in-flight requests, and breakdowns by day, route and key. `period=YYYY-MM` reads an earlier month.',
    querystring: usageInput,
    data: usageSchema,
    handler: async ({ ctx, query }) => (await accountUsage({ ctx, input: query })) as never,
  });
}
