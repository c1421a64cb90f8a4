// POST /v1/account/accept-tos and POST /v1/account/activate.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { accountAcceptTos } from '../../../verbs/account-accept-tos.js';
import { accountActivate, activateInput } from '../../../verbs/account-activate.js';
import { defineRoute } from '../../route-helpers.js';

const common = { tags: ['account'], auth: 'user-token' as const, needs: ['accounts' as const] };

export function tosRoutes(app: FastifyInstance) {
  defineRoute(app, {
    ...common,
    method: 'POST',
    url: '/v1/account/accept-tos',
    summary: 'Accept the current terms of service',
    description: 'Records IP address, user agent, time and document version. `version`, if sent, must be the current one (409 otherwise).',
    body: z.strictObject({ version: z.string().min(1).max(64).optional() }).optional(),
    data: z.object({ version: z.string(), accepted_at: z.string(), status: z.literal('accepted') }),
    handler: ({ ctx, body, req }) =>
      accountAcceptTos({ ctx, input: { version: body?.version, ip: req.ip, user_agent: req.headers['user-agent'] ?? null } }),
  });
  defineRoute(app, {
    ...common,
    method: 'POST',
    url: '/v1/account/activate',
    summary: 'Activate an invite code (private beta)',
    description: 'Single use; expiring. 404 unknown code, 409 used or expired. An already active account does not spend the code.',
    body: activateInput,
    errorStatuses: [404],
    data: z.object({ activated: z.literal(true), activated_at: z.string(), plan: z.string() }),
    handler: ({ ctx, body }) => accountActivate({ ctx, input: body }),
  });
}
