// GET/PATCH/DELETE /v1/account — the signed-in account.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { accountDelete, deleteAccountInput } from '../../../verbs/account-delete.js';
import { accountGetProfile } from '../../../verbs/account-get-profile.js';
import { accountUpdateProfile, updateProfileInput } from '../../../verbs/account-update-profile.js';
import { defineRoute } from '../../route-helpers.js';
import { signUpTerms } from '../../../verbs/describe-plans.js';
import { profileSchema } from './schemas.js';

const common = { tags: ['account'], auth: 'user-token' as const, needs: ['accounts' as const] };

export function profileRoutes(app: FastifyInstance) {
  defineRoute(app, {
    ...common,
    url: '/v1/account',
    summary: 'Your account',
    description: 'Profile, plan (features and limits), terms-of-service status and billing summary. ' + signUpTerms(),
    data: profileSchema,
    handler: async ({ ctx }) => (await accountGetProfile({ ctx })) as never,
  });
  defineRoute(app, {
    ...common,
    method: 'PATCH',
    url: '/v1/account',
    summary: 'Update your profile',
    body: updateProfileInput,
    data: profileSchema,
    handler: async ({ ctx, body }) => (await accountUpdateProfile({ ctx, input: body })) as never,
  });
  defineRoute(app, {
    ...common,
    method: 'DELETE',
    url: '/v1/account',
    summary: 'Delete your account',
    description: 'Soft delete: keys stop working at once; data is purged 30 days later. Cancel any subscription first (409 otherwise).',
    body: deleteAccountInput,
    data: z.object({ deleted_at: z.string(), purge_after: z.string() }),
    handler: ({ ctx, body }) => accountDelete({ ctx, input: body }),
  });
}
