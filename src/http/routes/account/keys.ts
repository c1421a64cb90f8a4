// /v1/account/keys — list, create, rotate, revoke, rename (spec "States and transitions").
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { accountCreateKey, createKeyInput } from '../../../verbs/account-create-key.js';
import { accountListKeys } from '../../../verbs/account-list-keys.js';
import { accountRenameKey } from '../../../verbs/account-rename-key.js';
import { accountRevokeKey } from '../../../verbs/account-revoke-key.js';
import { accountRotateKey } from '../../../verbs/account-rotate-key.js';
import { defineRoute } from '../../route-helpers.js';
import { createdKeySchema, keyParams, keySchema } from './schemas.js';

const common = { tags: ['account'], auth: 'user-token' as const, needs: ['accounts' as const] };

export function keyRoutes(app: FastifyInstance) {
  defineRoute(app, {
    ...common,
    url: '/v1/account/keys',
    summary: 'List your API keys',
    description: 'Active and revoked keys; never the key itself. `meta.key_limit` is your plan’s maximum of active keys.',
    data: z.array(keySchema),
    handler: ({ ctx }) => accountListKeys({ ctx }),
  });
  defineRoute(app, {
    ...common,
    method: 'POST',
    url: '/v1/account/keys',
    summary: 'Create an API key',
    description: 'A name is required. The full key is in this response only. 403 when the plan’s key count is reached.',
    body: createKeyInput,
    data: createdKeySchema,
    status: 201,
    handler: async ({ ctx, body, reply }) => {
      const r = await accountCreateKey({ ctx, input: body });
      reply.code(201).header('Cache-Control', 'no-store');
      return r;
    },
  });
  defineRoute(app, {
    ...common,
    method: 'POST',
    url: '/v1/account/keys/:id/rotate',
    summary: 'Rotate an API key',
    description: 'Revokes the key and creates its replacement (same name) in one step. The new full key is shown once.',
    params: keyParams,
    data: z.object({ key: createdKeySchema, revoked: keySchema }),
    handler: async ({ ctx, params, reply }) => {
      const r = await accountRotateKey({ ctx, input: params });
      reply.header('Cache-Control', 'no-store');
      return r;
    },
  });
  defineRoute(app, {
    ...common,
    method: 'DELETE',
    url: '/v1/account/keys/:id',
    summary: 'Revoke an API key',
    description: 'Requests with the key get 401 immediately after. Cannot be undone; repeating it is harmless.',
    params: keyParams,
    data: keySchema,
    handler: ({ ctx, params }) => accountRevokeKey({ ctx, input: params }),
  });
  defineRoute(app, {
    ...common,
    method: 'PATCH',
    url: '/v1/account/keys/:id',
    summary: 'Rename an API key',
    params: keyParams,
    body: z.strictObject({ name: z.string() }),
    data: keySchema,
    handler: ({ ctx, params, body }) => accountRenameKey({ ctx, input: { id: params.id, name: body.name } }),
  });
}
