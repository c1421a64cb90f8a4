// GET /health: public, unlogged (load balancers poll it), never an envelope. 200 `ok` when the data
// build, every one of its partitions and the accounts database are usable; 503 `degraded`
// otherwise, so a balancer that only reads status codes can tell, while the body says exactly
// what is affected (requests that do not need it keep working). Each poll re-checks the faults,
// so the answer goes back to 200 by itself once the files are restored (docs/operations.md).
// The build is the one this request's stores were opened on (stores.build): after a switch to a
// newer published build (DATA_SOURCE), the new one.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { storeIfOpen } from '../../context/stores.js';
import { defineRawRoute } from '../route-helpers.js';
import { SERVICE_VERSION } from '../../version.js';

const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  data: z
    .object({
      build_id: z.string(),
      built_at: z.string(),
      synthetic: z.boolean().describe('true for a SYNTHETIC benchmark build: its values are random, not Census figures.'),
    })
    .nullable()
    .describe('The live data build; null when none is loaded.'),
  database: z.enum(['ok', 'unavailable']).describe('The accounts database (a write is probed, at most once a second).'),
  database_error: z
    .string()
    .nullable()
    .describe(
      'Why the database is unavailable (an SQLite or file-system code such as SQLITE_FULL, SQLITE_READONLY, SQLITE_IOERR_SHMMAP, SQLITE_READONLY_DBMOVED when the file was deleted or replaced while open); null when ok.',
    ),
  source: z
    .object({
      kind: z.enum(['s3', 'directory']),
      pinned: z.string().nullable(),
      reachable: z.boolean().nullable(),
      latest: z.string().nullable(),
      last_check: z.string().nullable(),
      last_error: z.string().nullable(),
      switches: z.number().int(),
    })
    .nullable()
    .describe(
      'DATA_SOURCE (builds pulled from a directory or S3): whether it answered the last check (`reachable`), the build it names as `latest`, and why the last check or pull failed. While it is unreachable the build already pulled is served (`data`). null without DATA_SOURCE.',
    ),
  unavailable_partitions: z
    .array(
      z.object({
        dataset: z.string(),
        vintage: z.number().int(),
        level: z.string(),
        reason: z.string(),
        since: z.string(),
        file: z.string().optional().describe('The damaged file, relative to the build directory, when a checksum check found it.'),
      }),
    )
    .describe(
      'Observation partitions that are missing, truncated or differ from the manifest: requests needing them answer 503 dependency-unavailable; all others are served.',
    ),
  damaged_files: z
    .array(z.object({ file: z.string(), reason: z.string(), since: z.string() }))
    .describe(
      'Files of the build that differ from the SHA-256 its manifest recorded (or are missing), relative to the build directory: partitions, serving indexes, published forms, boundaries, catalog, geography and table files, and `manifest.json` itself when it cannot be read or its seal differs (no data is then served). Nothing is served from them (503 dependency-unavailable for the requests that need them); each is checked again when it changes, and served again once it matches (a store left out at start is loaded by this poll).',
    ),
});

type Health = { ok: boolean; reason?: string };
type Pingable = { ping?: () => unknown; health?: () => Health | Promise<Health> };
type Guarded = { guard?: { faults(): Promise<Array<{ partition: string; reason: string; since: string; file?: string }>> } };

async function databaseStatus(accounts: unknown): Promise<{ state: 'ok' | 'unavailable'; error: string | null }> {
  if (accounts === undefined || accounts === null) return { state: 'unavailable', error: 'not opened' };
  const p = accounts as Pingable;
  try {
    if (typeof p.health === 'function') {
      const h = await p.health.call(accounts);
      return h.ok ? { state: 'ok', error: null } : { state: 'unavailable', error: h.reason ?? 'error' };
    }
    if (typeof p.ping !== 'function') return { state: 'ok', error: null };
    return (await p.ping.call(accounts)) === false ? { state: 'unavailable', error: 'ping failed' } : { state: 'ok', error: null };
  } catch {
    return { state: 'unavailable', error: 'ping failed' };
  }
}

async function partitionFaults(observations: unknown) {
  const guard = (observations as Guarded | undefined)?.guard;
  if (!guard) return [];
  return (await guard.faults()).map((f) => {
    const [dataset, vintage, level] = f.partition.split('/');
    return {
      dataset: dataset!,
      vintage: Number(vintage),
      level: level!,
      reason: f.reason,
      since: f.since,
      ...(f.file ? { file: f.file } : {}),
    };
  });
}

export function healthRoutes(app: FastifyInstance) {
  defineRawRoute(app, {
    url: '/health',
    summary: 'Service health',
    description:
      'Public. 200 `ok` when the data build, all its partitions and files and the accounts database are usable; 503 `degraded` otherwise, with what is affected (`data` null, `database`, `unavailable_partitions`, `damaged_files`). Recovers by itself when the fault goes. With DATA_SOURCE, `source` tells how the last check of the published builds went; an unreachable source does not degrade a replica that serves a verified build.',
    tags: ['service'],
    auth: 'none',
    logLevel: 'silent',
    response: { 200: healthSchema, 503: healthSchema },
    handler: async ({ ctx, reply }) => {
      const integrity = storeIfOpen(ctx.stores, 'integrity');
      // A store left out at start because of a damaged file (or all of them, for an unreadable
      // manifest) is loaded once the file matches again, before the answer is made of them.
      if (integrity)
        for (const name of await integrity.recover(ctx.stores as Record<string, unknown>))
          ctx.log.warn({ store: name }, 'store loaded after its file was repaired');
      // The build the stores were opened on: what is actually served, not what is on disk now.
      const served = storeIfOpen(ctx.stores, 'build')?.manifest;
      const data = served ? { build_id: served.build_id, built_at: served.created_at, synthetic: served.synthetic === true } : null;
      const database = await databaseStatus(ctx.stores.accounts);
      const partitions = await partitionFaults(ctx.stores.observations);
      const damaged = integrity ? await integrity.faults() : [];
      const status = data && database.state === 'ok' && partitions.length === 0 && damaged.length === 0 ? 'ok' : 'degraded';
      return reply
        .code(status === 'ok' ? 200 : 503)
        .header('Cache-Control', 'no-store')
        .send({
          status,
          version: SERVICE_VERSION,
          data,
          database: database.state,
          database_error: database.error,
          source: storeIfOpen(ctx.stores, 'buildSource') ?? null,
          unavailable_partitions: partitions,
          damaged_files: damaged,
        });
    },
  });
}
