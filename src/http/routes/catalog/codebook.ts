// GET /v1/codebook.json and /v1/codebook.csv: the ETL's static exports of the whole catalog,
// served from the build the stores were opened on (stores.build) with a strong ETag and a 24-hour
// cache lifetime. The bytes are kept in memory keyed by file identity.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { storeIfOpen } from '../../../context/stores.js';
import { CODEBOOK_COLUMNS } from '../../../store/codebook-columns.js';
import { FILE_CACHE_CONTROL, ifNoneMatch, setCaching } from '../../caching.js';
import { defineRawRoute } from '../../route-helpers.js';

const CODEBOOK_ROW = {
  type: 'object',
  required: [...CODEBOOK_COLUMNS],
  properties: Object.fromEntries(CODEBOOK_COLUMNS.map((c) => [c, { type: 'string' }])),
};

export const CODEBOOK_CACHE_CONTROL = FILE_CACHE_CONTROL;

interface StaticFile {
  key: string;
  body: Buffer;
  etag: string;
}

const cache = new Map<string, StaticFile>();

async function loadStatic(file: string): Promise<StaticFile | undefined> {
  const st = await fs.stat(file).catch(() => undefined);
  if (!st?.isFile()) return undefined;
  const key = `${st.ino}:${st.size}:${st.mtimeMs}`;
  const hit = cache.get(file);
  if (hit?.key === key) return hit;
  const body = await fs.readFile(file);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  const entry = { key, body, etag };
  cache.set(file, entry);
  return entry;
}

export async function sendStatic(req: FastifyRequest, reply: FastifyReply, file: StaticFile, type: string, downloadName: string) {
  reply.header('ETag', file.etag);
  setCaching(reply, CODEBOOK_CACHE_CONTROL);
  if (ifNoneMatch(req.headers['if-none-match'], file.etag)) return reply.code(304).send();
  return reply.type(type).header('Content-Disposition', `attachment; filename="${downloadName}"`).send(file.body);
}

function codebookRoute(app: FastifyInstance, ext: 'json' | 'csv', type: string) {
  defineRawRoute(app, {
    url: `/v1/codebook.${ext}`,
    summary: `Download the variable codebook (${ext.toUpperCase()})`,
    description: 'Static export of the full catalog from the live data build. Cached 24 hours; strong ETag, If-None-Match → 304.',
    tags: ['catalog'],
    auth: 'api-key',
    produces: [type],
    docResponses: {
      200: {
        description: `The codebook (${ext.toUpperCase()}), as an attachment. Carries ETag and Cache-Control.`,
        headers: { 'Content-Disposition': { type: 'string', description: '`attachment; filename="…"`.' } },
        content: { [type.split(';')[0]!]: { schema: ext === 'json' ? { type: 'array', items: CODEBOOK_ROW } : { type: 'string' } } },
      },
      304: { description: 'Not Modified: If-None-Match matched the ETag; no body.' },
    },
    handler: async ({ ctx, req, reply }) => {
      const build = storeIfOpen(ctx.stores, 'build')?.dir;
      // Checked against the build's checksums first: a damaged file is named in /health, not served.
      await storeIfOpen(ctx.stores, 'integrity')?.require(
        `catalog/codebook.${ext}`,
        'The codebook is temporarily unavailable; retry with backoff.',
      );
      const file = build ? await loadStatic(path.join(build, 'catalog', `codebook.${ext}`)) : undefined;
      if (!file) {
        ctx.log.warn({ build, ext }, 'codebook file missing');
        throw new AppError('dependency-unavailable', 'The codebook is not available yet; retry with backoff.');
      }
      return sendStatic(req, reply, file, type, `codebook.${ext}`);
    },
  });
}

export function codebookRoutes(app: FastifyInstance) {
  codebookRoute(app, 'json', 'application/json; charset=utf-8');
  codebookRoute(app, 'csv', 'text/csv; charset=utf-8');
}
