// The accounts store on SQLite (the embedded default, DATABASE_PATH). Each method is one
// synchronous better-sqlite3 call or transaction, so it stays one atomic step however the async
// interface interleaves callers. Monthly and burst limits are exact across processes sharing the
// file (the conditional UPDATEs run under SQLite's write lock); the concurrency cap is counted per
// process (docs/replicas.md): a shared-file deployment is one machine, where PostgreSQL is the
// answer for more.
import { ConcurrencyLimiter } from '../../domain/limits/concurrency.js';
import type { Config } from '../../config.js';
import {
  accountStep,
  findAccountByEmail,
  findAccountByStripeCustomer,
  getAccount,
  setPlan,
  setStripeCustomer,
  softDeleteAccount,
  updateProfile,
} from './accounts-repo.js';
import { eventProcessed, getSubscription, recordEvent, subscriptionsOf, upsertSubscription } from './billing-repo.js';
import { chargeBatcherOf } from './charge-batcher.js';
import { closeAccountsDb, stmt, type Db } from './db.js';
import { createInvite } from './invites-repo.js';
import { authGeneration, keyCacheOf } from './key-cache.js';
import { createRegion, deleteRegion, getRegion, listRegions, renameRegion } from './regions-repo.js';
import type { NewRegion } from './shared/regions.js';
import { countActiveKeys, createKey, getKey, keyStep, listKeys, renameKey, revokeKey, rotateKey, touchKey } from './keys-repo.js';
import { runRetention } from './retention.js';
import { activateProgram, issueKeyProgram, resolveSignInProgram, type AccountStep } from './shared/accounts.js';
import { HealthProbe } from './shared/health-probe.js';
import { isKeyStep, type KeyStep } from './shared/keys.js';
import { runSync, type Program } from './shared/program.js';
import { createSession, deleteSession, extendSession, findSession } from './sessions-repo.js';
import type {
  AccountsStore,
  AdmitInput,
  BillingProgram,
  BillingStep,
  AdmitOutcome,
  DatabaseHealth,
  SignInClaims,
  UsagePeek,
} from './store.js';
import { currentTos, tosState } from './tos-policy.js';
import { publishTos, recordAcceptance } from './tos-repo.js';
import { burstRequests, monthlyRequests, monthlyUnits, refund, usageByDay, usageByKey, usageByRoute } from './usage-repo.js';

export class SqliteAccountStore implements AccountsStore {
  readonly kind = 'sqlite' as const;
  /** In-process concurrency counter (per process by design on SQLite; see the header). */
  readonly concurrency = new ConcurrencyLimiter();
  private readonly probe = new HealthProbe();
  constructor(readonly db: Db) {}

  /** A shared program (shared/accounts.ts) in one IMMEDIATE transaction, each step one SQLite statement. */
  private transaction<T>(program: Program<AccountStep | KeyStep, T>): T {
    const db = this.db;
    return db.transaction(() => runSync(program, (s) => (isKeyStep(s) ? keyStep(db, s) : accountStep(db, s)))).immediate();
  }

  async getAccount(id: string) {
    return getAccount(this.db, id);
  }
  async findAccountByEmail(email: string) {
    return findAccountByEmail(this.db, email);
  }
  async resolveSignIn(claims: SignInClaims, now: number) {
    return this.transaction(resolveSignInProgram(claims, now));
  }
  async issueKey(i: { email: string; plan: string; name: string; now: number }) {
    return this.transaction(issueKeyProgram(i));
  }
  async setPlan(accountId: string, plan: string, now: number) {
    return setPlan(this.db, accountId, plan, now);
  }
  async setStripeCustomer(accountId: string, customerId: string, now: number) {
    setStripeCustomer(this.db, accountId, customerId, now);
  }
  async updateProfile(accountId: string, p: { name?: string | null; organization?: string | null }, now: number) {
    return updateProfile(this.db, accountId, p, now);
  }
  async softDeleteAccount(accountId: string, now: number) {
    return softDeleteAccount(this.db, accountId, now);
  }
  async activate(accountId: string, code: string, now: number) {
    return this.transaction(activateProgram(accountId, code, now));
  }
  async createInvite(i: { plan: string | null; expiresAt: number; now: number }) {
    return createInvite(this.db, i);
  }

  async createKey(accountId: string, name: string, maxActive: number, now: number) {
    return createKey(this.db, accountId, name, maxActive, now);
  }
  async listKeys(accountId: string) {
    return listKeys(this.db, accountId);
  }
  async countActiveKeys(accountId: string) {
    return countActiveKeys(this.db, accountId);
  }
  async getKey(accountId: string, keyId: string) {
    return getKey(this.db, accountId, keyId);
  }
  async revokeKey(accountId: string, keyId: string, now: number) {
    return revokeKey(this.db, accountId, keyId, now);
  }
  async rotateKey(accountId: string, keyId: string, now: number) {
    return rotateKey(this.db, accountId, keyId, now);
  }
  async renameKey(accountId: string, keyId: string, name: string) {
    return renameKey(this.db, accountId, keyId, name);
  }

  async listRegions(accountId: string) {
    return listRegions(this.db, accountId);
  }
  async getRegion(accountId: string, name: string) {
    return getRegion(this.db, accountId, name);
  }
  async createRegion(accountId: string, r: NewRegion, maxRegions: number) {
    return createRegion(this.db, accountId, r, maxRegions);
  }
  async renameRegion(accountId: string, name: string, newName: string, now: number) {
    return renameRegion(this.db, accountId, name, newName, now);
  }
  async deleteRegion(accountId: string, name: string) {
    return deleteRegion(this.db, accountId, name);
  }
  async findKeyOwner(ref: { id: string } | { hash: string }) {
    return (
      'hash' in ref
        ? stmt(this.db, 'SELECT id, account_id FROM api_keys WHERE key_hash = ?').get(ref.hash)
        : stmt(this.db, 'SELECT id, account_id FROM api_keys WHERE id = ?').get(ref.id)
    ) as { id: string; account_id: string } | undefined;
  }
  async authenticateKey(keyHash: string, config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number) {
    // One indexed read of the generation per request; the key itself from memory when current.
    return keyCacheOf(this.db).lookup(keyHash, config, now);
  }
  async touchKey(keyHash: string, keyId: string, now: number) {
    touchKey(this.db, keyId, now);
    keyCacheOf(this.db).noteUsed(keyHash, now);
  }
  authGeneration(): number {
    return authGeneration(this.db);
  }

  async admit(input: AdmitInput): Promise<AdmitOutcome> {
    const held = this.concurrency.heldBy(input.requestId);
    const lease = held ?? this.concurrency.tryAcquire(input.accountId, input.maxConcurrent, input.requestId);
    if (!lease) {
      return {
        ok: false,
        limit: 'concurrency',
        monthlyUsed: monthlyUnits(this.db, input.accountId, input.period),
        burstUsed: burstRequests(this.db, input.accountId, input.minute),
        inFlight: this.concurrency.inFlight(input.accountId),
      };
    }
    try {
      // Group-committed with the other charges of this event-loop turn; settles after COMMIT.
      const out = await chargeBatcherOf(this.db).charge(input);
      const inFlight = this.concurrency.inFlight(input.accountId);
      if (!out.ok) {
        if (!held) lease.release();
        return { ...out, inFlight: this.concurrency.inFlight(input.accountId) };
      }
      return { ...out, inFlight, lease };
    } catch (e) {
      if (!held) lease.release();
      throw e;
    }
  }
  heldBy(requestId: string) {
    return this.concurrency.heldBy(requestId);
  }
  releaseRequest(requestId: string): void {
    this.concurrency.releaseRequest(requestId);
  }
  async refund(r: { accountId: string; period: string; logId: number }) {
    return refund(this.db, r);
  }
  peekUsage(accountId: string, period: string, minute: number): UsagePeek {
    return {
      monthlyUnits: monthlyUnits(this.db, accountId, period),
      burst: burstRequests(this.db, accountId, minute),
      inFlight: this.concurrency.inFlight(accountId),
    };
  }
  async usage(accountId: string, period: string, minute: number) {
    return { ...this.peekUsage(accountId, period, minute), monthlyRequests: monthlyRequests(this.db, accountId, period) };
  }
  async usageBreakdown(accountId: string, from: number, to: number) {
    return {
      byDay: usageByDay(this.db, accountId, from, to),
      byRoute: usageByRoute(this.db, accountId, from, to),
      byKey: usageByKey(this.db, accountId, from, to),
    };
  }

  async currentTos(config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number) {
    return currentTos(this.db, config, now);
  }
  async tosState(config: Pick<Config, 'TOS_CURRENT_VERSION'>, account: { id: string; created_at: number }, now: number) {
    return tosState(this.db, config, account, now);
  }
  async publishTos(d: { version: string; effectiveAt: number; url?: string | null; sha256?: string | null; now: number }) {
    return publishTos(this.db, d);
  }
  async recordAcceptance(a: { accountId: string; version: string; ip: string | null; userAgent: string | null; now: number }) {
    return recordAcceptance(this.db, a);
  }

  async createSession(accountId: string, now: number, ttlMs: number) {
    return createSession(this.db, accountId, now, ttlMs);
  }
  async findSession(id: string, now: number) {
    return findSession(this.db, id, now);
  }
  async extendSession(row: Parameters<typeof extendSession>[1], now: number, ttlMs: number) {
    extendSession(this.db, row, now, ttlMs);
  }
  async deleteSession(id: string) {
    deleteSession(this.db, id);
  }

  async subscriptionsOf(accountId: string) {
    return subscriptionsOf(this.db, accountId);
  }
  async runBilling<T>(program: () => BillingProgram<T>): Promise<T> {
    const db = this.db;
    return db.transaction((): T => runSync(program(), (s) => this.billingStep(s))).immediate();
  }
  private billingStep(s: BillingStep): unknown {
    const db = this.db;
    switch (s.op) {
      case 'getAccount':
        return getAccount(db, s.id);
      case 'findAccountByStripeCustomer':
        return findAccountByStripeCustomer(db, s.customerId);
      case 'setPlan':
        return setPlan(db, s.id, s.plan, s.now);
      case 'setStripeCustomer':
        return setStripeCustomer(db, s.id, s.customerId, s.now);
      case 'eventProcessed':
        return eventProcessed(db, s.id);
      case 'recordEvent':
        return recordEvent(db, s.e);
      case 'getSubscription':
        return getSubscription(db, s.id);
      case 'upsertSubscription':
        return upsertSubscription(db, s.s);
      case 'subscriptionsOf':
        return subscriptionsOf(db, s.accountId);
    }
  }
  async runRetention(now: number) {
    return runRetention(this.db, now);
  }

  /** For /health: a real write (one row of service_state), throttled by shared/health-probe.ts. */
  async health(now = Date.now()): Promise<DatabaseHealth> {
    return this.healthSync(now);
  }
  healthSync(now = Date.now()): DatabaseHealth {
    const recent = this.probe.recent(now);
    if (recent) return recent;
    try {
      stmt(this.db, 'UPDATE service_state SET health_probe_at = ? WHERE id = 1').run(now);
      return this.probe.note(now, { ok: true });
    } catch (e) {
      return this.probe.note(now, { ok: false, reason: String((e as { code?: string }).code ?? (e as Error).name) });
    }
  }
  ping(): boolean {
    return this.healthSync().ok;
  }
  async close(): Promise<void> {
    closeAccountsDb(this.db);
  }
}
