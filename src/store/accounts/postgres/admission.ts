// Admission on PostgreSQL: one statement per event-loop turn, shared by every request admitted in
// that turn (cds_admit over the batch, autocommitted). Monthly units, burst and concurrency are
// shared counters that any replica may move at any moment, so checking them exactly needs the
// database; batching is what keeps the cost per request low. A concurrency slot is a row of
// concurrency_leases, renewed while held and released off the request's path (one DELETE per
// turn); a replica that dies leaves slots that stop counting at their expiry.
import { randomUUID } from 'node:crypto';
import type { AdmitInput, AdmitOutcome, Lease, UsagePeek } from '../store.js';
import { AccountsUnavailableError, type PgDb } from './connection.js';

interface PendingAdmit {
  input: AdmitInput;
  leaseId: string | null;
  resolve: (o: AdmitOutcome) => void;
  reject: (e: unknown) => void;
}

interface AdmitRow {
  ord: number;
  outcome: string;
  monthly_used: number | null;
  burst_used: number | null;
  in_flight: number;
  log_id: number | null;
}

const MAX_PEEK = 10_000;

export class PgAdmission {
  private readonly held = new Map<string, { leaseId: string; lease: Lease }>();
  private readonly peeks = new Map<string, UsagePeek & { period: string; minute: number }>();
  private queue: PendingAdmit[] = [];
  private scheduled = false;
  private admitting = false;
  private releases: string[] = [];
  private renewals = 0;
  private closed = false;
  /** Admission statements sent and requests in them, for the benchmark and tests. */
  readonly stats = { batches: 0, admissions: 0 };

  constructor(
    private readonly db: PgDb,
    private readonly leaseTtlMs: number,
  ) {}

  admit(input: AdmitInput): Promise<AdmitOutcome> {
    const held = this.held.get(input.requestId);
    return new Promise<AdmitOutcome>((resolve, reject) => {
      this.queue.push({ input, leaseId: held ? null : randomUUID(), resolve, reject });
      this.schedule();
    });
  }

  /**
   * Group commit: one admission statement in flight at a time; what arrives meanwhile waits for
   * it and goes out together in the next one. Every commit is a WAL flush on the database, so
   * fewer, larger batches are what keeps the cost per request low under load, at the price of at
   * most one extra round trip of latency.
   */
  private schedule(): void {
    if (this.scheduled || this.admitting || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.admitting = true;
      void this.flush().finally(() => {
        this.admitting = false;
        this.schedule();
      });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    let rows: AdmitRow[];
    let order: number[];
    try {
      ({ rows, order } = await this.send(batch));
    } catch (e) {
      // One statement, so all or nothing: nobody in the batch was charged.
      for (const p of batch) p.reject(e);
      return;
    }
    this.stats.batches++;
    this.stats.admissions += batch.length;
    const answered = new Set<PendingAdmit>();
    for (const row of rows) {
      const p = batch[order[row.ord - 1]!]!;
      answered.add(p);
      p.resolve(this.outcome(p, row));
    }
    for (const p of batch) if (!answered.has(p)) p.reject(new AccountsUnavailableError('no answer for this admission'));
  }

  /** The batch as one cds_admit statement over arrays, one row back per request (by ordinal). */
  private async send(batch: PendingAdmit[]): Promise<{ rows: AdmitRow[]; order: number[] }> {
    // Sorted by account: every batch takes the per-account locks in one global order (no deadlock).
    const order = batch
      .map((_, i) => i)
      .sort((a, b) =>
        batch[a]!.input.accountId < batch[b]!.input.accountId ? -1 : batch[a]!.input.accountId > batch[b]!.input.accountId ? 1 : a - b,
      );
    const col = <T>(f: (p: PendingAdmit) => T) => order.map((i) => f(batch[i]!));
    const r = await this.db.q<AdmitRow>(
      `SELECT t.ord::int AS ord, r.* FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[],
         $8::text[], $9::text[], $10::bigint[], $11::text[], $12::int[]) WITH ORDINALITY
         AS t(account, key, period, minute, cost, monthly, burst, route, ip, now, lease, maxc, ord)
         CROSS JOIN LATERAL cds_admit(t.account, t.key, t.period, t.minute, t.cost, t.monthly, t.burst, t.route, t.ip, t.now, t.lease, t.maxc, $13)
         AS r`,
      [
        col((p) => p.input.accountId),
        col((p) => p.input.keyId),
        col((p) => p.input.period),
        col((p) => p.input.minute),
        col((p) => p.input.cost),
        col((p) => p.input.monthlyQuota),
        col((p) => p.input.burstQuota),
        col((p) => p.input.route),
        col((p) => p.input.ip),
        col((p) => p.input.now),
        col((p) => p.leaseId),
        col((p) => p.input.maxConcurrent),
        Date.now() + this.leaseTtlMs,
      ],
    );
    return { rows: r.rows, order };
  }

  private outcome(p: PendingAdmit, row: AdmitRow): AdmitOutcome {
    const { input } = p;
    const monthlyUsed = row.monthly_used ?? 0;
    const burstUsed = row.burst_used ?? 0;
    this.notePeek(input.accountId, input.period, input.minute, { monthlyUnits: monthlyUsed, burst: burstUsed, inFlight: row.in_flight });
    if (row.outcome !== 'ok') {
      return { ok: false, limit: row.outcome as 'concurrency' | 'monthly' | 'burst', monthlyUsed, burstUsed, inFlight: row.in_flight };
    }
    // A request charged again keeps the slot it holds (no new lease was taken for it).
    const lease =
      this.held.get(input.requestId)?.lease ??
      (p.leaseId ? this.holdLease(input.requestId, input.accountId, p.leaseId) : { accountId: input.accountId, release: () => {} });
    return { ok: true, monthlyUsed, burstUsed, inFlight: row.in_flight, logId: row.log_id!, lease };
  }

  private holdLease(requestId: string, accountId: string, leaseId: string): Lease {
    let released = false;
    const lease: Lease = {
      accountId,
      release: () => {
        if (released) return;
        released = true;
        if (this.held.get(requestId)?.leaseId === leaseId) this.held.delete(requestId);
        const peek = this.peeks.get(accountId);
        if (peek) peek.inFlight = Math.max(0, peek.inFlight - 1);
        // Off the request's path, batched per event-loop turn; if it fails the lease lapses at its
        // expiry instead.
        this.releases.push(leaseId);
        if (this.releases.length === 1) setImmediate(() => this.flushReleases());
      },
    };
    this.held.set(requestId, { leaseId, lease });
    return lease;
  }

  private flushReleases(): void {
    const ids = this.releases;
    this.releases = [];
    if (ids.length === 0 || this.closed) return;
    this.db.pool.query('SELECT cds_release($1::text[])', [ids]).catch(() => {});
  }

  private notePeek(accountId: string, period: string, minute: number, p: UsagePeek): void {
    this.peeks.delete(accountId);
    if (this.peeks.size >= MAX_PEEK) this.peeks.delete(this.peeks.keys().next().value!);
    this.peeks.set(accountId, { ...p, period, minute });
  }

  /** Counters as of this replica's last admission for the account. */
  peekUsage(accountId: string, period: string, minute: number): UsagePeek {
    const p = this.peeks.get(accountId);
    return {
      monthlyUnits: p && p.period === period ? p.monthlyUnits : 0,
      burst: p && p.minute === minute ? p.burst : 0,
      inFlight: p ? p.inFlight : 0,
    };
  }

  heldBy(requestId: string) {
    return this.held.get(requestId)?.lease;
  }

  releaseRequest(requestId: string): void {
    this.held.get(requestId)?.lease.release();
  }

  get leasesHeld(): number {
    return this.held.size;
  }

  /** Keep the held slots alive (every third of their lifetime); now and then clear out dead replicas' slots. */
  async renewLeases(): Promise<void> {
    const now = Date.now();
    const ids = [...this.held.values()].map((h) => h.leaseId);
    try {
      if (ids.length > 0) {
        await this.db.pool.query('UPDATE concurrency_leases SET expires_at = $1 WHERE id = ANY($2::text[])', [now + this.leaseTtlMs, ids]);
      }
      // Slots of replicas that died stop counting once expired; clear them out now and then.
      if (++this.renewals % 12 === 0)
        await this.db.pool.query('DELETE FROM concurrency_leases WHERE expires_at < $1', [now - this.leaseTtlMs]);
    } catch {
      // Next round retries; a lease that lapses meanwhile only frees a slot early.
    }
  }

  /** Give every slot this replica holds or is releasing back at once. */
  async close(): Promise<void> {
    this.closed = true;
    const ids = [...this.held.values()].map((h) => h.leaseId).concat(this.releases);
    this.held.clear();
    this.releases = [];
    if (ids.length > 0) await this.db.pool.query('DELETE FROM concurrency_leases WHERE id = ANY($1::text[])', [ids]).catch(() => {});
  }
}
