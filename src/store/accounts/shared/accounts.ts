// Accounts as both accounts stores hold them: the row, and the transactions that find, create or
// upgrade one (programs of AccountStep, see program.ts). Every read skips soft-deleted accounts.
import { SIGN_UP_PLAN } from '../../../domain/plans.js';
import { planRank } from '../plan-rank.js';
import type { RedeemOutcome } from './invites.js';
import { type KeyStep, type NewKey } from './keys.js';
import { lock, step, type LockStep, type Program } from './program.js';

export interface AccountRow {
  id: string;
  email: string | null;
  name: string | null;
  organization: string | null;
  plan: string;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  stripe_customer_id: string | null;
  activated_at: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface NewAccount {
  email: string | null;
  plan: string;
  issuer?: string | null;
  subject?: string | null;
  now: number;
}

/** What an identity provider vouches for at sign-in. */
export interface SignInClaims {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

export type AccountStep =
  | LockStep
  | { op: 'getAccount'; id: string }
  | { op: 'findAccountBySubject'; issuer: string; subject: string }
  /** Case-insensitive (identity providers do not agree on e-mail case); the oldest first. */
  | { op: 'findAccountByEmail'; email: string }
  /** Returns the row created. */
  | { op: 'createAccount'; a: NewAccount }
  | { op: 'linkSubject'; id: string; issuer: string; subject: string; now: number }
  | { op: 'setPlan'; id: string; plan: string; now: number }
  | { op: 'markActivated'; id: string; now: number }
  /** The single-use redemption: only one redeemer can mark a code used. */
  | { op: 'redeemInvite'; code: string; accountId: string; now: number }
  /** Mark the account deleted unless it already is; the result is whether this call did. */
  | { op: 'markDeleted'; id: string; now: number }
  | { op: 'revokeAccountKeys'; accountId: string; now: number };

const accountStep = <T>(s: AccountStep) => step<AccountStep, T>(s);
const createAccount = (a: NewAccount) => accountStep<AccountRow>({ op: 'createAccount', a });
const findByEmail = (email: string) => accountStep<AccountRow | undefined>({ op: 'findAccountByEmail', email });

/** Dashboard sign-in: by subject, else a verified e-mail's unlinked account, else a new account on the sign-up plan. */
export function* resolveSignInProgram(claims: SignInClaims, now: number): Program<AccountStep, { account: AccountRow; created: boolean }> {
  // Two first sign-ins of one person (two tabs, two replicas) create one account.
  yield* lock(`signin:${claims.issuer}:${claims.subject}`);
  const bySubject = yield* accountStep<AccountRow | undefined>({
    op: 'findAccountBySubject',
    issuer: claims.issuer,
    subject: claims.subject,
  });
  if (bySubject) return { account: bySubject, created: false };
  if (claims.email && claims.emailVerified) {
    const byEmail = yield* findByEmail(claims.email);
    if (byEmail && byEmail.oidc_subject === null) {
      yield* accountStep<void>({ op: 'linkSubject', id: byEmail.id, issuer: claims.issuer, subject: claims.subject, now });
      return { account: { ...byEmail, oidc_issuer: claims.issuer, oidc_subject: claims.subject }, created: false };
    }
  }
  const account = yield* createAccount({ email: claims.email, plan: SIGN_UP_PLAN, issuer: claims.issuer, subject: claims.subject, now });
  return { account, created: true };
}

/** Admin: the account for `email` (created if needed) on `plan`, and a new key for it (no key limit). */
export function* issueKeyProgram(i: {
  email: string;
  plan: string;
  name: string;
  now: number;
}): Program<AccountStep | KeyStep, { accountId: string; created: boolean } & NewKey> {
  yield* lock(`email:${i.email.toLowerCase()}`);
  let account = yield* findByEmail(i.email);
  const created = !account;
  if (!account) account = yield* createAccount({ email: i.email, plan: i.plan, now: i.now });
  else if (account.plan !== i.plan) yield* accountStep<boolean>({ op: 'setPlan', id: account.id, plan: i.plan, now: i.now });
  const key = yield* step<KeyStep, NewKey>({ op: 'insertKey', accountId: account.id, name: i.name, now: i.now });
  return { accountId: account.id, created, ...key };
}

/** Redeem an invite for the account and activate it; the code's plan only ever raises the plan. */
export function* activateProgram(accountId: string, code: string, now: number): Program<AccountStep, RedeemOutcome> {
  const current = yield* accountStep<AccountRow | undefined>({ op: 'getAccount', id: accountId });
  const r = yield* accountStep<RedeemOutcome>({ op: 'redeemInvite', code, accountId, now });
  if (!r.ok) return r;
  yield* accountStep<void>({ op: 'markActivated', id: accountId, now });
  if (current && r.plan && planRank(r.plan) > planRank(current.plan))
    yield* accountStep<boolean>({ op: 'setPlan', id: accountId, plan: r.plan, now });
  return r;
}

/** Soft delete: the account and all its keys stop working at once; rows are hard-purged 30 days later (retention). */
export function* softDeleteProgram(accountId: string, now: number): Program<AccountStep, boolean> {
  const deleted = yield* accountStep<boolean>({ op: 'markDeleted', id: accountId, now });
  yield* accountStep<void>({ op: 'revokeAccountKeys', accountId, now });
  return deleted;
}
