// The accounts store on PostgreSQL (DATABASE_URL), shared by N replicas (docs/replicas.md). Like
// the SQLite store it only composes: one repository per concern (accounts-repo, keys-repo, …),
// the logic both stores share in ../shared (transactions as programs, run here between BEGIN and
// COMMIT), and the two parts only PostgreSQL has:
//   * authentication (key-auth.ts): no round trip on a cache hit; the auth generation arrives by
//     NOTIFY and a poll;
//   * admission (admission.ts): one statement per event-loop turn for every request admitted in
//     it; releasing a concurrency slot is one DELETE after the response, off the request's path.
import type { Config } from '../../../config.js';
import {
  activateProgram,
  issueKeyProgram,
  resolveSignInProgram,
  softDeleteProgram,
  type AccountStep,
  type SignInClaims,
} from '../shared/accounts.js';
import { HealthProbe } from '../shared/health-probe.js';
import { createKeyProgram, isKeyStep, revokeKeyProgram, rotateKeyProgram, type KeyStep } from '../shared/keys.js';
import { runAsync, type Program, type Statement } from '../shared/program.js';
import { createRegionProgram, isRegionStep, renameRegionProgram, type NewRegion, type RegionStep } from '../shared/regions.js';
import type { SessionRow } from '../shared/sessions.js';
import type { RefundInput } from '../shared/usage.js';
import type { AccountsStore, AdmitInput, AdmitOutcome, BillingProgram, DatabaseHealth, UsagePeek } from '../store.js';
import * as accounts from './accounts-repo.js';
import { PgAdmission } from './admission.js';
import { billingStep, subscriptionsOf } from './billing-repo.js';
import { AccountsUnavailableError, advisoryLock, PgDb, type Pg } from './connection.js';
import { createInvite } from './invites-repo.js';
import { PgKeyAuth } from './key-auth.js';
import * as keys from './keys-repo.js';
import * as regions from './regions-repo.js';
import { runRetention } from './retention.js';
import * as sessions from './sessions-repo.js';
import * as tos from './tos-repo.js';
import * as usage from './usage-repo.js';

export { AccountsUnavailableError } from './connection.js';

export interface PostgresStoreOptions {
  url: string;
  poolSize?: number;
  leaseTtlMs?: number;
  pollMs?: number;
}

export class PostgresAccountStore implements AccountsStore {
  readonly kind = 'postgres' as const;
  private readonly db: PgDb;
  private readonly auth: PgKeyAuth;
  private readonly admission: PgAdmission;
  private readonly probe = new HealthProbe();
  private pollTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private closed = false;
  readonly leaseTtlMs: number;
  readonly pollMs: number;

  constructor(opts: PostgresStoreOptions) {
    this.leaseTtlMs = opts.leaseTtlMs ?? 15_000;
    this.pollMs = opts.pollMs ?? 250;
    this.db = new PgDb(opts, () => this.startTimers());
    this.auth = new PgKeyAuth(this.db, opts.url);
    this.admission = new PgAdmission(this.db, this.leaseTtlMs);
  }

  get pool() {
    return this.db.pool;
  }
  /** Admission statements sent and requests in them, for the benchmark and tests. */
  get stats() {
    return this.admission.stats;
  }
  /** Leases this replica holds right now (tests). */
  get leasesHeld(): number {
    return this.admission.leasesHeld;
  }

  /** Apply pending migrations and start the generation poll and lease renewal. Safe to call often. */
  ready(): Promise<void> {
    return this.db.ready();
  }

  /** Migration version applied (tests, admin). */
  async schemaVersion(): Promise<number> {
    return (await this.db.one<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations'))?.v ?? 0;
  }

  private startTimers(): void {
    if (this.closed || this.pollTimer) return;
    this.pollTimer = setInterval(() => void this.auth.poll(), this.pollMs);
    this.pollTimer.unref();
    this.renewTimer = setInterval(() => void this.admission.renewLeases(), Math.max(100, Math.floor(this.leaseTtlMs / 3)));
    this.renewTimer.unref();
    void this.auth.listen();
  }

  /** A shared program in one transaction, each step one PostgreSQL statement (locks are advisory locks). */
  private transaction<T>(program: Program<AccountStep | KeyStep | RegionStep, T>): Promise<T> {
    return this.db.tx((c) =>
      runAsync(
        program,
        (s) => step(c, s),
        (key) => advisoryLock(c, key),
      ),
    );
  }

  // ---------------------------------------------------------------- accounts

  getAccount(id: string) {
    return accounts.getAccount(this.db, id);
  }
  findAccountByEmail(email: string) {
    return accounts.findAccountByEmail(this.db, email);
  }
  resolveSignIn(claims: SignInClaims, now: number) {
    return this.transaction(resolveSignInProgram(claims, now));
  }
  issueKey(i: { email: string; plan: string; name: string; now: number }) {
    return this.transaction(issueKeyProgram(i));
  }
  setPlan(accountId: string, plan: string, now: number) {
    return accounts.setPlan(this.db, accountId, plan, now);
  }
  setStripeCustomer(accountId: string, customerId: string, now: number) {
    return accounts.setStripeCustomer(this.db, accountId, customerId, now);
  }
  updateProfile(accountId: string, p: { name?: string | null; organization?: string | null }, now: number) {
    return accounts.updateProfile(this.db, accountId, p, now);
  }
  softDeleteAccount(accountId: string, now: number) {
    return this.transaction(softDeleteProgram(accountId, now));
  }
  activate(accountId: string, code: string, now: number) {
    return this.transaction(activateProgram(accountId, code, now));
  }
  createInvite(i: { plan: string | null; expiresAt: number; now: number }) {
    return createInvite(this.db, i);
  }

  // ---------------------------------------------------------------- keys

  createKey(accountId: string, name: string, maxActive: number, now: number) {
    return this.transaction(createKeyProgram(accountId, name, maxActive, now));
  }
  listKeys(accountId: string) {
    return keys.listKeys(this.db, accountId);
  }
  countActiveKeys(accountId: string) {
    return keys.countActiveKeys(this.db, accountId);
  }
  getKey(accountId: string, keyId: string) {
    return keys.getKey(this.db, accountId, keyId);
  }
  revokeKey(accountId: string, keyId: string, now: number) {
    return this.transaction(revokeKeyProgram(accountId, keyId, now));
  }
  rotateKey(accountId: string, keyId: string, now: number) {
    return this.transaction(rotateKeyProgram(accountId, keyId, now));
  }
  renameKey(accountId: string, keyId: string, name: string) {
    return keys.renameKey(this.db, accountId, keyId, name);
  }
  findKeyOwner(ref: { id: string } | { hash: string }) {
    return keys.findKeyOwner(this.db, ref);
  }
  authenticateKey(keyHash: string, config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number) {
    return this.auth.authenticate(keyHash, config, now);
  }
  async touchKey(keyHash: string, keyId: string, now: number) {
    this.auth.noteUsed(keyHash, now);
    await keys.touchKey(this.db, keyId, now);
  }
  authGeneration(): number {
    return this.auth.current;
  }

  // ---------------------------------------------------------------- saved regions

  listRegions(accountId: string) {
    return regions.listRegions(this.db, accountId);
  }
  getRegion(accountId: string, name: string) {
    return regions.getRegion(this.db, accountId, name);
  }
  createRegion(accountId: string, r: NewRegion, maxRegions: number) {
    return this.transaction(createRegionProgram(accountId, r, maxRegions));
  }
  renameRegion(accountId: string, name: string, newName: string, now: number) {
    return this.transaction(renameRegionProgram(accountId, name, newName, now));
  }
  deleteRegion(accountId: string, name: string) {
    return regions.deleteRegion(this.db, accountId, name);
  }

  // ---------------------------------------------------------------- admission and usage

  admit(input: AdmitInput): Promise<AdmitOutcome> {
    return this.admission.admit(input);
  }
  heldBy(requestId: string) {
    return this.admission.heldBy(requestId);
  }
  releaseRequest(requestId: string): void {
    this.admission.releaseRequest(requestId);
  }
  refund(r: RefundInput) {
    return usage.refund(this.db, r);
  }
  peekUsage(accountId: string, period: string, minute: number): UsagePeek {
    return this.admission.peekUsage(accountId, period, minute);
  }
  usage(accountId: string, period: string, minute: number) {
    return usage.usage(this.db, accountId, period, minute, Date.now());
  }
  usageBreakdown(accountId: string, from: number, to: number) {
    return usage.usageBreakdown(this.db, accountId, from, to);
  }

  // ---------------------------------------------------------------- terms of service

  currentTos(config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number) {
    return tos.currentTos(this.db, config, now);
  }
  tosState(config: Pick<Config, 'TOS_CURRENT_VERSION'>, account: { id: string; created_at: number }, now: number) {
    return tos.tosState(this.db, config, account, now);
  }
  publishTos(d: { version: string; effectiveAt: number; url?: string | null; sha256?: string | null; now: number }) {
    return tos.publishTos(this.db, d);
  }
  recordAcceptance(a: { accountId: string; version: string; ip: string | null; userAgent: string | null; now: number }) {
    return tos.recordAcceptance(this.db, a);
  }

  // ---------------------------------------------------------------- dashboard sessions

  createSession(accountId: string, now: number, ttlMs: number) {
    return sessions.createSession(this.db, accountId, now, ttlMs);
  }
  findSession(id: string, now: number) {
    return sessions.findSession(this.db, id, now);
  }
  extendSession(row: SessionRow, now: number, ttlMs: number) {
    return sessions.extendSession(this.db, row, now, ttlMs);
  }
  deleteSession(id: string) {
    return sessions.deleteSession(this.db, id);
  }

  // ---------------------------------------------------------------- billing, retention, health

  subscriptionsOf(accountId: string) {
    return subscriptionsOf(this.db, accountId);
  }
  runBilling<T>(program: () => BillingProgram<T>): Promise<T> {
    return this.db.tx(async (c) => {
      // Webhooks one at a time across replicas: a redelivered event cannot be applied twice by two
      // replicas at once, and an account's plan is recomputed from a stable set of subscriptions.
      await advisoryLock(c, 'billing');
      return runAsync(
        program(),
        (s) => billingStep(c, s),
        (key) => advisoryLock(c, key),
      );
    });
  }
  runRetention(now: number) {
    return this.db.tx((c) => runRetention(c, now));
  }

  /** For /health: a real write, throttled by ../shared/health-probe.ts. */
  async health(now = Date.now()): Promise<DatabaseHealth> {
    const recent = this.probe.recent(now);
    if (recent) return recent;
    try {
      await this.db.q('UPDATE service_state SET health_probe_at = $1 WHERE id = 1', [now]);
      return this.probe.note(now, { ok: true });
    } catch (e) {
      return this.probe.note(now, {
        ok: false,
        reason: e instanceof AccountsUnavailableError ? e.reason : String((e as { code?: string }).code ?? 'error'),
      });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pollTimer);
    clearInterval(this.renewTimer);
    await this.auth.close();
    await this.admission.close();
    await this.db.close();
  }
}

/** Each step of a shared program, to the repository that has its statement. */
function step(c: Pg, s: Statement<AccountStep | KeyStep | RegionStep>): Promise<unknown> {
  if (isKeyStep(s)) return keys.keyStep(c, s);
  if (isRegionStep(s)) return regions.regionStep(c, s);
  return accounts.accountStep(c, s);
}
