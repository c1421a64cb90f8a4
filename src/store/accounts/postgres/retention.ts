// Retention on PostgreSQL: the purge as one transaction of PostgreSQL statements, from the
// cutoffs and rules both stores share (../shared/retention.ts).
import { anonymizeIp, retentionCutoffs, type RetentionReport } from '../shared/retention.js';
import type { Pg } from './connection.js';

/** Runs inside the caller's transaction. */
export async function runRetention(c: Pg, now: number): Promise<RetentionReport> {
  const cut = retentionCutoffs(now);
  const count = async (sql: string, params: unknown[]) => (await c.q(sql, params)).rowCount ?? 0;
  const doomed = (
    await c.q<{ id: string }>('SELECT id FROM accounts WHERE deleted_at IS NOT NULL AND deleted_at <= $1', [cut.deletedAccounts])
  ).rows.map((r) => r.id);
  let sessionsPurged = 0;
  if (doomed.length > 0) {
    await c.q('DELETE FROM request_log WHERE account_id = ANY($1::text[])', [doomed]);
    await c.q('DELETE FROM usage_periods WHERE account_id = ANY($1::text[])', [doomed]);
    await c.q('DELETE FROM usage_minutes WHERE account_id = ANY($1::text[])', [doomed]);
    sessionsPurged += await count('DELETE FROM dashboard_sessions WHERE account_id = ANY($1::text[])', [doomed]);
    // api_keys and tos_acceptances go by ON DELETE CASCADE; billing rows stay (7-year rule).
    await c.q('DELETE FROM accounts WHERE id = ANY($1::text[])', [doomed]);
  }
  const requestLogsPurged = await count('DELETE FROM request_log WHERE at < $1', [cut.requestLog]);
  const usagePeriodsPurged = await count('DELETE FROM usage_periods WHERE period < $1', [cut.usagePeriod]);
  let ipsAnonymized = 0;
  for (const [table, at] of [
    ['request_log', 'at'],
    ['tos_acceptances', 'accepted_at'],
  ] as const) {
    // Anonymized in JavaScript (anonymizeIp), the one rule both stores apply.
    const rows = (
      await c.q<{ id: number; ip: string }>(`SELECT id, ip FROM ${table} WHERE ${at} < $1 AND ip IS NOT NULL AND NOT ip_anonymized`, [
        cut.ip,
      ])
    ).rows;
    if (rows.length === 0) continue;
    await c.q(
      `UPDATE ${table} t SET ip = v.ip, ip_anonymized = TRUE FROM unnest($1::bigint[], $2::text[]) AS v(id, ip) WHERE t.id = v.id`,
      [rows.map((r) => r.id), rows.map((r) => anonymizeIp(r.ip))],
    );
    ipsAnonymized += rows.length;
  }
  const burstWindowsPurged = await count('DELETE FROM usage_minutes WHERE window_start < $1', [cut.burstWindow]);
  const billingRecordsPurged =
    (await count('DELETE FROM stripe_events WHERE processed_at < $1', [cut.billing])) +
    (await count('DELETE FROM subscriptions WHERE updated_at < $1', [cut.billing]));
  sessionsPurged += await count('DELETE FROM dashboard_sessions WHERE expires_at <= $1', [now]);
  return {
    accountsPurged: doomed.length,
    requestLogsPurged,
    ipsAnonymized,
    burstWindowsPurged,
    usagePeriodsPurged,
    billingRecordsPurged,
    sessionsPurged,
  };
}
