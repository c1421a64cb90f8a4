// GET /health: public, unlogged (load balancers poll it), never an envelope. 200 when the data
// build and the accounts database are both usable, 503 `degraded` otherwise so an orchestrator
// can hold traffic; the body says which part is missing. The build is the one the stores were
// opened on at boot (stores.build), the service's one idea of the live build.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { storeIfOpen } from '../../context/stores.js';
import { defineRawRoute } from '../route-helpers.js';
import { SERVICE_VERSION } from '../../version.js';

const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  data: z.object({ build_id: z.string(), built_at: z.string(), synthetic: z.boolean().describe('true for a SYNTHETIC benchmark build: its values are random, not Census figures.') }).nullable().describe('The live data build; null when none is loaded.'),
  database: z.enum(['ok', 'unavailable']).describe('The accounts database.'),
});

async function databaseStatus(accounts: { ping(): boolean } | null | undefined): Promise<'ok' | 'unavailable'> {
  if (!accounts) return 'unavailable';
  try {
    return accounts.ping() ? 'ok' : 'unavailable';
  } catch {
    return 'unavailable';
  }
}

export function healthRoutes(app: FastifyInstance) {
  defineRawRoute(app, {
    url: '/health',
    summary: 'Service health',
    description: 'Public. 200 `ok` when data and database are available, 503 `degraded` otherwise.',
    tags: ['service'],
    auth: 'none',
    logLevel: 'silent',
    response: { 200: healthSchema, 503: healthSchema },
    handler: async ({ ctx, reply }) => {
      // The build the stores were opened on: what is actually served, not what is on disk now.
      const served = storeIfOpen(ctx.stores, 'build')?.manifest;
      const data = served ? { build_id: served.build_id, built_at: served.created_at, synthetic: served.synthetic === true } : null;
      const database = await databaseStatus(ctx.stores.accounts);
      const status = data && database === 'ok' ? 'ok' : 'degraded';
      return reply.code(status === 'ok' ? 200 : 503).header('Cache-Control', 'no-store').send({ status, version: SERVICE_VERSION, data, database });
    },
  });
}
