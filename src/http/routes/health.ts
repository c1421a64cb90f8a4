// GET /health: public, unlogged (load balancers poll it), never an envelope. 200 when the data
// build and the accounts database are both usable, 503 `degraded` otherwise so an orchestrator
// can hold traffic; the body says which part is missing.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { readManifest, resolveCurrentBuild } from '../../store/data-dir.js';
import { defineRawRoute } from '../route-helpers.js';
import { SERVICE_VERSION } from '../../version.js';

const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  data: z.object({ build_id: z.string(), built_at: z.string(), synthetic: z.boolean().describe('true for a SYNTHETIC benchmark build: its values are random, not Census figures.') }).nullable().describe('The live data build; null when none is loaded.'),
  database: z.enum(['ok', 'unavailable']).describe('The accounts database.'),
});

type Pingable = { ping?: () => unknown };

let cached: { dir: string; data: { build_id: string; built_at: string; synthetic: boolean } } | undefined;

function dataStatus(dataDir: string) {
  const dir = resolveCurrentBuild(dataDir);
  if (!dir) return null;
  if (cached?.dir === dir) return cached.data;
  try {
    const m = readManifest(dir);
    cached = { dir, data: { build_id: m.build_id, built_at: m.created_at, synthetic: m.synthetic === true } };
    return cached.data;
  } catch {
    return null;
  }
}

async function databaseStatus(accounts: unknown): Promise<'ok' | 'unavailable'> {
  if (accounts === undefined || accounts === null) return 'unavailable';
  const ping = (accounts as Pingable).ping;
  if (typeof ping !== 'function') return 'ok';
  try {
    return (await ping.call(accounts)) === false ? 'unavailable' : 'ok';
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
      // The build the stores were opened on (what is actually served), else whatever is on disk.
      const served = (ctx.stores.build as { manifest?: { build_id: string; created_at: string; synthetic?: boolean } } | null | undefined)?.manifest;
      const data = served ? { build_id: served.build_id, built_at: served.created_at, synthetic: served.synthetic === true } : dataStatus(ctx.config.DATA_DIR);
      const database = await databaseStatus(ctx.stores.accounts);
      const status = data && database === 'ok' ? 'ok' : 'degraded';
      return reply.code(status === 'ok' ? 200 : 503).header('Cache-Control', 'no-store').send({ status, version: SERVICE_VERSION, data, database });
    },
  });
}
