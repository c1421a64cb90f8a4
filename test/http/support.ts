// Shared fixtures for HTTP tests: a config, a key authenticator backed by an in-memory table and
// an app builder. The authenticator follows the accounts contract (AppError invalid-api-key for
// unknown, malformed and revoked keys) so route tests exercise the same 401 paths as production.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { AppError } from '../../src/domain/errors.js';
import { buildApp, type BuildAppOptions } from '../../src/http/app.js';
import type { KeyAuthenticator } from '../../src/http/plugins/context.js';
import type { Caller } from '../../src/context/verb-context.js';

export const KEYS = {
  free: 'svc_live_free0000000000000000000000000000'.slice(0, 41),
  pro: 'svc_live_pro00000000000000000000000000000'.slice(0, 41),
  revoked: 'svc_live_revoked0000000000000000000000000'.slice(0, 41),
  unknown: 'svc_live_unknown0000000000000000000000000'.slice(0, 41),
  malformed: 'not-a-key',
};

const CALLERS: Record<string, Caller> = {
  [KEYS.free]: { accountId: 'acc_free', keyId: 'key_free', plan: 'free' },
  [KEYS.pro]: { accountId: 'acc_pro', keyId: 'key_pro', plan: 'pro' },
};

export const tableAuthenticator: KeyAuthenticator = async (raw) => {
  if (!/^svc_live_\S{32}$/.test(raw)) throw new AppError('invalid-api-key', 'The API key is malformed.');
  if (raw === KEYS.revoked) throw new AppError('invalid-api-key', 'The API key was revoked.');
  const caller = CALLERS[raw];
  if (!caller) throw new AppError('invalid-api-key', 'The API key is not recognised.');
  return caller;
};

export function emptyDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cds-http-'));
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: emptyDataDir() }, overrides);
}

export async function makeApp(opts: Partial<BuildAppOptions> & { configOverrides?: Partial<Config> } = {}): Promise<FastifyInstance> {
  const config = opts.config ?? testConfig(opts.configOverrides);
  const app = await buildApp({
    stores: {},
    seams: { authenticateKey: tableAuthenticator },
    ...opts,
    config,
  });
  await app.ready();
  return app;
}

/** A pino logger whose output is kept in memory, for assertions on what gets logged. */
export function captureLogger(level: pino.Level = 'debug') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { logger: pino({ level }, stream), lines, text: () => lines.join('') };
}

export function problemOf(res: { headers: Record<string, unknown>; json: () => unknown }) {
  return res.json() as {
    type: string;
    title: string;
    status: number;
    detail: string;
    request_id: string;
    instance: string | null;
    errors: Array<{ field: string; message: string; type: string }> | null;
    [k: string]: unknown;
  };
}
