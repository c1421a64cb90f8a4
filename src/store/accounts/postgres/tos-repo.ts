// Terms-of-service documents, acceptances and an account's state on PostgreSQL: the shared
// programs (../shared/tos.ts, which decides) answered with PostgreSQL's reads.
import type { Config } from '../../../config.js';
import { runAsync, type Statement } from '../shared/program.js';
import { currentTosProgram, tosStateProgram, type TosAcceptance, type TosDocument, type TosState, type TosStep } from '../shared/tos.js';
import type { Pg } from './connection.js';

async function tosStep(c: Pg, s: Statement<TosStep>): Promise<unknown> {
  switch (s.op) {
    case 'getTos':
      return c.one<TosDocument>('SELECT * FROM tos_documents WHERE version = $1', [s.version]);
    case 'latestEffectiveTos':
      return c.one<TosDocument>(
        'SELECT * FROM tos_documents WHERE effective_at <= $1 ORDER BY effective_at DESC, created_at DESC LIMIT 1',
        [s.now],
      );
    case 'hasAccepted':
      return (
        (await c.one('SELECT 1 FROM tos_acceptances WHERE account_id = $1 AND version = $2 LIMIT 1', [s.accountId, s.version])) !==
        undefined
      );
  }
}

/** Reads only: nothing to lock. */
const noLock = async () => {};

export function currentTos(c: Pg, config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number): Promise<TosDocument | undefined> {
  return runAsync(currentTosProgram(config, now), (s) => tosStep(c, s), noLock);
}

export function tosState(
  c: Pg,
  config: Pick<Config, 'TOS_CURRENT_VERSION'>,
  account: { id: string; created_at: number },
  now: number,
): Promise<TosState> {
  return runAsync(tosStateProgram(config, account, now), (s) => tosStep(c, s), noLock);
}

/** When the next document dated after `now` comes into force (a cached terms state expires then). */
export async function nextTosChange(c: Pg, now: number): Promise<number | null> {
  return (await c.one<{ t: number | null }>('SELECT min(effective_at) AS t FROM tos_documents WHERE effective_at > $1', [now]))?.t ?? null;
}

export async function publishTos(
  c: Pg,
  d: { version: string; effectiveAt: number; url?: string | null; sha256?: string | null; now: number },
) {
  return (await c.one<TosDocument>(
    `INSERT INTO tos_documents (version, effective_at, url, sha256, created_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (version) DO UPDATE SET effective_at = excluded.effective_at, url = excluded.url, sha256 = excluded.sha256 RETURNING *`,
    [d.version, d.effectiveAt, d.url ?? null, d.sha256 ?? null, d.now],
  ))!;
}

export async function recordAcceptance(
  c: Pg,
  a: { accountId: string; version: string; ip: string | null; userAgent: string | null; now: number },
) {
  return (await c.one<TosAcceptance>(
    `INSERT INTO tos_acceptances (account_id, version, accepted_at, ip, user_agent) VALUES ($1, $2, $3, $4, $5)
     RETURNING id, account_id, version, accepted_at, ip, user_agent`,
    [a.accountId, a.version, a.now, a.ip, a.userAgent],
  ))!;
}
