// Retention on PostgreSQL: the shared purge (../shared/retention.ts), each step one or more
// PostgreSQL statements, in the caller's transaction.
import { runAsync } from '../shared/program.js';
import { anonymizeIp, retentionProgram, type RetentionReport, type RetentionStep } from '../shared/retention.js';
import type { Pg } from './connection.js';

async function retentionStep(c: Pg, s: RetentionStep): Promise<unknown> {
  const count = async (sql: string, params: unknown[]) => (await c.q(sql, params)).rowCount ?? 0;
  switch (s.op) {
    case 'purgeDeletedAccounts': {
      const doomed = (
        await c.q<{ id: string }>('SELECT id FROM accounts WHERE deleted_at IS NOT NULL AND deleted_at <= $1', [s.deletedBefore])
      ).rows.map((r) => r.id);
      if (doomed.length === 0) return { accounts: 0, sessions: 0 };
      await c.q('DELETE FROM request_log WHERE account_id = ANY($1::text[])', [doomed]);
      await c.q('DELETE FROM usage_periods WHERE account_id = ANY($1::text[])', [doomed]);
      await c.q('DELETE FROM usage_minutes WHERE account_id = ANY($1::text[])', [doomed]);
      const sessions = await count('DELETE FROM dashboard_sessions WHERE account_id = ANY($1::text[])', [doomed]);
      await c.q('DELETE FROM accounts WHERE id = ANY($1::text[])', [doomed]);
      return { accounts: doomed.length, sessions };
    }
    case 'purgeRequestLog':
      return count('DELETE FROM request_log WHERE at < $1', [s.before]);
    case 'purgeUsagePeriods':
      return count('DELETE FROM usage_periods WHERE period < $1', [s.before]);
    case 'anonymizeIps': {
      let n = 0;
      for (const [table, at] of [
        ['request_log', 'at'],
        ['tos_acceptances', 'accepted_at'],
      ] as const) {
        // Anonymized in JavaScript (anonymizeIp), the one rule both stores apply.
        const rows = (
          await c.q<{ id: number; ip: string }>(`SELECT id, ip FROM ${table} WHERE ${at} < $1 AND ip IS NOT NULL AND NOT ip_anonymized`, [
            s.before,
          ])
        ).rows;
        if (rows.length === 0) continue;
        await c.q(
          `UPDATE ${table} t SET ip = v.ip, ip_anonymized = TRUE FROM unnest($1::bigint[], $2::text[]) AS v(id, ip) WHERE t.id = v.id`,
          [rows.map((r) => r.id), rows.map((r) => anonymizeIp(r.ip))],
        );
        n += rows.length;
      }
      return n;
    }
    case 'purgeBurstWindows':
      return count('DELETE FROM usage_minutes WHERE window_start < $1', [s.before]);
    case 'purgeBilling':
      return (
        (await count('DELETE FROM stripe_events WHERE processed_at < $1', [s.before])) +
        (await count('DELETE FROM subscriptions WHERE updated_at < $1', [s.before]))
      );
    case 'purgeExpiredSessions':
      return count('DELETE FROM dashboard_sessions WHERE expires_at <= $1', [s.now]);
  }
}

/** Runs inside the caller's transaction. */
export function runRetention(c: Pg, now: number): Promise<RetentionReport> {
  return runAsync(
    retentionProgram(now),
    (s) => retentionStep(c, s),
    async () => {},
  );
}
