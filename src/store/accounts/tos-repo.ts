// Terms-of-service documents and the acceptance audit trail (ip, user agent, time, version), on SQLite.
import { stmt, type Db } from './db.js';
import type { TosAcceptance, TosDocument } from './shared/tos.js';

export type { TosAcceptance, TosDocument } from './shared/tos.js';

export function publishTos(
  db: Db,
  d: { version: string; effectiveAt: number; url?: string | null; sha256?: string | null; now: number },
): TosDocument {
  stmt(
    db,
    `INSERT INTO tos_documents (version, effective_at, url, sha256, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(version) DO UPDATE SET effective_at = excluded.effective_at, url = excluded.url, sha256 = excluded.sha256`,
  ).run(d.version, d.effectiveAt, d.url ?? null, d.sha256 ?? null, d.now);
  return getTos(db, d.version)!;
}

export function getTos(db: Db, version: string): TosDocument | undefined {
  return stmt(db, 'SELECT * FROM tos_documents WHERE version = ?').get(version) as TosDocument | undefined;
}

/** The newest document already in effect at `now`; a future-dated one waits its turn. */
export function latestEffectiveTos(db: Db, now: number): TosDocument | undefined {
  return stmt(db, 'SELECT * FROM tos_documents WHERE effective_at <= ? ORDER BY effective_at DESC, created_at DESC LIMIT 1').get(now) as
    TosDocument | undefined;
}

export function hasAccepted(db: Db, accountId: string, version: string): boolean {
  return stmt(db, 'SELECT 1 FROM tos_acceptances WHERE account_id = ? AND version = ? LIMIT 1').get(accountId, version) !== undefined;
}

export function recordAcceptance(
  db: Db,
  a: { accountId: string; version: string; ip: string | null; userAgent: string | null; now: number },
): TosAcceptance {
  const r = stmt(db, 'INSERT INTO tos_acceptances (account_id, version, accepted_at, ip, user_agent) VALUES (?, ?, ?, ?, ?)').run(
    a.accountId,
    a.version,
    a.now,
    a.ip,
    a.userAgent,
  );
  return stmt(db, 'SELECT id, account_id, version, accepted_at, ip, user_agent FROM tos_acceptances WHERE id = ?').get(
    r.lastInsertRowid,
  ) as TosAcceptance;
}

export function latestAcceptance(db: Db, accountId: string): TosAcceptance | undefined {
  return stmt(
    db,
    'SELECT id, account_id, version, accepted_at, ip, user_agent FROM tos_acceptances WHERE account_id = ? ORDER BY accepted_at DESC, id DESC LIMIT 1',
  ).get(accountId) as TosAcceptance | undefined;
}
