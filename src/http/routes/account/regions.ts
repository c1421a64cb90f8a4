// /v1/account/regions — saved custom regions: list, create, rename, delete. A saved region is used
// in data requests as geo=region:<name> (docs/api.md "Custom regions").
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { accountCreateRegion, createRegionInput } from '../../../verbs/account-regions-create.js';
import { MAX_SAVED_REGIONS } from '../../../verbs/account-regions-common.js';
import { accountDeleteRegion } from '../../../verbs/account-regions-delete.js';
import { accountListRegions } from '../../../verbs/account-regions-list.js';
import { accountRenameRegion } from '../../../verbs/account-regions-rename.js';
import { defineRoute } from '../../route-helpers.js';
import { regionSchema } from './schemas.js';

const common = { tags: ['account'], auth: 'user-token' as const, needs: ['accounts' as const] };
const regionParams = z.object({ name: z.string().describe('The saved region’s name') });

export function regionRoutes(app: FastifyInstance) {
  defineRoute(app, {
    ...common,
    url: '/v1/account/regions',
    summary: 'List your saved regions',
    description: 'Regions saved to your account, by name; each is usable as `geo=region:<name>` with any of your keys.',
    data: z.array(regionSchema),
    handler: ({ ctx }) => accountListRegions({ ctx }),
  });
  defineRoute(app, {
    ...common,
    needs: ['accounts' as const, 'geographies' as const],
    method: 'POST',
    url: '/v1/account/regions',
    summary: 'Save a region',
    description: `A name and the members (geographies of one level, written as in \`geo\`; names and wildcards are resolved to keys now, for the latest 5-year vintage). 409 when the name is taken or ${MAX_SAVED_REGIONS} regions are saved.`,
    body: createRegionInput,
    data: regionSchema,
    status: 201,
    handler: async ({ ctx, body, reply }) => {
      const r = await accountCreateRegion({ ctx, input: body });
      reply.code(201);
      return r;
    },
  });
  defineRoute(app, {
    ...common,
    method: 'PATCH',
    url: '/v1/account/regions/:name',
    summary: 'Rename a saved region',
    params: regionParams,
    body: z.strictObject({ name: z.string().describe('The new name') }),
    data: regionSchema,
    handler: ({ ctx, params, body }) => accountRenameRegion({ ctx, input: { name: params.name, new_name: body.name } }),
  });
  defineRoute(app, {
    ...common,
    method: 'DELETE',
    url: '/v1/account/regions/:name',
    summary: 'Delete a saved region',
    params: regionParams,
    data: z.object({ deleted: z.string() }),
    handler: ({ ctx, params }) => accountDeleteRegion({ ctx, input: params }),
  });
}
