// Retention periods (spec, "States and transitions"): soft-deleted accounts purged after 30 days,
// request logs after 24 months, IP addresses anonymized after 12 months, billing records after
// 7 years. Support communications (3 years) are not stored by this service.
import { deleteAccountSessions, deleteExpiredSessions } from './sessions-repo.js';
import { stmt, type Db } from './db.js';

const DAY = 86_400_000;

/** Month arithmetic on the calendar (24 months ago = same day-of-month), not 30-day blocks. */
export function monthsBefore(now: number, months: number): number {
  const d = new Date(now);
  d.setUTCMonth(d.getUTCMonth() - months);
  return d.getTime();
}

export const RETENTION = {
  deletedAccountDays: 30,
  usageLogMonths: 24,
  ipAnonymizeMonths: 12,
  billingYears: 7,
  supportYears: 3,
  /** Burst windows older than this are dead weight: only the current minute is ever read. */
  burstWindowHours: 2,
} as const;

/**
 * Keep the network part, drop the host part: IPv4 /24 (a.b.c.0), IPv6 /48. Aggregate geography
 * and abuse analysis still work; the address no longer identifies a subscriber line.
 */
export function anonymizeIp(ip: string): string {
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.\d{1,3}$/i.exec(ip);
  if (v4) return `${v4[1]}.${v4[2]}.${v4[3]}.0`;
  if (ip.includes(':')) {
    const [head] = ip.split('::');
    const groups = (head ?? '').split(':').filter(Boolean).slice(0, 3);
    while (groups.length < 3) groups.push('0');
    return `${groups.join(':')}::`;
  }
  return '0.0.0.0';
}

export interface RetentionReport {
  accountsPurged: number;
  requestLogsPurged: number;
  ipsAnonymized: number;
  burstWindowsPurged: number;
  usagePeriodsPurged: number;
  billingRecordsPurged: number;
  /** Expired dashboard sign-in sessions (and every session of a purged account). */
  sessionsPurged: number;
}

export function runRetention(db: Db, now: number): RetentionReport {
  db.function('anonymize_ip', { deterministic: true }, (ip: unknown) => (typeof ip === 'string' ? anonymizeIp(ip) : ip));
  return db
    .transaction((): RetentionReport => {
      const accountCutoff = now - RETENTION.deletedAccountDays * DAY;
      const doomed = stmt(db, 'SELECT id FROM accounts WHERE deleted_at IS NOT NULL AND deleted_at <= ?').all(accountCutoff) as {
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
      const logCutoff = monthsBefore(now, RETENTION.usageLogMonths);
      const requestLogsPurged = stmt(db, 'DELETE FROM request_log WHERE at < ?').run(logCutoff).changes;
      const usagePeriodsPurged = stmt(db, 'DELETE FROM usage_periods WHERE period < ?').run(
        new Date(logCutoff).toISOString().slice(0, 7),
      ).changes;
      const ipCutoff = monthsBefore(now, RETENTION.ipAnonymizeMonths);
      const ipsAnonymized =
        stmt(
          db,
          'UPDATE request_log SET ip = anonymize_ip(ip), ip_anonymized = 1 WHERE at < ? AND ip IS NOT NULL AND ip_anonymized = 0',
        ).run(ipCutoff).changes +
        stmt(
          db,
          'UPDATE tos_acceptances SET ip = anonymize_ip(ip), ip_anonymized = 1 WHERE accepted_at < ? AND ip IS NOT NULL AND ip_anonymized = 0',
        ).run(ipCutoff).changes;
      const burstWindowsPurged = stmt(db, 'DELETE FROM usage_minutes WHERE window_start < ?').run(
        now - RETENTION.burstWindowHours * 3_600_000,
      ).changes;
      const billingCutoff = monthsBefore(now, RETENTION.billingYears * 12);
      const billingRecordsPurged =
        stmt(db, 'DELETE FROM stripe_events WHERE processed_at < ?').run(billingCutoff).changes +
        stmt(db, 'DELETE FROM subscriptions WHERE updated_at < ?').run(billingCutoff).changes;
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
