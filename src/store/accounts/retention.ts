// Retention on SQLite: the shared purge (shared/retention.ts) in one IMMEDIATE transaction, each
// step one or two SQLite statements.
import { deleteAccountSessions, deleteExpiredSessions } from './sessions-repo.js';
import { stmt, type Db } from './db.js';
import { runSync } from './shared/program.js';
import { anonymizeIp, retentionProgram, type RetentionReport, type RetentionStep } from './shared/retention.js';

export { anonymizeIp, monthsBefore, RETENTION, type RetentionReport } from './shared/retention.js';

function retentionStep(db: Db, s: RetentionStep): unknown {
  const changes = (sql: string, ...params: unknown[]) => stmt(db, sql).run(...params).changes;
  switch (s.op) {
    case 'purgeDeletedAccounts': {
      const doomed = stmt(db, 'SELECT id FROM accounts WHERE deleted_at IS NOT NULL AND deleted_at <= ?').all(s.deletedBefore) as {
        id: string;
      }[];
      let sessions = 0;
      for (const { id } of doomed) {
        changes('DELETE FROM request_log WHERE account_id = ?', id);
        changes('DELETE FROM usage_periods WHERE account_id = ?', id);
        changes('DELETE FROM usage_minutes WHERE account_id = ?', id);
        sessions += deleteAccountSessions(db, id);
        changes('DELETE FROM accounts WHERE id = ?', id);
      }
      return { accounts: doomed.length, sessions };
    }
    case 'purgeRequestLog':
      return changes('DELETE FROM request_log WHERE at < ?', s.before);
    case 'purgeUsagePeriods':
      return changes('DELETE FROM usage_periods WHERE period < ?', s.before);
    case 'anonymizeIps':
      return (
        changes(
          'UPDATE request_log SET ip = anonymize_ip(ip), ip_anonymized = 1 WHERE at < ? AND ip IS NOT NULL AND ip_anonymized = 0',
          s.before,
        ) +
        changes(
          'UPDATE tos_acceptances SET ip = anonymize_ip(ip), ip_anonymized = 1 WHERE accepted_at < ? AND ip IS NOT NULL AND ip_anonymized = 0',
          s.before,
        )
      );
    case 'purgeBurstWindows':
      return changes('DELETE FROM usage_minutes WHERE window_start < ?', s.before);
    case 'purgeBilling':
      return (
        changes('DELETE FROM stripe_events WHERE processed_at < ?', s.before) +
        changes('DELETE FROM subscriptions WHERE updated_at < ?', s.before)
      );
    case 'purgeExpiredSessions':
      return deleteExpiredSessions(db, s.now);
  }
}

export function runRetention(db: Db, now: number): RetentionReport {
  db.function('anonymize_ip', { deterministic: true }, (ip: unknown) => (typeof ip === 'string' ? anonymizeIp(ip) : ip));
  return db.transaction(() => runSync(retentionProgram(now), (s) => retentionStep(db, s))).immediate();
}
