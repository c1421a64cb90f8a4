// The accounts store: one interface, two implementations (docs/replicas.md).
//   SqliteAccountStore   (sqlite-store.ts)   the embedded default, DATABASE_PATH, better-sqlite3
//   PostgresAccountStore (postgres/store.ts) DATABASE_URL=postgres://…, shared by N replicas
// Verbs and the admin CLI reach accounts, keys, usage and limits only through this interface.
// It is async because PostgreSQL is; the SQLite implementation answers from synchronous calls,
// so each method stays one atomic step there as before. Every per-account method takes the
// caller's account id and filters by it: another account's row reads as absent.
import type { Config } from '../../config.js';
import type { AccountRow, SignInClaims } from './shared/accounts.js';
import type { SubscriptionRow } from './shared/billing.js';
import type { RedeemOutcome } from './shared/invites.js';
import type { KeyAuth } from './shared/key-auth-cache.js';
import type { KeyLookup, KeyRow, RotateOutcome } from './shared/keys.js';
import type { NewRegion, RegionRow, RenameRegionOutcome, SaveRegionOutcome } from './shared/regions.js';
import type { RetentionReport } from './shared/retention.js';
import type { SessionRow } from './shared/sessions.js';
import type { TosAcceptance, TosDocument, TosState } from './shared/tos.js';
import type { ChargeInput, RefundInput, UsageBreakdownRow } from './shared/usage.js';

export type { RegionRow, RenameRegionOutcome, SaveRegionOutcome };
export type { AccountRow, KeyLookup, KeyRow, RotateOutcome, SessionRow, SubscriptionRow, TosAcceptance, TosDocument, TosState };
export type { KeyAuth, SignInClaims };

export interface DatabaseHealth {
  ok: boolean;
  /** Why not, for operators (/health): an SQLite, PostgreSQL or network error code. */
  reason?: string;
}

/** A concurrency slot held by one request until its response ends. */
export interface Lease {
  readonly accountId: string;
  /** Idempotent: the transport may call it from several end-of-response hooks. */
  release(): void;
}

export interface AdmitInput extends ChargeInput {
  requestId: string;
  maxConcurrent: number;
}

/** The order of checks is concurrency → monthly units → per-minute burst. */
export type AdmitOutcome =
  | { ok: true; monthlyUsed: number; burstUsed: number; inFlight: number; logId: number; lease: Lease }
  | { ok: false; limit: 'concurrency' | 'monthly' | 'burst'; monthlyUsed: number; burstUsed: number; inFlight: number };

/** Usage counters as last seen by this process (exact on SQLite; on PostgreSQL as of this replica's last admission). */
export interface UsagePeek {
  monthlyUnits: number;
  burst: number;
  inFlight: number;
}

/** One read or write of a billing transaction; src/billing/webhook.ts writes its logic as a program of these. */
export type BillingStep =
  | { op: 'getAccount'; id: string }
  | { op: 'findAccountByStripeCustomer'; customerId: string }
  | { op: 'setPlan'; id: string; plan: string; now: number }
  | { op: 'setStripeCustomer'; id: string; customerId: string; now: number }
  | { op: 'eventProcessed'; id: string }
  | { op: 'recordEvent'; e: { id: string; type: string; created: number; accountId: string | null; outcome: string; now: number } }
  | { op: 'getSubscription'; id: string }
  | { op: 'upsertSubscription'; s: SubscriptionRow }
  | { op: 'subscriptionsOf'; accountId: string };

/** A billing transaction: yields steps, receives each step's result, returns its outcome. */
export type BillingProgram<T> = Generator<BillingStep, T, unknown>;

export interface AccountsStore {
  readonly kind: 'sqlite' | 'postgres';

  // Accounts
  getAccount(id: string): Promise<AccountRow | undefined>;
  findAccountByEmail(email: string): Promise<AccountRow | undefined>;
  /** Dashboard sign-in: by subject, else a verified e-mail's unlinked account, else a new Free account. */
  resolveSignIn(claims: SignInClaims, now: number): Promise<{ account: AccountRow; created: boolean }>;
  /** Admin: the account for `email` (created if needed) on `plan`, and a new key for it. */
  issueKey(i: {
    email: string;
    plan: string;
    name: string;
    now: number;
  }): Promise<{ accountId: string; created: boolean; row: KeyRow; rawKey: string }>;
  setPlan(accountId: string, plan: string, now: number): Promise<boolean>;
  setStripeCustomer(accountId: string, customerId: string, now: number): Promise<void>;
  updateProfile(accountId: string, p: { name?: string | null; organization?: string | null }, now: number): Promise<AccountRow | undefined>;
  softDeleteAccount(accountId: string, now: number): Promise<boolean>;
  /** Redeem an invite for the account and activate it; the code's plan only ever raises the plan. */
  activate(accountId: string, code: string, now: number): Promise<RedeemOutcome>;
  createInvite(i: { plan: string | null; expiresAt: number; now: number }): Promise<string>;

  // Keys
  createKey(accountId: string, name: string, maxActive: number, now: number): Promise<{ row: KeyRow; rawKey: string }>;
  listKeys(accountId: string): Promise<KeyRow[]>;
  countActiveKeys(accountId: string): Promise<number>;
  getKey(accountId: string, keyId: string): Promise<KeyRow | undefined>;
  revokeKey(accountId: string, keyId: string, now: number): Promise<{ row: KeyRow; revoked: boolean } | undefined>;
  rotateKey(accountId: string, keyId: string, now: number): Promise<RotateOutcome>;
  renameKey(accountId: string, keyId: string, name: string): Promise<KeyRow | undefined>;
  /** Admin: a key's owner by key id or by the key's hash. */
  findKeyOwner(ref: { id: string } | { hash: string }): Promise<{ id: string; account_id: string } | undefined>;
  /** The key (by hash) and its account's terms state, from the per-process key cache when current. */
  authenticateKey(keyHash: string, config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number): Promise<KeyAuth | undefined>;
  /** Last-used hint, written at most once a minute per key. */
  touchKey(keyHash: string, keyId: string, now: number): Promise<void>;
  /** The auth generation as this process last saw it (moves on revocation, plan and terms changes). */
  authGeneration(): number;

  // Saved custom regions (by name, scoped to the account)
  listRegions(accountId: string): Promise<RegionRow[]>;
  getRegion(accountId: string, name: string): Promise<RegionRow | undefined>;
  createRegion(accountId: string, r: NewRegion, maxRegions: number): Promise<SaveRegionOutcome>;
  renameRegion(accountId: string, name: string, newName: string, now: number): Promise<RenameRegionOutcome>;
  deleteRegion(accountId: string, name: string): Promise<boolean>;

  // Usage and limits
  admit(input: AdmitInput): Promise<AdmitOutcome>;
  /** The lease a request already holds (a request charged twice is still one connection). */
  heldBy(requestId: string): Lease | undefined;
  /** Give the request's concurrency slot back; safe when it holds none. */
  releaseRequest(requestId: string): void;
  refund(r: RefundInput): Promise<boolean>;
  peekUsage(accountId: string, period: string, minute: number): UsagePeek;
  usage(
    accountId: string,
    period: string,
    minute: number,
  ): Promise<{ monthlyUnits: number; monthlyRequests: number; burst: number; inFlight: number }>;
  usageBreakdown(
    accountId: string,
    from: number,
    to: number,
  ): Promise<{ byDay: UsageBreakdownRow[]; byRoute: UsageBreakdownRow[]; byKey: UsageBreakdownRow[] }>;

  // Terms of service
  currentTos(config: Pick<Config, 'TOS_CURRENT_VERSION'>, now: number): Promise<TosDocument | undefined>;
  tosState(config: Pick<Config, 'TOS_CURRENT_VERSION'>, account: { id: string; created_at: number }, now: number): Promise<TosState>;
  publishTos(d: { version: string; effectiveAt: number; url?: string | null; sha256?: string | null; now: number }): Promise<TosDocument>;
  recordAcceptance(a: {
    accountId: string;
    version: string;
    ip: string | null;
    userAgent: string | null;
    now: number;
  }): Promise<TosAcceptance>;

  // Dashboard sessions
  createSession(accountId: string, now: number, ttlMs: number): Promise<{ id: string; row: SessionRow }>;
  findSession(id: string, now: number): Promise<SessionRow | undefined>;
  extendSession(row: SessionRow, now: number, ttlMs: number): Promise<void>;
  deleteSession(id: string): Promise<void>;

  // Billing
  subscriptionsOf(accountId: string): Promise<SubscriptionRow[]>;
  /** Run a billing program in one transaction (webhooks serialized: Stripe events are rare). */
  runBilling<T>(program: () => BillingProgram<T>): Promise<T>;

  runRetention(now: number): Promise<RetentionReport>;
  /** For /health: a real write, at most once a second. */
  health(now?: number): Promise<DatabaseHealth>;
  close(): Promise<void>;
}
