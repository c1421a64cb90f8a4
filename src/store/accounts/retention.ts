// Retention on SQLite: the purge as one IMMEDIATE transaction of SQLite statements, from the
// cutoffs and rules both stores share (shared/retention.ts).
import { deleteAccountSessions, deleteExpiredSessions } from './sessions-repo.js';
import { stmt, type Db } from './db.js';
import { anonymizeIp, retentionCutoffs, type RetentionReport } from './shared/retention.js';

export { anonymizeIp, monthsBefore, RETENTION, type RetentionReport } from './shared/retention.js';

export function runRetention(db: Db, now: number): RetentionReport {
  db.function('anonymize_ip', { deterministic: true }, (ip: unknown) => (typeof ip === 'string' ? anonymizeIp(ip) : ip));
  return db
    .transaction((): RetentionReport => {
      const cut = retentionCutoffs(now);
      const doomed = stmt(db, 'SELECT id FROM accounts WHERE deleted_at IS NOT NULL AND deleted_at <= ?').all(cut.deletedAccounts) as {
        id: string;
      }[];
      for (const { id } of doomed) {
        stmt(db, 'DELETE FROM request_log WHERE account_id = ?').run(id);
        stmt(db, 'DELETE FROM usage_periods WHERE account_id = ?').run(id);
        stmt(db, 'DELETE FROM usage_minutes WHERE account_id = ?').run(id);
        deleteAccountSessions(db, id);
        // api_keys and tos_acceptances go by ON DELETE CASCADE; billing rows stay (7-year rule).
        stmt(db, 'DELETE FROM accounts WHERE id = ?').run(id);
      }
      const requestLogsPurged = stmt(db, 'DELETE FROM request_log WHERE at < ?').run(cut.requestLog).changes;
      const usagePeriodsPurged = stmt(db, 'DELETE FROM usage_periods WHERE period < ?').run(cut.usagePeriod).changes;
      const ipsAnonymized =
        stmt(
          db,
          'UPDATE request_log SET ip = anonymize_ip(ip), ip_anonymized = 1 WHERE at < ? AND ip IS NOT NULL AND ip_anonymized = 0',
        ).run(cut.ip).changes +
        stmt(
          db,
          'UPDATE tos_acceptances SET ip = anonymize_ip(ip), ip_anonymized = 1 WHERE accepted_at < ? AND ip IS NOT NULL AND ip_anonymized = 0',
        ).run(cut.ip).changes;
      const burstWindowsPurged = stmt(db, 'DELETE FROM usage_minutes WHERE window_start < ?').run(cut.burstWindow).changes;
      const billingRecordsPurged =
        stmt(db, 'DELETE FROM stripe_events WHERE processed_at < ?').run(cut.billing).changes +
        stmt(db, 'DELETE FROM subscriptions WHERE updated_at < ?').run(cut.billing).changes;
      const sessionsPurged = deleteExpiredSessions(db, now);
      return {
        accountsPurged: doomed.length,
        requestLogsPurged,
        ipsAnonymized,
        burstWindowsPurged,
        usagePeriodsPurged,
        billingRecordsPurged,
        sessionsPurged,
      };
    })
    .immediate();
}
