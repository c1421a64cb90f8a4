// Usage records as both accounts stores take and report them.

/** One request's charge against the account's monthly units and per-minute burst. */
export interface ChargeInput {
  accountId: string;
  keyId: string | null;
  period: string;
  minute: number;
  cost: number;
  monthlyQuota: number;
  burstQuota: number;
  route: string;
  ip: string | null;
  now: number;
}

/** One row of an account's usage breakdown (by day, route or key). */
export interface UsageBreakdownRow {
  key: string;
  units: number;
  requests: number;
}

/** A request's charge to give back (its request_log row is the receipt). */
export interface RefundInput {
  accountId: string;
  period: string;
  logId: number;
}
