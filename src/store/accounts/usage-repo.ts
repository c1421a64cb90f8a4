// Usage counters. Admission is one IMMEDIATE transaction of conditional UPDATEs: the WHERE clause
// does the limit check and the increment together, so two writers (threads, processes) can never
// both pass a check that only one of them fits under.
import { stmt, type Db } from './db.js';
import type { ChargeInput, RefundInput, UsageBreakdownRow } from './shared/usage.js';

export type { ChargeInput, RefundInput, UsageBreakdownRow } from './shared/usage.js';

export type ChargeOutcome =
  | { ok: true; monthlyUsed: number; burstUsed: number; /** request_log row: what refund() undoes. */ logId: number }
  | { ok: false; limit: 'monthly' | 'burst'; monthlyUsed: number; burstUsed: number };

export function charge(db: Db, c: ChargeInput): ChargeOutcome {
  return db
    .transaction((): ChargeOutcome => {
      stmt(db, 'INSERT OR IGNORE INTO usage_periods (account_id, period) VALUES (?, ?)').run(c.accountId, c.period);
      const m = stmt(
        db,
        `UPDATE usage_periods SET units = units + ?, requests = requests + 1
        WHERE account_id = ? AND period = ? AND units + ? <= ? RETURNING units`,
      ).get(c.cost, c.accountId, c.period, c.cost, c.monthlyQuota) as { units: number } | undefined;
      stmt(db, 'INSERT OR IGNORE INTO usage_minutes (account_id, window_start) VALUES (?, ?)').run(c.accountId, c.minute);
      if (!m) return refusedMonthly(db, c);
      const b = stmt(
        db,
        `UPDATE usage_minutes SET requests = requests + 1
        WHERE account_id = ? AND window_start = ? AND requests + 1 <= ? RETURNING requests`,
      ).get(c.accountId, c.minute, c.burstQuota) as { requests: number } | undefined;
      if (!b) {
        // Throwing rolls the monthly increment back with the rest of the transaction.
        throw new BurstExceeded(burstRequests(db, c.accountId, c.minute), m.units - c.cost);
      }
      return { ok: true, monthlyUsed: m.units, burstUsed: b.requests, logId: logCharge(db, c) };
    })
    .immediate();
}

class BurstExceeded extends Error {
  constructor(
    readonly burstUsed: number,
    readonly monthlyUsed: number,
  ) {
    super('burst');
  }
}

/**
 * Give back what a request was charged when it was not served (5xx, or cut off before its last
 * byte). Charging stays up front — the quota check and the increment are one atomic step, so no
 * concurrent request can slip past the limit — and a failure undoes it afterwards. The request's
 * log row is the receipt: deleting it and returning its units happen in one transaction, and a
 * second refund of the same request finds no row and does nothing. The per-minute burst count is
 * not given back: it limits attempts, served or not.
 */
export function refund(db: Db, r: RefundInput): boolean {
  return db
    .transaction((): boolean => {
      const row = stmt(db, 'DELETE FROM request_log WHERE id = ? AND account_id = ? RETURNING units').get(r.logId, r.accountId) as
        { units: number } | undefined;
      if (!row) return false;
      stmt(
        db,
        'UPDATE usage_periods SET units = max(0, units - ?), requests = max(0, requests - 1) WHERE account_id = ? AND period = ?',
      ).run(row.units, r.accountId, r.period);
      return true;
    })
    .immediate();
}

/**
 * charge() for a batch that already holds the write lock (charge-batcher.ts): the same checks and
 * the same outcome, in three statements and no savepoint instead of five and a savepoint. Each
 * counter is one UPSERT whose DO UPDATE ... WHERE is the limit check (no row comes back when it
 * fails); a first row starts at the charge itself, which the quota checks in JS cover. A burst
 * refusal after the monthly increment undoes it with one UPDATE (the row may stay, at zero, as
 * rows of refused charges already did). Any SQLite error is thrown: the batch is then rolled
 * back whole and run again charge by charge, each in its own savepoint (tryCharge).
 */
export function chargeHoldingLock(db: Db, c: ChargeInput): ChargeOutcome {
  const m =
    c.cost <= c.monthlyQuota
      ? (stmt(
          db,
          `INSERT INTO usage_periods (account_id, period, units, requests) VALUES (?, ?, ?, 1)
          ON CONFLICT (account_id, period) DO UPDATE SET units = units + excluded.units, requests = requests + 1
          WHERE units + excluded.units <= ? RETURNING units`,
        ).get(c.accountId, c.period, c.cost, c.monthlyQuota) as { units: number } | undefined)
      : undefined;
  if (!m) return refusedMonthly(db, c);
  const b =
    c.burstQuota >= 1
      ? (stmt(
          db,
          `INSERT INTO usage_minutes (account_id, window_start, requests) VALUES (?, ?, 1)
          ON CONFLICT (account_id, window_start) DO UPDATE SET requests = requests + 1
          WHERE requests + 1 <= ? RETURNING requests`,
        ).get(c.accountId, c.minute, c.burstQuota) as { requests: number } | undefined)
      : undefined;
  if (!b) {
    stmt(db, 'UPDATE usage_periods SET units = units - ?, requests = requests - 1 WHERE account_id = ? AND period = ?').run(
      c.cost,
      c.accountId,
      c.period,
    );
    return { ok: false, limit: 'burst', monthlyUsed: m.units - c.cost, burstUsed: burstRequests(db, c.accountId, c.minute) };
  }
  return { ok: true, monthlyUsed: m.units, burstUsed: b.requests, logId: logCharge(db, c) };
}

/** A charge refused by the monthly quota, with the counters as they stand. */
function refusedMonthly(db: Db, c: ChargeInput): ChargeOutcome {
  return {
    ok: false,
    limit: 'monthly',
    monthlyUsed: monthlyUnits(db, c.accountId, c.period),
    burstUsed: burstRequests(db, c.accountId, c.minute),
  };
}

/** The request's receipt in request_log (what refund() deletes); its row id. */
function logCharge(db: Db, c: ChargeInput): number {
  const log = stmt(db, 'INSERT INTO request_log (account_id, key_id, at, route, units, ip) VALUES (?, ?, ?, ?, ?, ?)').run(
    c.accountId,
    c.keyId,
    c.now,
    c.route,
    c.cost,
    c.ip,
  );
  return Number(log.lastInsertRowid);
}

/** charge() with the burst rollback turned back into a value. */
export function tryCharge(db: Db, c: ChargeInput): ChargeOutcome {
  try {
    return charge(db, c);
  } catch (e) {
    if (e instanceof BurstExceeded) return { ok: false, limit: 'burst', monthlyUsed: e.monthlyUsed, burstUsed: e.burstUsed };
    throw e;
  }
}

export function monthlyUnits(db: Db, accountId: string, period: string): number {
  const r = stmt(db, 'SELECT units FROM usage_periods WHERE account_id = ? AND period = ?').get(accountId, period) as
    { units: number } | undefined;
  return r?.units ?? 0;
}

export function monthlyRequests(db: Db, accountId: string, period: string): number {
  const r = stmt(db, 'SELECT requests FROM usage_periods WHERE account_id = ? AND period = ?').get(accountId, period) as
    { requests: number } | undefined;
  return r?.requests ?? 0;
}

export function burstRequests(db: Db, accountId: string, minute: number): number {
  const r = stmt(db, 'SELECT requests FROM usage_minutes WHERE account_id = ? AND window_start = ?').get(accountId, minute) as
    { requests: number } | undefined;
  return r?.requests ?? 0;
}

export function usageByDay(db: Db, accountId: string, from: number, to: number): UsageBreakdownRow[] {
  return stmt(
    db,
    `SELECT strftime('%Y-%m-%d', at / 1000, 'unixepoch') AS key, sum(units) AS units, count(*) AS requests
       FROM request_log WHERE account_id = ? AND at >= ? AND at < ? GROUP BY key ORDER BY key`,
  ).all(accountId, from, to) as UsageBreakdownRow[];
}

export function usageByRoute(db: Db, accountId: string, from: number, to: number): UsageBreakdownRow[] {
  return stmt(
    db,
    `SELECT route AS key, sum(units) AS units, count(*) AS requests
       FROM request_log WHERE account_id = ? AND at >= ? AND at < ? GROUP BY route ORDER BY units DESC, route`,
  ).all(accountId, from, to) as UsageBreakdownRow[];
}

export function usageByKey(db: Db, accountId: string, from: number, to: number): UsageBreakdownRow[] {
  return stmt(
    db,
    `SELECT coalesce(key_id, '') AS key, sum(units) AS units, count(*) AS requests
       FROM request_log WHERE account_id = ? AND at >= ? AND at < ? GROUP BY key_id ORDER BY units DESC`,
  ).all(accountId, from, to) as UsageBreakdownRow[];
}
