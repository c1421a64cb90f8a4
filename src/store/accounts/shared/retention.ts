// Retention periods (spec, "States and transitions"), for both accounts stores: soft-deleted
// accounts purged after 30 days, request logs after 24 months, IP addresses anonymized after 12
// months, billing records after 7 years. Support communications (3 years) are not stored by this
// service. The purge is one program (retentionProgram, see program.ts) that each store runs in one
// transaction of its own, answering each step with its own statements.
import { step, type Program } from './program.js';

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

/** What is purged or anonymized at `now`: everything dated before these. */
export interface RetentionCutoffs {
  /** Soft-deleted accounts deleted at or before this are purged with their usage and sessions. */
  deletedAccounts: number;
  /** request_log rows (epoch ms). */
  requestLog: number;
  /** usage_periods rows (`YYYY-MM`). */
  usagePeriod: string;
  /** IP addresses in request_log and tos_acceptances. */
  ip: number;
  /** usage_minutes windows. */
  burstWindow: number;
  /** stripe_events and subscriptions. */
  billing: number;
}

export function retentionCutoffs(now: number): RetentionCutoffs {
  const requestLog = monthsBefore(now, RETENTION.usageLogMonths);
  return {
    deletedAccounts: now - RETENTION.deletedAccountDays * DAY,
    requestLog,
    usagePeriod: new Date(requestLog).toISOString().slice(0, 7),
    ip: monthsBefore(now, RETENTION.ipAnonymizeMonths),
    burstWindow: now - RETENTION.burstWindowHours * 3_600_000,
    billing: monthsBefore(now, RETENTION.billingYears * 12),
  };
}

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

/** The purge's statements; each answers how many rows it removed or changed. */
export type RetentionStep =
  /** Accounts soft-deleted at or before the cutoff, with their usage and sessions (api_keys and tos_acceptances go by ON DELETE CASCADE; billing rows stay: the 7-year rule). The result is { accounts, sessions }. */
  | { op: 'purgeDeletedAccounts'; deletedBefore: number }
  | { op: 'purgeRequestLog'; before: number }
  | { op: 'purgeUsagePeriods'; before: string }
  /** In request_log and tos_acceptances, each with anonymizeIp. */
  | { op: 'anonymizeIps'; before: number }
  | { op: 'purgeBurstWindows'; before: number }
  /** stripe_events and subscriptions. */
  | { op: 'purgeBilling'; before: number }
  | { op: 'purgeExpiredSessions'; now: number };

const count = (s: RetentionStep) => step<RetentionStep, number>(s);

export function* retentionProgram(now: number): Program<RetentionStep, RetentionReport> {
  const cut = retentionCutoffs(now);
  const purged = yield* step<RetentionStep, { accounts: number; sessions: number }>({
    op: 'purgeDeletedAccounts',
    deletedBefore: cut.deletedAccounts,
  });
  const requestLogsPurged = yield* count({ op: 'purgeRequestLog', before: cut.requestLog });
  const usagePeriodsPurged = yield* count({ op: 'purgeUsagePeriods', before: cut.usagePeriod });
  const ipsAnonymized = yield* count({ op: 'anonymizeIps', before: cut.ip });
  const burstWindowsPurged = yield* count({ op: 'purgeBurstWindows', before: cut.burstWindow });
  const billingRecordsPurged = yield* count({ op: 'purgeBilling', before: cut.billing });
  const sessionsPurged = purged.sessions + (yield* count({ op: 'purgeExpiredSessions', now }));
  return {
    accountsPurged: purged.accounts,
    requestLogsPurged,
    ipsAnonymized,
    burstWindowsPurged,
    usagePeriodsPurged,
    billingRecordsPurged,
    sessionsPurged,
  };
}
